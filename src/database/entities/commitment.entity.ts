import { Entity, Index } from 'typeorm';
import { IntTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, IntCol, StrCol, TextCol, IntRef } from '../columns.js';
import { PeriodEntity } from './period.entity.js';
import { LIMITS } from '../../common/limits.js';

/** The levels a commitment is made at (docs/goals-colors-values-commitments.md: lower-case singular words). */
export const COMMITMENT_TYPES = ['organization', 'department', 'individual'] as const;
export type CommitmentType = (typeof COMMITMENT_TYPES)[number];

/** A commitment of an organization, a department or an individual for a period. */
@Entity('commitments')
@Index('ix_commitments_site_ancestor', ['siteId', 'type', 'ancestorId', 'periodId', 'rank'])
@Index('ix_commitments_site_period', ['siteId', 'periodId', 'type'])
@Index('ix_commitments_site_ancestor_rank', ['siteId', 'type', 'ancestorId', 'periodId', 'rank', 'name'])
@Index('ix_commitments_site_ancestor_name', ['siteId', 'type', 'ancestorId', 'periodId', 'name'])
@Index('ix_commitments_site_ancestor_due', ['siteId', 'type', 'ancestorId', 'periodId', 'dueDate'])
@Index('ix_commitments_site_ancestor_completed', ['siteId', 'type', 'ancestorId', 'periodId', 'completed'])
export class CommitmentEntity extends IntTenantEntity {
  @StrCol('type', 20, { nullable: false })
  type: CommitmentType;

  @GuidCol('ancestor_id')
  ancestorId: string;

  @IntRef(() => PeriodEntity, 'fk_commitments_period', 'period_id')
  periodId: number;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @DateCol('due_date')
  dueDate: Date | null;

  @BoolCol('completed', false)
  completed: boolean;

  @DateCol('completed_date')
  completedDate: Date | null;

  @IntCol('rank', { default: 0 })
  rank: number;
}
