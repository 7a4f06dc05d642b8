import { randomUUID } from 'node:crypto';
import type { DeepPartial, EntityTarget, ObjectLiteral } from 'typeorm';
import { RequestContext } from '../../src/common/context/request-context.js';
import type { TenantEntity } from '../../src/database/entities/base.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { AssessmentRatingEntity, type RatingItemKind } from '../../src/database/entities/assessment-rating.entity.js';
import { AssessmentEntity, type AssessmentKind } from '../../src/database/entities/assessment.entity.js';
import { BasicRoleDialogEntity } from '../../src/database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { CommitmentEntity, type CommitmentType } from '../../src/database/entities/commitment.entity.js';
import { DialogEntity, type RecordKind } from '../../src/database/entities/dialog.entity.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { MetricValueEntity } from '../../src/database/entities/metric-value.entity.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { ProjectDueDateChangeEntity } from '../../src/database/entities/project-due-date-change.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import type { TestApp } from '../e2e/harness.js';

/**
 * Records of the dashboards' sources written straight through TypeORM, with the instants the API
 * never lets a client choose (a task's or a due-date move's Created, a project's CompletedDate),
 * so the e2e tests can build data sets whose every figure is computed by hand.
 */
export class DashboardData {
  /**
   * `journaled`: written through the data layer instead (each record in a transaction of its own,
   * recorded in the change log the dashboard summaries are kept from), at the instant of the write:
   * a given `created` is not kept.
   */
  constructor(
    private readonly t: TestApp,
    private readonly siteId: string,
    private readonly journaled = false,
  ) {}

  private async row<T extends ObjectLiteral>(entity: EntityTarget<T>, values: Record<string, unknown>, guid = true): Promise<T> {
    if (this.journaled) {
      const repo = this.t.app.get(TenantDb).repo(RequestContext.system(this.siteId), entity as EntityTarget<TenantEntity & T>);
      return (await repo.insert(values as DeepPartial<TenantEntity & T>)) as T;
    }
    const created = (values.created as Date | undefined) ?? new Date();
    const full = {
      ...(guid ? { id: randomUUID() } : {}),
      siteId: this.siteId,
      created,
      updated: created,
      createdBy: null,
      updatedBy: null,
      version: 1,
      ...values,
    };
    const res = await this.t.ds.getRepository(entity).insert(full as never);
    const id = (full as { id?: unknown }).id ?? res.identifiers[0]?.id;
    return { ...full, id } as unknown as T;
  }

  commitment(type: CommitmentType, ancestorId: string, periodId: number, completed = false): Promise<CommitmentEntity> {
    return this.row(
      CommitmentEntity,
      { type, ancestorId, periodId, name: `${type} commitment`, completed, completedDate: completed ? new Date() : null, rank: 0 },
      false,
    );
  }

  goal(individualId: string, periodId: number, completed = false): Promise<GoalEntity> {
    return this.row(GoalEntity, { individualId, periodId, name: 'Goal', completed }, false);
  }

  async metric(
    kind: 'individual' | 'project',
    ancestorId: string,
    opts: { target: number | null; higherIsBetter?: boolean; is8020?: boolean; deleted?: boolean; values?: [periodId: number, actual: number][] },
  ): Promise<MetricEntity> {
    const m = await this.row(MetricEntity, {
      kind,
      ancestorId,
      name: 'Metric',
      is8020: opts.is8020 ?? false,
      target: opts.target,
      higherIsBetter: opts.higherIsBetter ?? true,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
    });
    for (const [periodId, actual] of opts.values ?? []) await this.row(MetricValueEntity, { metricId: m.id, periodId, actual });
    return m;
  }

  project(
    ownerId: string,
    opts: { organizationId?: string | null; start?: Date | null; due?: Date | null; completed?: Date | null; deleted?: boolean } = {},
  ): Promise<ProjectEntity> {
    return this.row(ProjectEntity, {
      name: 'Project',
      ownerId,
      organizationId: opts.organizationId ?? null,
      startDate: opts.start ?? null,
      dueDate: opts.due ?? null,
      completedDate: opts.completed ?? null,
      dueDateChanges: 0,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
    });
  }

  dueDateChange(projectId: string, created: Date): Promise<ProjectDueDateChangeEntity> {
    return this.row(ProjectDueDateChangeEntity, { projectId, previousDueDate: null, newDueDate: null, created });
  }

  dialog(kind: RecordKind, ancestorId: string, leaderId: string, periodId: number, opts: { held?: boolean; deleted?: boolean } = {}): Promise<DialogEntity> {
    return this.row(DialogEntity, {
      kind,
      ancestorId,
      leaderId,
      periodId,
      scheduledDate: new Date('2025-06-01T10:00:00Z'),
      occurredDate: opts.held ? new Date('2025-06-02T10:00:00Z') : null,
      notes: null,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
    });
  }

  task(
    kind: RecordKind,
    ancestorId: string,
    assignedToId: string,
    created: Date,
    opts: { completed?: Date | null; due?: Date | null; deleted?: boolean } = {},
  ): Promise<TaskEntity> {
    return this.row(TaskEntity, {
      dialogId: null,
      kind,
      ancestorId,
      assignedToId,
      name: 'Follow up',
      dueDate: opts.due ?? null,
      completed: !!opts.completed,
      completedDate: opts.completed ?? null,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
      created,
    });
  }

  basicRole(individualId: string): Promise<BasicRoleEntity> {
    return this.row(BasicRoleEntity, { individualId, name: 'Role', description: null, rank: 0, dialogsPerPeriod: 1, deleted: false, deletedByRef: false });
  }

  roleRating(basicRoleId: string, dialogId: string, rating: number | null): Promise<BasicRoleDialogEntity> {
    return this.row(BasicRoleDialogEntity, { basicRoleId, dialogId, rating, comment: null });
  }

  /** An assessment with its ratings: [ItemKind, rating] each (item ids are made up: the dashboards do not read them). */
  async assessment(
    kind: AssessmentKind,
    subjectId: string,
    assessorId: string,
    periodId: number,
    ratings: [RatingItemKind, number][],
  ): Promise<AssessmentRatingEntity[]> {
    const a = await this.row(AssessmentEntity, { kind, subjectId, assessorId, periodId });
    const out: AssessmentRatingEntity[] = [];
    for (const [position, [itemKind, rating]] of ratings.entries()) {
      out.push(
        await this.row(AssessmentRatingEntity, { assessmentId: a.id, position, itemKind, itemId: itemKind === 'general' ? null : randomUUID(), rating }),
      );
    }
    return out;
  }
}
