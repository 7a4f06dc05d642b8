import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { IndividualsController } from './individuals.controller.js';
import { IndividualsService } from './individuals.service.js';

@Module({ imports: [SitesModule], controllers: [IndividualsController], providers: [IndividualsService], exports: [IndividualsService] })
export class IndividualsModule {}
