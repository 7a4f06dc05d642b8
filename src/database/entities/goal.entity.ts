import { Entity, Index } from 'typeorm';
import { IntTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, GuidCol, StrCol, TextCol, IntRef } from '../columns.js';
import { PeriodEntity } from './period.entity.js';
import { LIMITS } from '../../common/limits.js';

/** A personal goal of an individual in a period, with up to five measures (objectives). */
@Entity('goals')
@Index('ix_goals_site_individual_period', ['siteId', 'individualId', 'periodId', 'dueDate'])
@Index('ix_goals_site_period', ['siteId', 'periodId'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
@Index('ix_goals_site_individual_name', ['siteId', 'individualId', 'periodId', 'name'])
@Index('ix_goals_site_individual_completed', ['siteId', 'individualId', 'periodId', 'completed', 'dueDate'])
export class GoalEntity extends IntTenantEntity {
  @GuidCol('individual_id')
  individualId: string;

  @IntRef(() => PeriodEntity, 'fk_goals_period', 'period_id')
  periodId: number;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @BoolCol('completed', false)
  completed: boolean;

  @TextCol('comment')
  comment: string | null;

  @TextCol('why')
  why: string | null;

  @DateCol('due_date')
  dueDate: Date | null;

  @TextCol('measure1')
  measure1: string | null;
  @BoolCol('measure1_completed', false)
  measure1Completed: boolean;
  @DateCol('measure1_start_date')
  measure1StartDate: Date | null;
  @DateCol('measure1_end_date')
  measure1EndDate: Date | null;

  @TextCol('measure2')
  measure2: string | null;
  @BoolCol('measure2_completed', false)
  measure2Completed: boolean;
  @DateCol('measure2_start_date')
  measure2StartDate: Date | null;
  @DateCol('measure2_end_date')
  measure2EndDate: Date | null;

  @TextCol('measure3')
  measure3: string | null;
  @BoolCol('measure3_completed', false)
  measure3Completed: boolean;
  @DateCol('measure3_start_date')
  measure3StartDate: Date | null;
  @DateCol('measure3_end_date')
  measure3EndDate: Date | null;

  @TextCol('measure4')
  measure4: string | null;
  @BoolCol('measure4_completed', false)
  measure4Completed: boolean;
  @DateCol('measure4_start_date')
  measure4StartDate: Date | null;
  @DateCol('measure4_end_date')
  measure4EndDate: Date | null;

  @TextCol('measure5')
  measure5: string | null;
  @BoolCol('measure5_completed', false)
  measure5Completed: boolean;
  @DateCol('measure5_start_date')
  measure5StartDate: Date | null;
  @DateCol('measure5_end_date')
  measure5EndDate: Date | null;
}
