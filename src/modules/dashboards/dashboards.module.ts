import { Module, OnModuleInit } from '@nestjs/common';
import { ArchiveWriters } from '../../database/archive-writers.js';
import { PeriodsModule } from '../periods/periods.module.js';
import { dashboardArchives } from './dashboard-archives.js';
import { DashboardAccess } from './dashboard-access.js';
import { DashboardBasisCache } from './dashboard-basis.js';
import { DashboardsController } from './dashboards.controller.js';
import { DashboardsService } from './dashboards.service.js';
import { SummaryBuilder } from './summary-builder.js';

/** Dashboards (PM): figures per row and period, their explanation, the sample and the site's settings (docs/dashboards.md). */
@Module({
  imports: [PeriodsModule],
  controllers: [DashboardsController],
  providers: [DashboardsService, DashboardAccess, DashboardBasisCache, SummaryBuilder],
  exports: [DashboardsService, SummaryBuilder],
})
export class DashboardsModule implements OnModuleInit {
  constructor(private readonly archiveWriters: ArchiveWriters) {}

  /** Closing a period archives every dashboard of it. */
  onModuleInit(): void {
    this.archiveWriters.register(dashboardArchives);
  }
}
