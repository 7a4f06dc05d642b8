import { Module } from '@nestjs/common';
import { PeriodsModule } from '../periods/periods.module.js';
import { CommitmentsController } from './commitments.controller.js';
import { CommitmentsService } from './commitments.service.js';

@Module({ imports: [PeriodsModule], controllers: [CommitmentsController], providers: [CommitmentsService], exports: [CommitmentsService] })
export class CommitmentsModule {}
