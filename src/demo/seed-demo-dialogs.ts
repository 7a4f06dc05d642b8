import { In } from 'typeorm';
import { AssessmentRatingEntity, type RatingItemKind } from '../database/entities/assessment-rating.entity.js';
import { AssessmentEntity, type AssessmentKind } from '../database/entities/assessment.entity.js';
import { BasicRoleDialogEntity } from '../database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../database/entities/basic-role.entity.js';
import { writeComment } from '../database/queries/comment-authors.js';
import { CoreValueEntity } from '../database/entities/core-value.entity.js';
import { DialogEntity, type RecordKind } from '../database/entities/dialog.entity.js';
import { IndividualEntity } from '../database/entities/individual.entity.js';
import { ListItemEntity } from '../database/entities/list-item.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../database/entities/organization.entity.js';
import { PeriodEntity } from '../database/entities/period.entity.js';
import { ProjectEntity } from '../database/entities/project.entity.js';
import { TaskEntity } from '../database/entities/task.entity.js';
import type { TenantTx } from '../database/tenant-db.js';

/**
 * The demo site's records of a period (`npm run seed:demo`, called from seed-demo.ts): basic roles
 * of every individual; one-on-one dialogs each quarter led by the manager, department, project and
 * organization dialogs — held in the past, pending in the future, a few missed — with the basic
 * roles rated in the one-on-ones; follow-up tasks, most of the past ones done; self, leader and
 * team assessments over FY 2025 (complete) and FY 2026 (in progress). Reads what the main seed
 * wrote (people in employee-number order, periods, core values, evaluation criteria, units,
 * projects) and is deterministic.
 */

const DAY = 24 * 3600 * 1000;

/** A small deterministic PRNG, independent of the main seed's sequence. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

/** Basic roles by the kind of work (first match on the title wins). */
const ROLES: [RegExp, [string, string, number][]][] = [
  [
    /Chief|VP|Head|Director|Manager,/,
    [
      ['People leader', 'Regular one-on-ones, growth plans and reviews for the team', 4],
      ['Hiring manager', 'Owns open positions, interviews and onboarding', 1],
      ['Budget owner', 'Plans and tracks the unit’s budget', 2],
    ],
  ],
  [
    /Site Reliability|Platform/,
    [
      ['On-call responder', 'Takes part in the incident rotation and writes postmortems', 2],
      ['Code reviewer', 'Reviews infrastructure changes within a day', 1],
    ],
  ],
  [
    /Software/,
    [
      ['Code reviewer', 'Reviews the team’s pull requests within a day', 1],
      ['Feature owner', 'Drives one feature from design to release', 2],
    ],
  ],
  [
    /Account Executive/,
    [
      ['Account planner', 'Keeps account plans of the top accounts current', 2],
      ['Forecast owner', 'Commits the quarterly forecast and keeps the pipeline clean', 4],
    ],
  ],
  [
    /Customer Success/,
    [
      ['Customer advocate', 'Brings customer feedback to product and engineering', 1],
      ['Renewal owner', 'Prepares renewals 90 days ahead', 2],
    ],
  ],
  [/HR/, [['HR partner', 'First contact for the managers of two departments', 2]]],
  [/Financial/, [['Monthly close', 'Reconciles accounts for the monthly close', 4]]],
];
const MENTOR: [string, string, number] = ['Mentor', 'Mentors a junior colleague', 1];

const QUARTER_DAYS: [number, number][] = [
  [2, 14],
  [5, 13],
  [8, 15],
  [11, 9],
];

const DIALOG_NOTES = [
  'Reviewed goals and priorities for the quarter.',
  'Discussed workload and the next training.',
  'Went through feedback from peers; agreed on two focus areas.',
  'Talked about career path and the next step.',
];
const FOLLOW_UPS = [
  'Share the updated development plan',
  'Book the training course',
  'Prepare the project retrospective',
  'Update the goal measures',
  'Pair with a senior colleague on the next release',
];
const ROLE_COMMENTS = ['Consistently strong', 'Good progress since last quarter', 'Needs more time for this', 'Exceeds expectations', null, null];

