import { AssessmentsModule } from './assessments/assessments.module.js';
import { AuthModule } from './auth/auth.module.js';
import { BasicRolesModule } from './basic-roles/basic-roles.module.js';
import { ColorsModule } from './colors/colors.module.js';
import { CommitmentsModule } from './commitments/commitments.module.js';
import { CoreValuesModule } from './core-values/core-values.module.js';
import { DashboardsModule } from './dashboards/dashboards.module.js';
import { DialogsModule } from './dialogs/dialogs.module.js';
import { GoalsModule } from './goals/goals.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ListItemsModule } from './list-items/list-items.module.js';
import { ProjectsModule } from './projects/projects.module.js';
import { IndividualsModule } from './individuals/individuals.module.js';
import { OrganizationsModule } from './organizations/organizations.module.js';
import { PeriodsModule } from './periods/periods.module.js';
import { PermissionsModule } from './permissions/permissions.module.js';
import { PerformanceMetricsModule } from './performance-metrics/performance-metrics.module.js';
import { ArchivesModule } from './archives/archives.module.js';
import { SecurityGroupsModule } from './security-groups/security-groups.module.js';
import { SitesModule } from './sites/sites.module.js';
import { TasksModule } from './tasks/tasks.module.js';

/** Every feature module. A new resource module is added here (and its entities in database/registry.ts). */
export const FEATURE_MODULES = [
  AuthModule,
  SitesModule,
  HealthModule,
  MetricsModule,
  PeriodsModule,
  PermissionsModule,
  SecurityGroupsModule,
  CommentsModule,
  IndividualsModule,
  OrganizationsModule,
  ListItemsModule,
  ProjectsModule,
  GoalsModule,
  ColorsModule,
  CoreValuesModule,
  CommitmentsModule,
  PerformanceMetricsModule,
  ArchivesModule,
  DialogsModule,
  TasksModule,
  BasicRolesModule,
  AssessmentsModule,
  DashboardsModule,
];
