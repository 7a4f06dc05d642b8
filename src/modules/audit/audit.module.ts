import { Module } from '@nestjs/common';
import { ArchivesModule } from '../archives/archives.module.js';
import { AssessmentsModule } from '../assessments/assessments.module.js';
import { BasicRolesModule } from '../basic-roles/basic-roles.module.js';
import { ColorsModule } from '../colors/colors.module.js';
import { DialogsModule } from '../dialogs/dialogs.module.js';
import { GoalsModule } from '../goals/goals.module.js';
import { IndividualsModule } from '../individuals/individuals.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { PerformanceMetricsModule } from '../performance-metrics/performance-metrics.module.js';
import { PeriodsModule } from '../periods/periods.module.js';
import { PermissionsModule } from '../permissions/permissions.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { SecurityGroupsModule } from '../security-groups/security-groups.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { AuditRetention } from './audit-retention.js';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';
import { RecordKinds } from './record-kinds.js';
import { SyncService } from './sync.service.js';

/** The audit trail's routes and retention (docs/audit.md); the trail itself is written by the data layer. */
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
  ],
  controllers: [AuditController],
  providers: [AuditService, SyncService, RecordKinds, AuditRetention],
  exports: [AuditService, RecordKinds],
})
export class AuditModule {}
