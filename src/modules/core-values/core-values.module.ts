import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { CoreValuesController } from './core-values.controller.js';
import { CoreValuesService } from './core-values.service.js';

@Module({ imports: [SitesModule], controllers: [CoreValuesController], providers: [CoreValuesService], exports: [CoreValuesService] })
export class CoreValuesModule {}
