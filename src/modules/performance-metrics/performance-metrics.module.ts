import { Module, OnModuleInit } from '@nestjs/common';
import { ArchiveWriters } from '../../database/archive-writers.js';
import { ByReference } from '../../database/by-reference.js';
import { SitesModule } from '../sites/sites.module.js';
import { metricArchives } from './metric-archives.js';
import { metricsOf } from './metric-cascade.js';
import { PerformanceMetricsController } from './performance-metrics.controller.js';
import { PerformanceMetricsService } from './performance-metrics.service.js';

/** The Metric resource (metrics of individuals and projects, with values per period). */
@Module({ imports: [SitesModule], controllers: [PerformanceMetricsController], providers: [PerformanceMetricsService], exports: [PerformanceMetricsService] })
export class PerformanceMetricsModule implements OnModuleInit {
  constructor(
    private readonly byReference: ByReference,
    private readonly archiveWriters: ArchiveWriters,
  ) {}

  /** An individual's or a project's metrics follow their owner; closing a period archives the metrics' values. */
  onModuleInit(): void {
    this.byReference.register('individual', metricsOf('individual', this.byReference));
    this.byReference.register('project', metricsOf('project', this.byReference));
    this.archiveWriters.register(metricArchives);
  }
}
