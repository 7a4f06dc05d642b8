import { SiteEntity } from '../modules/sites/site.entity.js';
import { UserEntity } from '../modules/auth/user.entity.js';
import { IndividualEntity } from '../modules/individuals/individual.entity.js';
import { OrganizationEntity } from '../modules/organizations/organization.entity.js';
import { OrganizationMemberEntity } from '../modules/organizations/organization-member.entity.js';
import { PeriodEntity } from '../modules/periods/period.entity.js';
import { CommentEntity } from '../modules/comments/comment.entity.js';
import { ListItemEntity } from '../modules/list-items/list-item.entity.js';
import { ProjectEntity } from '../modules/projects/project.entity.js';
import { ProjectDueDateChangeEntity } from '../modules/projects/project-due-date-change.entity.js';
import { GoalEntity } from '../modules/goals/goal.entity.js';
import { ColorEntity } from '../modules/colors/color.entity.js';
import { CoreValueEntity } from '../modules/core-values/core-value.entity.js';
import { CommitmentEntity } from '../modules/commitments/commitment.entity.js';
import { Foundation1732000000000 } from './migrations/1732000000000-foundation.js';
import { Comments1732000000100 } from './migrations/1732000000100-comments.js';
import { ListItemsProjects1732000000400 } from './migrations/1732000000400-list-items-projects.js';
import { GoalsColorsValuesCommitments1732000000500 } from './migrations/1732000000500-goals-colors-values-commitments.js';
import { LastCommentIndex1732000000700 } from './migrations/1732000000700-last-comment-index.js';

/**
 * Every entity and migration, listed as classes (no globs: the same list works under ts-jest,
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
];

export const MIGRATIONS = [
  Foundation1732000000000,
  Comments1732000000100,
  ListItemsProjects1732000000400,
  GoalsColorsValuesCommitments1732000000500,
  LastCommentIndex1732000000700,
];
