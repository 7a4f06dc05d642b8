import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { GuidCol, StrCol, IntRef } from '../columns.js';
import { PeriodEntity } from './period.entity.js';

/** leader: a leader rates someone below them; team: a team member rates their leader; self. */
export const ASSESSMENT_KINDS = ['leader', 'team', 'self'] as const;
export type AssessmentKind = (typeof ASSESSMENT_KINDS)[number];

/** An assessment of an individual (Subject) by an individual (Assessor) in a period. Hard-deleted. */
@Entity('assessments')
@Index('ix_assessments_site_subject', ['siteId', 'subjectId', 'periodId', 'created'])
@Index('ix_assessments_site_period', ['siteId', 'periodId', 'kind'])
@Index('ix_assessments_site_period_created', ['siteId', 'periodId', 'created'])
@Index('ix_assessments_site_assessor', ['siteId', 'assessorId'])
export class AssessmentEntity extends GuidTenantEntity {
  @StrCol('kind', 20, { nullable: false })
  kind: AssessmentKind;

  @GuidCol('subject_id')
  subjectId: string;

  @GuidCol('assessor_id')
  assessorId: string;

  @IntRef(() => PeriodEntity, 'fk_assessments_period', 'period_id')
  periodId: number;
}
