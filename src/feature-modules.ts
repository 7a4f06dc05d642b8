import { AuditModule } from './modules/audit/audit.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';
import { ApiTokensModule } from './modules/api-tokens/api-tokens.module.js';
import { IdentityProvidersModule } from './modules/identity-providers/identity-providers.module.js';
import { ScimModule } from './modules/scim/scim.module.js';
import { ImportsModule } from './modules/imports/imports.module.js';
import { AssessmentsModule } from './modules/assessments/assessments.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { BasicRolesModule } from './modules/basic-roles/basic-roles.module.js';
import { ColorsModule } from './modules/colors/colors.module.js';
import { CommitmentsModule } from './modules/commitments/commitments.module.js';
import { CoreValuesModule } from './modules/core-values/core-values.module.js';
import { DashboardsModule } from './modules/dashboards/dashboards.module.js';
import { DialogsModule } from './modules/dialogs/dialogs.module.js';
import { GoalsModule } from './modules/goals/goals.module.js';
import { CommentsModule } from './modules/comments/comments.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { IdempotencyModule } from './modules/idempotency/idempotency.module.js';
import { ListItemsModule } from './modules/list-items/list-items.module.js';
import { ProjectsModule } from './modules/projects/projects.module.js';
import { IndividualsModule } from './modules/individuals/individuals.module.js';
import { OrganizationsModule } from './modules/organizations/organizations.module.js';
import { PeriodsModule } from './modules/periods/periods.module.js';
import { PermissionsModule } from './modules/permissions/permissions.module.js';
import { PerformanceMetricsModule } from './modules/performance-metrics/performance-metrics.module.js';
import { ArchivesModule } from './modules/archives/archives.module.js';
import { SecurityGroupsModule } from './modules/security-groups/security-groups.module.js';
import { SitesModule } from './modules/sites/sites.module.js';
import { TasksModule } from './modules/tasks/tasks.module.js';

/** Every feature module. A new resource module is added here (and its entities in src/database/registry.ts). */
export const FEATURE_MODULES = [
  AuthModule,
  // The write routes' stage (Idempotency-Key): no routes of its own.
  IdempotencyModule,
  SitesModule,
  HealthModule,
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
  AuditModule,
  WebhooksModule,
  ApiTokensModule,
  IdentityProvidersModule,
  ScimModule,
  ImportsModule,
];
