import { Module } from '@nestjs/common';
import { PeriodsModule } from '../periods/periods.module.js';
import { AssessmentsController } from './assessments.controller.js';
import { AssessmentsService } from './assessments.service.js';

@Module({ imports: [PeriodsModule], controllers: [AssessmentsController], providers: [AssessmentsService], exports: [AssessmentsService] })
export class AssessmentsModule {}
