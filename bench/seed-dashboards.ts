/**
 * Seeds the dashboards benchmark's site through the service's entities (docs/performance.md):
 * one organization with 20 divisions of 10 departments each (200 departments, two levels deep),
 * `size` individuals spread over them (each department's first member heads it and reports to the
 * head of the company), and a period around today with a period's worth of records per person —
 * 3 goals, a commitment, 2 dialogs (one held, its 2 basic roles rated), a follow-up, 2 metrics
 * with values (one 80/20), a leader and a self assessment (6 ratings) — and per department 2
 * commitments, a dialog, a follow-up, 2 projects (each with a dialog, a metric and a due-date move).
 */
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { AssessmentRatingEntity } from '../src/database/entities/assessment-rating.entity.js';
import { AssessmentEntity } from '../src/database/entities/assessment.entity.js';
import { BasicRoleDialogEntity } from '../src/database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../src/database/entities/basic-role.entity.js';
import { CommitmentEntity } from '../src/database/entities/commitment.entity.js';
import { DialogEntity } from '../src/database/entities/dialog.entity.js';
import { GoalEntity } from '../src/database/entities/goal.entity.js';
import { IndividualEntity } from '../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../src/database/entities/organization-member.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../src/database/entities/organization.entity.js';
import { PeriodEntity } from '../src/database/entities/period.entity.js';
import { MetricValueEntity } from '../src/database/entities/metric-value.entity.js';
import { MetricEntity } from '../src/database/entities/metric.entity.js';
import { ProjectDueDateChangeEntity } from '../src/database/entities/project-due-date-change.entity.js';
import { ProjectEntity } from '../src/database/entities/project.entity.js';
import { SiteEntity } from '../src/database/entities/site.entity.js';
import { TaskEntity } from '../src/database/entities/task.entity.js';
import { insertChunked } from './seed.js';

const DAY = 24 * 3600 * 1000;

export interface DashboardSite {
  siteId: string;
  organizationId: string;
  departmentIds: string[];
  /** Every individual, in creation order (0 heads the company). */
  individualIds: string[];
  periodId: number;
  rows: number;
}

