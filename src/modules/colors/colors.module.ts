import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { ColorsController } from './colors.controller.js';
import { ColorsService } from './colors.service.js';

@Module({ imports: [SitesModule], controllers: [ColorsController], providers: [ColorsService], exports: [ColorsService] })
export class ColorsModule {}
