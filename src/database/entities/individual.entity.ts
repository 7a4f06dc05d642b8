import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A person of a site. Login data (UserName, password, UserEmail) live on the linked UserEntity. */
@Entity('individuals')
@Index('ix_individuals_site_name', ['siteId', 'deleted', 'lastName', 'firstName'])
@Index('ix_individuals_site_deleted', ['siteId', 'deleted'])
@Index('ix_individuals_site_reports_to', ['siteId', 'primaryReportsTo'])
@Index('ix_individuals_site_org', ['siteId', 'primaryOrganizationId'])
@Index('ux_individuals_user', ['userId'], { unique: true })
@Index('ux_individuals_site_external_id', ['siteId', 'externalId'], { unique: true })
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002610).
@Index('ix_individuals_site_first_name', ['siteId', 'deleted', 'firstName'])
@Index('ix_individuals_site_email', ['siteId', 'deleted', 'email'])
@Index('ix_individuals_site_hire_date', ['siteId', 'deleted', 'hireDate'])
@Index('ix_individuals_site_updated', ['siteId', 'deleted', 'updated'])
export class IndividualEntity extends GuidTenantEntity {
  @GuidCol('user_id', { nullable: true })
  userId: string | null;

  @BoolCol('is_admin', false)
  isAdmin: boolean;

  @StrCol('prefix', LIMITS.affix)
  prefix: string | null;

  @StrCol('suffix', LIMITS.affix)
  suffix: string | null;

  @StrCol('first_name', LIMITS.personName, { nullable: false })
  firstName: string;

  @StrCol('last_name', LIMITS.personName, { nullable: false })
  lastName: string;

  @StrCol('user_defined1', LIMITS.name)
  userDefined1: string | null;

  @StrCol('user_defined2', LIMITS.name)
  userDefined2: string | null;

  @StrCol('user_defined3', LIMITS.name)
  userDefined3: string | null;

  @StrCol('user_defined4', LIMITS.name)
  userDefined4: string | null;

  @StrCol('email', LIMITS.name)
  email: string | null;

  @GuidCol('primary_organization_id', { nullable: true })
  primaryOrganizationId: string | null;

  @StrCol('primary_title', LIMITS.name)
  primaryTitle: string | null;

  @GuidCol('primary_reports_to', { nullable: true })
  primaryReportsTo: string | null;

  @DateCol('hire_date')
  hireDate: Date | null;

  @BoolCol('send_eval_survey', false)
  sendEvalSurvey: boolean;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;

  /**
   * The newest live comment on this individual (Individual.LastComment*), kept by every write that
   * creates, deletes or restores one (refreshLastComments, docs/comments.md); never written from a body.
   */
  @GuidCol('last_comment_id', { nullable: true })
  lastCommentId: string | null;

  /** The HR system's key of the person (Individual.ExternalID, SCIM `externalId`; docs/bulk.md): unique per site. */
  @StrCol('external_id', LIMITS.name)
  externalId: string | null;
}