export async function seedDashboardSite(ds: DataSource, opts: { size: number; divisions: number; perDivision: number }): Promise<DashboardSite> {
  const now = Date.now();
  const siteId = randomUUID();
  const stamp = { siteId, created: new Date(now - DAY), updated: new Date(now - DAY), createdBy: null, updatedBy: null, version: 1 };
  let rows = 0;
  const put = async <T extends ObjectLiteral>(entity: EntityTarget<T>, list: Record<string, unknown>[], guid = true) => {
    rows += list.length;
    await insertChunked(ds, entity, list.map((r) => ({ ...(guid ? { id: randomUUID() } : {}), ...stamp, ...r })) as unknown as T[]);
  };
  await ds
    .getRepository(SiteEntity)
    .insert({ id: siteId, name: 'Bench dashboards', performanceManagement: true, created: new Date(now), updated: new Date(now) });
  const period = await ds
    .getRepository(PeriodEntity)
    .save({ ...stamp, name: 'Current', startDate: new Date(now - 100 * DAY), endDate: new Date(now + 265 * DAY), closed: false });
  const P = period.id;
  const inPeriod = (k: number) => new Date(now - ((k % 90) + 1) * DAY);

  const organizationId = randomUUID();
  const units: Record<string, unknown>[] = [{ id: organizationId, name: 'Bench Organization', rowType: ROW_TYPE_ORGANIZATION, parentId: null }];
  const departmentIds: string[] = [];
  for (let d = 0; d < opts.divisions; d++) {
    const division = randomUUID();
    departmentIds.push(division);
    units.push({ id: division, name: `Division ${d}`, rowType: ROW_TYPE_DEPARTMENT, parentId: organizationId });
    for (let k = 0; k < opts.perDivision - 1; k++) {
      const id = randomUUID();
      departmentIds.push(id);
      units.push({ id, name: `Department ${d}.${k}`, rowType: ROW_TYPE_DEPARTMENT, parentId: division });
    }
  }
  await put(
    OrganizationEntity,
    units.map((u) => ({ description: null, managerId: null, rank: 0, deleted: false, deletedByRef: false, ...u })),
    false,
  );

  const ids = Array.from({ length: opts.size }, () => randomUUID());
  const unitOf = (k: number) => departmentIds[k % departmentIds.length];
  /** The head of k's department: the department's first member. */
  const headOf = (k: number) => ids[k % departmentIds.length];
  await put(
    IndividualEntity,
    ids.map((id, k) => ({
      id,
      userId: null,
      isAdmin: false,
      prefix: null,
      suffix: null,
      firstName: `First${k}`,
      lastName: `Last${String(k).padStart(5, '0')}`,
      userDefined1: null,
      userDefined2: null,
      userDefined3: null,
      userDefined4: null,
      email: null,
      primaryOrganizationId: unitOf(k),
      primaryTitle: 'Engineer',
      primaryReportsTo: k === 0 ? null : k < departmentIds.length ? ids[0] : headOf(k),
      hireDate: null,
      sendEvalSurvey: false,
      deleted: false,
      deletedByRef: false,
    })),
    false,
  );
  await put(
    OrganizationMemberEntity,
    ids.map((id, k) => ({ individualId: id, organizationId: unitOf(k), title: 'Engineer', deletedByRef: false })),
  );

  // Per person.
  await put(
    GoalEntity,
    ids.flatMap((id, k) => [0, 1, 2].map((g) => ({ individualId: id, periodId: P, name: `Goal ${g}`, completed: (k + g) % 3 === 0 }))),
    false,
  );
  await put(
    CommitmentEntity,
    [
      ...ids.map((id, k) => ({ type: 'individual', ancestorId: id, completed: k % 2 === 0 })),
      ...departmentIds.flatMap((id, k) => [0, 1].map((c) => ({ type: 'department', ancestorId: id, completed: (k + c) % 3 !== 0 }))),
      ...[0, 1, 2].map((c) => ({ type: 'organization', ancestorId: organizationId, completed: c !== 2 })),
    ].map((c) => ({
      ...c,
      periodId: P,
      name: 'Commitment',
      description: null,
      dueDate: null,
      completedDate: c.completed ? new Date(now - DAY) : null,
      rank: 0,
    })),
    false,
  );
  const dialogBase = { periodId: P, notes: null, deleted: false, deletedByRef: false };
  const personDialogs = ids.flatMap((id, k) => [
    { id: randomUUID(), kind: 'individual', ancestorId: id, leaderId: headOf(k), scheduledDate: inPeriod(k), occurredDate: inPeriod(k + 1), ...dialogBase },
    { id: randomUUID(), kind: 'individual', ancestorId: id, leaderId: headOf(k), scheduledDate: new Date(now + 30 * DAY), occurredDate: null, ...dialogBase },
  ]);
  // Per department and for the organization.
  const projects = departmentIds.flatMap((unit, k) =>
    [0, 1].map((p) => ({
      id: randomUUID(),
      name: `Project ${k}.${p}`,
      description: null,
      ownerId: ids[k],
      organizationId: unit,
      startDate: new Date(now - 50 * DAY),
      dueDate: new Date(now + (p === 0 ? 30 : -5) * DAY),
      completedDate: p === 1 && k % 2 === 0 ? new Date(now - 10 * DAY) : null,
      dueDateChanges: 1,
      deleted: false,
      deletedByRef: false,
    })),
  );
  await put(ProjectEntity, projects, false);
  await put(
    ProjectDueDateChangeEntity,
    projects.map((p) => ({ projectId: p.id, previousDueDate: null, newDueDate: p.dueDate, created: new Date(now - 20 * DAY) })),
  );
  await put(DialogEntity, [
    ...personDialogs,
    ...departmentIds.map((id, k) => ({
      kind: 'department',
      ancestorId: id,
      leaderId: ids[k],
      scheduledDate: inPeriod(k),
      occurredDate: k % 3 ? inPeriod(k) : null,
      ...dialogBase,
    })),
    ...projects.map((p, k) => ({
      kind: 'project',
      ancestorId: p.id,
      leaderId: p.ownerId,
      scheduledDate: inPeriod(k),
      occurredDate: inPeriod(k),
      ...dialogBase,
    })),
    { kind: 'organization', ancestorId: organizationId, leaderId: ids[0], scheduledDate: inPeriod(1), occurredDate: inPeriod(1), ...dialogBase },
  ]);
  const roles = ids.flatMap((id) =>
    [0, 1].map((r) => ({
      id: randomUUID(),
      individualId: id,
      name: `Role ${r}`,
      description: null,
      rank: r,
      dialogsPerPeriod: 1,
      deleted: false,
      deletedByRef: false,
    })),
  );
  await put(BasicRoleEntity, roles, false);
  await put(
    BasicRoleDialogEntity,
    roles.map((r, j) => ({ basicRoleId: r.id, dialogId: personDialogs[Math.floor(j / 2) * 2].id, rating: 1 + (j % 5), comment: null })),
  );
  const metrics = ids.flatMap((id, k) =>
    [0, 1].map((m) => ({
      id: randomUUID(),
      kind: 'individual',
      ancestorId: id,
      name: `Metric ${m}`,
      is8020: m === 0,
      target: 100,
      higherIsBetter: (k + m) % 4 !== 0,
      deleted: false,
      deletedByRef: false,
    })),
  );
  const taskBase = { dialogId: null, name: 'Follow up', dueDate: null, deleted: false, deletedByRef: false };
  await put(
    TaskEntity,
    ids.map((id, k) => ({
      kind: 'individual',
      ancestorId: id,
      assignedToId: id,
      completed: k % 2 === 0,
      completedDate: k % 2 === 0 ? new Date(now - DAY) : null,
      ...taskBase,
    })),
  );
  const assessments = ids.flatMap((id, k) => [
    { id: randomUUID(), kind: 'leader', subjectId: id, assessorId: headOf(k), periodId: P },
    { id: randomUUID(), kind: 'self', subjectId: id, assessorId: id, periodId: P },
  ]);
  await put(AssessmentEntity, assessments, false);
  await put(
    AssessmentRatingEntity,
    assessments.flatMap((a, j) =>
      (a.kind === 'leader' ? ['evaluationcriteria', 'evaluationcriteria', 'corevalue', 'general'] : ['evaluationcriteria', 'corevalue']).map(
        (itemKind, position) => ({
          assessmentId: a.id,
          position,
          itemKind,
          itemId: itemKind === 'general' ? null : randomUUID(),
          rating: 1 + ((j + position) % 5),
        }),
      ),
    ),
  );

  for (const p of projects)
    metrics.push({
      id: randomUUID(),
      kind: 'project',
      ancestorId: p.id,
      name: 'Velocity',
      is8020: false,
      target: 100,
      higherIsBetter: true,
      deleted: false,
      deletedByRef: false,
    });
  await put(MetricEntity, metrics, false);
  await put(
    MetricValueEntity,
    metrics.map((m, j) => ({ metricId: m.id, periodId: P, actual: 40 + ((j * 7) % 90) })),
  );
  await put(TaskEntity, [
    ...departmentIds.map((id, k) => ({
      kind: 'department',
      ancestorId: id,
      assignedToId: ids[k],
      completed: true,
      completedDate: new Date(now - DAY),
      ...taskBase,
    })),
    ...projects.map((p) => ({ kind: 'project', ancestorId: p.id, assignedToId: p.ownerId, completed: false, completedDate: null, ...taskBase })),
  ]);
  return { siteId, organizationId, departmentIds, individualIds: ids, periodId: P, rows };
}
