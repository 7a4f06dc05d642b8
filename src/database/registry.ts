import { SiteEntity } from '../modules/sites/site.entity.js';
import { UserEntity } from '../modules/auth/user.entity.js';
import { IndividualEntity } from '../modules/individuals/individual.entity.js';
import { OrganizationEntity } from '../modules/organizations/organization.entity.js';
import { OrganizationMemberEntity } from '../modules/organizations/organization-member.entity.js';
import { PeriodEntity } from '../modules/periods/period.entity.js';
import { CommentEntity } from '../modules/comments/comment.entity.js';
import { Foundation1732000000000 } from './migrations/1732000000000-foundation.js';
import { Comments1732000000100 } from './migrations/1732000000100-comments.js';

/**
 * Every entity and migration, listed as classes (no globs: the same list works under ts-jest,
 * the compiled build and the migration CLI). A new module adds its entities and migration here.
 */
export const ENTITIES = [SiteEntity, UserEntity, IndividualEntity, OrganizationEntity, OrganizationMemberEntity, PeriodEntity, CommentEntity];

export const MIGRATIONS = [Foundation1732000000000, Comments1732000000100];