export async function seedDialogsRolesAssessments(tx: TenantTx): Promise<Record<string, number>> {
  const random = rng(9001);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const rating = (low = 3) => low + Math.floor(random() * (6 - low));
  const now = Date.now();

  const people = (await tx.repo(IndividualEntity).find({ where: { deleted: false } })).sort((a, b) =>
    (a.userDefined1 ?? '').localeCompare(b.userDefined1 ?? ''),
  );
  const periods = await tx.repo(PeriodEntity).find({ order: { startDate: 'ASC' } });
  const years = periods.filter((p) => p.name === 'FY 2025' || p.name === 'FY 2026');
  if (people.length === 0 || years.length === 0) return {};
  const coreValues = await tx.repo(CoreValueEntity).find({ where: { deleted: false }, order: { rank: 'ASC' } });
  const criteria = await tx.repo(ListItemEntity).find({ where: { kind: 'evaluationcriteria', deleted: false }, order: { rank: 'ASC' } });
  const units = await tx.repo(OrganizationEntity).find({ where: { rowType: In([ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT]), deleted: false } });
  const projects = await tx.repo(ProjectEntity).find({ where: { deleted: false }, order: { name: 'ASC' } });
  const head = people.find((p) => !p.primaryReportsTo) ?? people[0];
  const reportsOf = (id: string) => people.filter((p) => p.primaryReportsTo === id);
  const counts = { basicRoles: 0, dialogs: 0, dialogsHeld: 0, basicRoleDialogs: 0, tasks: 0, tasksCompleted: 0, assessments: 0, recordComments: 0 };

  // Basic roles.
  const rolesOf = new Map<string, BasicRoleEntity[]>();
  for (const person of people) {
    const title = person.primaryTitle ?? '';
    const kinds = [...(ROLES.find(([re]) => re.test(title))?.[1] ?? [['Team contributor', 'Contributes to the team’s plan', 1] as [string, string, number]])];
    if (/Senior/.test(title)) kinds.push(MENTOR);
    const roles: BasicRoleEntity[] = [];
    for (const [rank, [name, description, dialogsPerPeriod]] of kinds.entries()) {
      roles.push(await tx.repo(BasicRoleEntity).insert({ individualId: person.id, name, description, rank, dialogsPerPeriod }));
      counts.basicRoles++;
    }
    rolesOf.set(person.id, roles);
  }

  const dialog = async (kind: RecordKind, ancestorId: string, leaderId: string, period: PeriodEntity, scheduled: Date, missed = false) => {
    const held = scheduled.getTime() < now && !missed;
    const row = await tx.repo(DialogEntity).insert({
      kind,
      ancestorId,
      leaderId,
      periodId: period.id,
      scheduledDate: scheduled,
      occurredDate: held ? new Date(scheduled.getTime() + Math.floor(random() * 3) * DAY + 3600_000) : null,
      notes: held ? pick(DIALOG_NOTES) : null,
    });
    counts.dialogs++;
    if (held) counts.dialogsHeld++;
    return row;
  };
  const followUp = async (d: DialogEntity, assignedToId: string) => {
    const due = new Date(d.occurredDate!.getTime() + (21 + Math.floor(random() * 30)) * DAY);
    const completed = due.getTime() < now ? random() < 0.8 : random() < 0.25;
    await tx.repo(TaskEntity).insert({
      dialogId: d.id,
      kind: d.kind,
      ancestorId: d.ancestorId,
      assignedToId,
      name: pick(FOLLOW_UPS),
      dueDate: due,
      completed,
      completedDate: completed ? new Date(Math.min(now, due.getTime() - Math.floor(random() * 10) * DAY)) : null,
    });
    counts.tasks++;
    if (completed) counts.tasksCompleted++;
  };

  for (const period of years) {
    const year = period.startDate.getUTCFullYear();
    for (const [q, [month, day]] of QUARTER_DAYS.entries()) {
      // One-on-ones: every individual with a manager, led by the manager; roles rated when held.
      for (const person of people) {
        if (!person.primaryReportsTo) continue;
        const scheduled = new Date(Date.UTC(year, month, day + (people.indexOf(person) % 10), 9 + (q % 3)));
        const d = await dialog('individual', person.id, person.primaryReportsTo, period, scheduled, random() < 0.06);
        if (!d.occurredDate) continue;
        for (const role of rolesOf.get(person.id) ?? []) {
          await tx.repo(BasicRoleDialogEntity).insert({ basicRoleId: role.id, dialogId: d.id, rating: rating(2), comment: pick(ROLE_COMMENTS) });
          counts.basicRoleDialogs++;
        }
        if (random() < 0.4) await followUp(d, person.id);
      }
      // Department dialogs with their managers; the organization's twice a year; projects in 2026.
      for (const unit of units) {
        const organization = unit.rowType === ROW_TYPE_ORGANIZATION;
        // An organization without a manager of its own is led by the head of the company.
        const leaderId = unit.managerId ?? (organization ? head.id : null);
        if (!leaderId || (organization && q % 2 === 0)) continue;
        const d = await dialog(organization ? 'organization' : 'department', unit.id, leaderId, period, new Date(Date.UTC(year, month, day + 5, 14)));
        if (d.occurredDate && random() < 0.5) await followUp(d, leaderId);
      }
      if (year === 2026 && q > 0) {
        for (const project of projects) {
          const d = await dialog('project', project.id, project.ownerId, period, new Date(Date.UTC(year, month, day + 7, 11)));
          if (d.occurredDate) await followUp(d, project.ownerId);
        }
      }
    }

    // Assessments: complete for a closed year, about two thirds done for the open one.
    const share = period.closed ? 1 : 0.65;
    const assess = async (kind: AssessmentKind, subject: IndividualEntity, assessorId: string, items: [RatingItemKind, string | null][]) => {
      const a = await tx.repo(AssessmentEntity).insert({ kind, subjectId: subject.id, assessorId, periodId: period.id });
      for (const [position, [itemKind, itemId]] of items.entries()) {
        await tx.repo(AssessmentRatingEntity).insert({ assessmentId: a.id, position, itemKind, itemId, rating: rating(kind === 'self' ? 3 : 2) });
      }
      counts.assessments++;
    };
    for (const person of people) {
      if (random() > share) continue;
      const items: [RatingItemKind, string | null][] = [
        ...criteria.filter((c) => c.ancestorId === person.id).map((c): [RatingItemKind, string] => ['evaluationcriteria', c.id]),
        ...coreValues.map((v): [RatingItemKind, string] => ['corevalue', v.id]),
        ...(rolesOf.get(person.id) ?? []).map((r): [RatingItemKind, string] => ['basicrole', r.id]),
        ['general', null],
      ];
      await assess('self', person, person.id, items);
      if (person.primaryReportsTo) await assess('leader', person, person.primaryReportsTo, items);
      // Two of the team rate each leader.
      for (const member of reportsOf(person.id).slice(0, 2)) {
        await assess('team', person, member.id, [...coreValues.map((v): [RatingItemKind, string] => ['corevalue', v.id]), ['general', null]]);
      }
    }
  }

  // A few conversations on the latest dialogs and tasks.
  const recentDialogs = await tx.repo(DialogEntity).find({ where: { kind: 'individual' }, order: { occurredDate: 'DESC' }, take: 6 });
  for (const d of recentDialogs) {
    if (!d.occurredDate) continue;
    await writeComment(tx, {
      ancestorType: 'dialogs',
      ancestorId: d.id,
      authorId: d.leaderId,
      body: 'Thanks for the open conversation. Notes are in the dialog.',
    });
    counts.recordComments++;
  }
  const openTasks = await tx.repo(TaskEntity).find({ where: { completed: false }, order: { dueDate: 'ASC' }, take: 4 });
  for (const task of openTasks) {
    await writeComment(tx, {
      ancestorType: 'tasks',
      ancestorId: task.id,
      authorId: task.assignedToId,
      body: 'Started on this; will update by the end of the week.',
    });
    counts.recordComments++;
  }
  return counts;
}
