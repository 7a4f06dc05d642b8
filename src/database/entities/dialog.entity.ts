import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, StrCol, TextCol, IntRef } from '../columns.js';
import { PeriodEntity } from './period.entity.js';

/** What a dialog or a follow-up task is about (lower-case singular words). */
export const RECORD_KINDS = ['organization', 'department', 'project', 'individual'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/**
 * A performance dialog of a period: about an organization, a department, a project or an
 * individual (Kind + AncestorID), led by an individual, scheduled, and held when OccurredDate is
 * set. Soft-deleted (its ratings and follow-ups refer to it).
 */
@Entity('dialogs')
@Index('ix_dialogs_site_leader', ['siteId', 'leaderId', 'periodId', 'scheduledDate'])
@Index('ix_dialogs_site_ancestor', ['siteId', 'kind', 'ancestorId', 'periodId'])
@Index('ix_dialogs_site_period', ['siteId', 'periodId', 'scheduledDate'])
@Index('ix_dialogs_site_period_scheduled', ['siteId', 'periodId', 'deleted', 'scheduledDate'])
@Index('ix_dialogs_site_period_occurred', ['siteId', 'periodId', 'deleted', 'occurredDate'])
export class DialogEntity extends GuidTenantEntity {
  @StrCol('kind', 20, { nullable: false })
  kind: RecordKind;

  @GuidCol('ancestor_id')
  ancestorId: string;

  @GuidCol('leader_id')
  leaderId: string;

  @IntRef(() => PeriodEntity, 'fk_dialogs_period', 'period_id')
  periodId: number;

  @DateCol('scheduled_date', { nullable: false })
  scheduledDate: Date;

  @DateCol('occurred_date')
  occurredDate: Date | null;

  @TextCol('notes')
  notes: string | null;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
