import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { PerformanceMetricsController } from './performance-metrics.controller.js';
import { PerformanceMetricsService } from './performance-metrics.service.js';

/** The Metric resource (metrics of individuals and projects, with values per period). */
@Module({ imports: [SitesModule], controllers: [PerformanceMetricsController], providers: [PerformanceMetricsService], exports: [PerformanceMetricsService] })
export class PerformanceMetricsModule {}
