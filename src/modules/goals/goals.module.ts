import { Module } from '@nestjs/common';
import { PeriodsModule } from '../periods/periods.module.js';
import { GoalsController } from './goals.controller.js';
import { GoalsService } from './goals.service.js';

@Module({ imports: [PeriodsModule], controllers: [GoalsController], providers: [GoalsService], exports: [GoalsService] })
export class GoalsModule {}
