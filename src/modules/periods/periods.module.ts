import { Module } from '@nestjs/common';
import { PeriodsService } from './periods.service.js';

@Module({ providers: [PeriodsService], exports: [PeriodsService] })
export class PeriodsModule {}
