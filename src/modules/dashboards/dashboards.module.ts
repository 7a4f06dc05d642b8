import { Module } from '@nestjs/common';
import { PeriodsModule } from '../periods/periods.module.js';
import { DashboardAccess } from './dashboard-access.js';
import { DashboardsController } from './dashboards.controller.js';
import { DashboardsService } from './dashboards.service.js';

/** Dashboards (PM): figures per row and period, their explanation, the sample and the site's settings (docs/dashboards.md). */
@Module({ imports: [PeriodsModule], controllers: [DashboardsController], providers: [DashboardsService, DashboardAccess], exports: [DashboardsService] })
export class DashboardsModule {}
