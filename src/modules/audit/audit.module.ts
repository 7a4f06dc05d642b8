import { Module } from '@nestjs/common';
import { ApiTokensModule } from '../api-tokens/api-tokens.module.js';
import { ArchivesModule } from '../archives/archives.module.js';
import { AssessmentsModule } from '../assessments/assessments.module.js';
import { BasicRolesModule } from '../basic-roles/basic-roles.module.js';
import { ColorsModule } from '../colors/colors.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { CommitmentsModule } from '../commitments/commitments.module.js';
import { CoreValuesModule } from '../core-values/core-values.module.js';
import { DialogsModule } from '../dialogs/dialogs.module.js';
import { GoalsModule } from '../goals/goals.module.js';
import { IdentityProvidersModule } from '../identity-providers/identity-providers.module.js';
import { IndividualsModule } from '../individuals/individuals.module.js';
import { ListItemsModule } from '../list-items/list-items.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { PerformanceMetricsModule } from '../performance-metrics/performance-metrics.module.js';
import { PeriodsModule } from '../periods/periods.module.js';
import { PermissionsModule } from '../permissions/permissions.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { SecurityGroupsModule } from '../security-groups/security-groups.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { AuditRetention } from './audit-retention.js';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';
import { DeltaListStage } from './delta-list-stage.js';
import { RecordKinds } from './record-kinds.js';
import { SyncService } from './sync.service.js';

/**
 * The audit trail's routes and retention (docs/audit.md), delta sync (docs/delta-sync.md) — the
 * sync route and every list asked with `updatedSince` — and the record kinds they read; the trail
 * itself is written by the data layer.
 */
@Module({
  imports: [
    IndividualsModule,
    OrganizationsModule,
    PeriodsModule,
    ProjectsModule,
    GoalsModule,
    ColorsModule,
    BasicRolesModule,
    DialogsModule,
    TasksModule,
    AssessmentsModule,
    PerformanceMetricsModule,
    ArchivesModule,
    PermissionsModule,
    SecurityGroupsModule,
    CommentsModule,
    CommitmentsModule,
    CoreValuesModule,
    ListItemsModule,
    ApiTokensModule,
    IdentityProvidersModule,
    SitesModule,
  ],
  controllers: [AuditController],
  providers: [AuditService, SyncService, RecordKinds, AuditRetention, DeltaListStage],
  exports: [AuditService, RecordKinds],
})
export class AuditModule {}
