import { SiteEntity } from './entities/site.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { IndividualEntity } from './entities/individual.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { OrganizationMemberEntity } from './entities/organization-member.entity.js';
import { PeriodEntity } from './entities/period.entity.js';
import { CommentEntity } from './entities/comment.entity.js';
import { ListItemEntity } from './entities/list-item.entity.js';
import { ProjectEntity } from './entities/project.entity.js';
import { ProjectDueDateChangeEntity } from './entities/project-due-date-change.entity.js';
import { GoalEntity } from './entities/goal.entity.js';
import { ColorEntity } from './entities/color.entity.js';
import { CoreValueEntity } from './entities/core-value.entity.js';
import { CommitmentEntity } from './entities/commitment.entity.js';
import { BasicRoleEntity } from './entities/basic-role.entity.js';
import { BasicRoleDialogEntity } from './entities/basic-role-dialog.entity.js';
import { DialogEntity } from './entities/dialog.entity.js';
import { TaskEntity } from './entities/task.entity.js';
import { AssessmentEntity } from './entities/assessment.entity.js';
import { AssessmentRatingEntity } from './entities/assessment-rating.entity.js';
import { IdempotencyKeyEntity, IdempotencyKeyMysqlEntity } from './entities/idempotency-key.entity.js';
import { MetricEntity } from './entities/metric.entity.js';
import { MetricValueEntity } from './entities/metric-value.entity.js';
import { ArchiveEntity } from './entities/archive.entity.js';
import { PermissionEntity } from './entities/permission.entity.js';
import { SecurityGroupEntity, SecurityGroupMemberEntity } from './entities/security-group.entity.js';
import { DashboardSettingsEntity } from './entities/dashboard-settings.entity.js';
import { WebhookEntity } from './entities/webhook.entity.js';
import { WebhookDeliveryEntity, WebhookDeliveryMysqlEntity } from './entities/webhook-delivery.entity.js';
import { HistoryEvents1732000001900 } from './migrations/1732000001900-history-events.js';
import { ApiTokenEntity } from './entities/api-token.entity.js';
import { IdentityProviderEntity } from './entities/identity-provider.entity.js';
import { Foundation1732000000000 } from './migrations/1732000000000-foundation.js';
import { Comments1732000000100 } from './migrations/1732000000100-comments.js';
import { ListItemsProjects1732000000400 } from './migrations/1732000000400-list-items-projects.js';
import { GoalsColorsValuesCommitments1732000000500 } from './migrations/1732000000500-goals-colors-values-commitments.js';
import { RowVersionsForeignKeys1732000000600 } from './migrations/1732000000600-row-versions-foreign-keys.js';
import { LastCommentIndex1732000000700 } from './migrations/1732000000700-last-comment-index.js';
import { IdempotencyKeys1732000000900 } from './migrations/1732000000900-idempotency-keys.js';
import { DialogsRolesAssessments1732000001000 } from './migrations/1732000001000-dialogs-roles-assessments.js';
import { MetricsArchives1732000001100 } from './migrations/1732000001100-metrics-archives.js';
import { PermissionsSecurityGroups1732000001200 } from './migrations/1732000001200-permissions-security-groups.js';
import { DashboardSettings1732000001300 } from './migrations/1732000001300-dashboard-settings.js';
import { IndividualsCountIndex1732000001400 } from './migrations/1732000001400-individuals-count-index.js';
import { IndividualsLastComment1732000001500 } from './migrations/1732000001500-individuals-last-comment.js';
import { Utf8mb4UserNameKeys1732000001600 } from './migrations/1732000001600-utf8mb4-user-name-keys.js';
import { TokenGeneration1732000001700 } from './migrations/1732000001700-token-generation.js';
import { SiteLockSeq1732000001800 } from './migrations/1732000001800-site-lock-seq.js';
import { EnterpriseIdentity1732000002000 } from './migrations/1732000002000-enterprise-identity.js';
import { Scim1732000002100 } from './migrations/1732000002100-scim.js';
import { DashboardSummaries1732000002200 } from './migrations/1732000002200-dashboard-summaries.js';
import { CommentAuthorNames1732000002300 } from './migrations/1732000002300-comment-author-names.js';

/**
 * Every entity and migration, listed as classes (no globs: the same list works under jest,
 * the compiled build and the migration CLI). A new module adds its entities and migration here.
 */
export const ENTITIES = [
  SiteEntity,
  UserEntity,
  IndividualEntity,
  OrganizationEntity,
  OrganizationMemberEntity,
  PeriodEntity,
  CommentEntity,
  ListItemEntity,
  ProjectEntity,
  ProjectDueDateChangeEntity,
  GoalEntity,
  ColorEntity,
  CoreValueEntity,
  CommitmentEntity,
  BasicRoleEntity,
  DialogEntity,
  BasicRoleDialogEntity,
  TaskEntity,
  AssessmentEntity,
  AssessmentRatingEntity,
  MetricEntity,
  MetricValueEntity,
  ArchiveEntity,
  SecurityGroupEntity,
  SecurityGroupMemberEntity,
  PermissionEntity,
  DashboardSettingsEntity,
  WebhookEntity,
  ApiTokenEntity,
  IdentityProviderEntity,
];

/**
 * The entities of a dialect: ENTITIES plus the idempotency-key and webhook-delivery tables, whose
 * long column is `text` on SQLite and `longtext` on MySQL/MariaDB (see idempotency-key.entity.ts).
 */
export function entitiesFor(sqlite: boolean): Function[] {
  return [...ENTITIES, sqlite ? IdempotencyKeyEntity : IdempotencyKeyMysqlEntity, sqlite ? WebhookDeliveryEntity : WebhookDeliveryMysqlEntity];
}

export const MIGRATIONS = [
  Foundation1732000000000,
  Comments1732000000100,
  ListItemsProjects1732000000400,
  GoalsColorsValuesCommitments1732000000500,
  RowVersionsForeignKeys1732000000600,
  LastCommentIndex1732000000700,
  IdempotencyKeys1732000000900,
  DialogsRolesAssessments1732000001000,
  MetricsArchives1732000001100,
  PermissionsSecurityGroups1732000001200,
  DashboardSettings1732000001300,
  IndividualsCountIndex1732000001400,
  IndividualsLastComment1732000001500,
  Utf8mb4UserNameKeys1732000001600,
  TokenGeneration1732000001700,
  SiteLockSeq1732000001800,
  HistoryEvents1732000001900,
  EnterpriseIdentity1732000002000,
  Scim1732000002100,
  DashboardSummaries1732000002200,
  CommentAuthorNames1732000002300,
];
