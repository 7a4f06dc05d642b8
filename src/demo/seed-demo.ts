import { userNameKey } from '../auth/user-name.js';
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../auth/password.js';
import { RequestContext } from '../common/context/request-context.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { loadConfigOrExit } from '../config/config.js';
import { UserEntity } from '../database/entities/user.entity.js';
import { writeComment } from '../database/queries/comment-authors.js';
import { refreshLastComments } from '../database/queries/last-comment.js';
import { accounts } from '../database/queries/accounts.js';
import { runMigrationsLocked } from '../database/migration-lock.js';
import { CommitmentEntity } from '../database/entities/commitment.entity.js';
import { CoreValueEntity } from '../database/entities/core-value.entity.js';
import { GoalEntity } from '../database/entities/goal.entity.js';
import { IndividualEntity } from '../database/entities/individual.entity.js';
import { ListItemEntity } from '../database/entities/list-item.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../database/entities/organization-member.entity.js';
import { PeriodEntity } from '../database/entities/period.entity.js';
import { ProjectEntity } from '../database/entities/project.entity.js';
import { SiteEntity } from '../database/entities/site.entity.js';
import { createDataSource } from '../database/data-source.js';
import { seedDemoMetrics } from './seed-demo-metrics.js';
import { seedDialogsRolesAssessments } from './seed-demo-dialogs.js';
import { TenantDb, TenantTx } from '../database/tenant-db.js';

/**
 * `npm run seed:demo`: a demo site to explore right away — an organization tree, 50 individuals
 * in a reporting hierarchy with login accounts, periods, goals, accountabilities, evaluation
 * criteria, projects, core values, commitments and comments. Idempotent: the demo site has a fixed
 * id and is created once, in one transaction; running again reports it and changes nothing.
 */
export const DEMO_SITE_ID = 'de300000-0000-4000-8000-000000000001';

/** A small deterministic PRNG so every demo site looks the same. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const UNITS: { key: string; name: string; parent: string | null; description: string }[] = [
  { key: 'corp', name: 'Globex Corporation', parent: null, description: 'Head organization' },
  { key: 'exec', name: 'Executive Office', parent: 'corp', description: 'Leadership team' },
  { key: 'eng', name: 'Engineering', parent: 'corp', description: 'Builds and runs the product' },
  { key: 'platform', name: 'Platform Engineering', parent: 'eng', description: 'Infrastructure, reliability, developer tooling' },
  { key: 'product', name: 'Product Engineering', parent: 'eng', description: 'Customer-facing features' },
  { key: 'sales', name: 'Sales', parent: 'corp', description: 'New business' },
  { key: 'emea', name: 'EMEA Sales', parent: 'sales', description: 'Europe, Middle East and Africa' },
  { key: 'amer', name: 'Americas Sales', parent: 'sales', description: 'North and South America' },
  { key: 'cs', name: 'Customer Success', parent: 'corp', description: 'Onboarding, support and renewals' },
  { key: 'hr', name: 'Human Resources', parent: 'corp', description: 'People operations' },
  { key: 'fin', name: 'Finance', parent: 'corp', description: 'Accounting, planning and procurement' },
];

const FIRST = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Ava',
  'Mateo',
  'Sofia',
  'Lucas',
  'Mia',
  'Elias',
  'Amelia',
  'Hugo',
  'Chloe',
  'Arjun',
  'Yuki',
  'Fatima',
  'Jonas',
  'Ines',
  'Kwame',
  'Lena',
  'Omar',
  'Priya',
  'Rafael',
  'Sara',
  'Tomás',
];
const LAST = [
  'Schmidt',
  'García',
  'Okafor',
  'Nguyen',
  'Rossi',
  'Johansson',
  'Müller',
  'Kowalski',
  'Tanaka',
  'Dubois',
  'Haddad',
  'Patel',
  'O’Brien',
  'Silva',
  'Novak',
  'Larsen',
  'Costa',
  'Ibrahim',
  'Fischer',
  'Moreau',
];

/** Who works where: [unit, title, reports to (index into this list) or null]. */
const PEOPLE: [string, string, number | null][] = [
  ['exec', 'Chief Executive Officer', null],
  ['exec', 'Chief Operating Officer', 0],
  ['eng', 'VP Engineering', 0],
  ['sales', 'VP Sales', 0],
  ['cs', 'Head of Customer Success', 1],
  ['hr', 'Head of People', 1],
  ['fin', 'Chief Financial Officer', 0],
  ['platform', 'Engineering Manager, Platform', 2],
  ['product', 'Engineering Manager, Product', 2],
  ['emea', 'Sales Director EMEA', 3],
  ['amer', 'Sales Director Americas', 3],
];
for (let i = 0; i < 8; i++) PEOPLE.push(['platform', i < 2 ? 'Senior Site Reliability Engineer' : 'Platform Engineer', 7]);
for (let i = 0; i < 9; i++) PEOPLE.push(['product', i < 3 ? 'Senior Software Engineer' : 'Software Engineer', 8]);
for (let i = 0; i < 6; i++) PEOPLE.push(['emea', 'Account Executive', 9]);
for (let i = 0; i < 6; i++) PEOPLE.push(['amer', 'Account Executive', 10]);
for (let i = 0; i < 5; i++) PEOPLE.push(['cs', 'Customer Success Manager', 4]);
for (let i = 0; i < 3; i++) PEOPLE.push(['hr', 'HR Business Partner', 5]);
for (let i = 0; i < 2; i++) PEOPLE.push(['fin', 'Financial Analyst', 6]);

const CORE_VALUES = [
  ['Integrity', 'We do what we say, and say what we do.'],
  ['Customer focus', 'We start from the customer’s problem.'],
  ['Ownership', 'We finish what we start and fix what we break.'],
  ['Collaboration', 'We win as one team.'],
  ['Curiosity', 'We keep learning and question the obvious.'],
];

const ACCOUNTABILITIES: Record<string, string[]> = {
  exec: ['Company strategy', 'Board reporting', 'Leadership hiring'],
  eng: ['Delivery roadmap', 'Engineering hiring'],
  platform: ['Service availability', 'Incident response', 'Cloud cost'],
  product: ['Feature delivery', 'Code quality', 'Customer bug turnaround'],
  sales: ['Revenue target', 'Pipeline coverage'],
  emea: ['Quota attainment', 'Pipeline hygiene'],
  amer: ['Quota attainment', 'Pipeline hygiene'],
  cs: ['Onboarding', 'Renewals', 'Customer health'],
  hr: ['Recruiting', 'Performance cycle', 'Employee engagement'],
  fin: ['Monthly close', 'Budget planning'],
};

const GOALS = [
  ['Improve customer satisfaction', 'CSAT drives renewals', ['Run 10 customer interviews', 'Close top 5 pain points', 'Raise CSAT to 4.5', '', '']],
  ['Grow expertise', 'Stay effective as the product grows', ['Finish the architecture course', 'Mentor one new colleague', 'Present at a team meetup', '', '']],
  ['Deliver the yearly plan', 'Commitments to the company', ['Q1 milestones', 'Q2 milestones', 'Q3 milestones', 'Q4 milestones', '']],
] as const;

const COMMENTS = [
  'Great progress this quarter, keep it up.',
  'Let us review the goals in our next one-on-one.',
  'Strong feedback from the customer on the last delivery.',
  'Please update the measures before the review.',
  'Excellent collaboration with the sales team.',
];

async function seed(): Promise<void> {
  const config = loadConfigOrExit('pms-api seed:demo');
  const logger = new JsonLogger(config.logLevel === 'silent' ? 'silent' : 'info');
  const password = config.demoPassword;
  const ds = await createDataSource(config);
  await ds.initialize();
  try {
    await runMigrationsLocked(ds, logger, { timeoutMs: config.migrationLockTimeoutMs });
    const db = new TenantDb(ds);
    if (await db.global(null, SiteEntity).existsBy({ id: DEMO_SITE_ID })) {
      logger.event('info', 'SeedDemo', { msg: `The demo site already exists (${DEMO_SITE_ID}); nothing to do.` });
      return;
    }
    const passwordHash = await hashPassword(password, config.passwordScryptCost);
    const ctx = RequestContext.system(DEMO_SITE_ID);
    const counts = await db.transaction(ctx, (tx) => build(tx, passwordHash));
    logger.event('info', 'SeedDemo', {
      msg: `Created the demo site "Globex (demo)" (${DEMO_SITE_ID}). Log in as olivia.schmidt (site administrator, CEO) or any demo user with the password "${password}".`,
      ...counts,
    });
  } finally {
    await ds.destroy();
  }
}

async function build(tx: TenantTx, passwordHash: string): Promise<Record<string, number>> {
  const random = rng(2026);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const now = new Date();
  await tx.db
    .journaled(tx.ctx, SiteEntity, (s) => s.id)
    .insert({
      version: 1,
      id: DEMO_SITE_ID,
      name: 'Globex (demo)',
      performanceManagement: true,
      created: now,
      updated: now,
      createdBy: null,
      updatedBy: null,
    });

  const unitIds = new Map<string, string>();
  for (const [rank, u] of UNITS.entries()) {
    const row = await tx.repo(OrganizationEntity).insert({
      name: u.name,
      description: u.description,
      parentId: u.parent ? unitIds.get(u.parent)! : null,
      rowType: u.parent ? ROW_TYPE_DEPARTMENT : ROW_TYPE_ORGANIZATION,
      rank,
    });
    unitIds.set(u.key, row.id);
  }

  const people: IndividualEntity[] = [];
  const usedNames = new Set<string>();
  for (const [i, [unit, title, reportsTo]] of PEOPLE.entries()) {
    let first = FIRST[i % FIRST.length];
    let last = LAST[(i * 7) % LAST.length];
    while (usedNames.has(`${first} ${last}`)) {
      first = pick(FIRST);
      last = pick(LAST);
    }
    usedNames.add(`${first} ${last}`);
    const userName = `${first}.${last}`
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z.]/g, '');
    const email = `${userName}@globex.example`;
    const user = { id: randomUUID() } as UserEntity;
    await accounts(tx.db, tx.ctx).insert({
      id: user.id,
      siteId: DEMO_SITE_ID,
      userName,
      userNameKey: userNameKey(userName),
      email,
      passwordHash,
      isGlobalAdmin: false,
      created: now,
      updated: now,
    });
    const person = await tx.repo(IndividualEntity).insert({
      userId: user.id,
      isAdmin: i === 0 || unit === 'hr',
      firstName: first,
      lastName: last,
      email,
      primaryOrganizationId: unitIds.get(unit)!,
      primaryTitle: title,
      primaryReportsTo: reportsTo === null ? null : people[reportsTo].id,
      hireDate: new Date(Date.UTC(2015 + Math.floor(random() * 11), Math.floor(random() * 12), 1 + Math.floor(random() * 27))),
      userDefined1: `EMP-${String(1000 + i)}`,
    });
    people.push(person);
    await tx.repo(OrganizationMemberEntity).insert({ individualId: person.id, organizationId: unitIds.get(unit)!, title });
  }
  // Managers lead their units.
  for (const [key, managerIndex] of [
    ['exec', 0],
    ['eng', 2],
    ['sales', 3],
    ['cs', 4],
    ['hr', 5],
    ['fin', 6],
    ['platform', 7],
    ['product', 8],
    ['emea', 9],
    ['amer', 10],
  ] as const) {
    await tx.repo(OrganizationEntity).updateWhere({ id: unitIds.get(key)! }, { managerId: people[managerIndex].id });
  }
  // The CEO is also a member of the head organization.
  await tx.repo(OrganizationMemberEntity).insert({ individualId: people[0].id, organizationId: unitIds.get('corp')!, title: 'Chief Executive Officer' });

  const periods = [
    await tx
      .repo(PeriodEntity)
      .insert({ name: 'FY 2025', startDate: new Date('2025-01-01T00:00:00Z'), endDate: new Date('2025-12-31T23:59:59.999Z'), closed: true }),
    await tx
      .repo(PeriodEntity)
      .insert({ name: 'FY 2026', startDate: new Date('2026-01-01T00:00:00Z'), endDate: new Date('2026-12-31T23:59:59.999Z'), closed: false }),
    await tx
      .repo(PeriodEntity)
      .insert({ name: 'FY 2027', startDate: new Date('2027-01-01T00:00:00Z'), endDate: new Date('2027-12-31T23:59:59.999Z'), closed: false }),
  ];
  const current = periods[1];

  for (const [rank, [name, description]] of CORE_VALUES.entries()) await tx.repo(CoreValueEntity).insert({ name, description, rank });

  let listItems = 0;
  let goals = 0;
  for (const [i, person] of people.entries()) {
    const unit = PEOPLE[i][0];
    for (const [rank, name] of (ACCOUNTABILITIES[unit] ?? ['Team contribution']).entries()) {
      await tx
        .repo(ListItemEntity)
        .insert({ kind: 'accountability', ancestorId: person.id, rank, name, description: `${name} for ${UNITS.find((u) => u.key === unit)!.name}` });
      listItems++;
    }
    await tx
      .repo(ListItemEntity)
      .insert({ kind: 'evaluationcriteria', ancestorId: person.id, rank: 0, name: 'Quality of work', description: 'Accuracy, thoroughness and reliability' });
    await tx
      .repo(ListItemEntity)
      .insert({ kind: 'evaluationcriteria', ancestorId: person.id, rank: 1, name: 'Teamwork', description: 'Works well with others' });
    listItems += 2;
    if (PEOPLE.some((p) => p[2] === i)) {
      await tx
        .repo(ListItemEntity)
        .insert({ kind: 'supervisoryscope', ancestorId: person.id, rank: 0, name: 'Direct reports', description: 'Coaching and reviews of the team' });
      listItems++;
    }
    const [name, why, measures] = GOALS[i % GOALS.length];
    const goal: Partial<GoalEntity> = {
      individualId: person.id,
      periodId: current.id,
      name,
      why,
      comment: '',
      completed: false,
      dueDate: new Date('2026-12-15T00:00:00Z'),
    };
    const record = goal as Record<string, unknown>;
    for (let n = 1; n <= 5; n++) {
      record[`measure${n}`] = measures[n - 1];
      record[`measure${n}Completed`] = measures[n - 1] !== '' && random() < 0.55;
      record[`measure${n}StartDate`] = new Date(Date.UTC(2026, (n - 1) * 2, 1));
      record[`measure${n}EndDate`] = new Date(Date.UTC(2026, (n - 1) * 2 + 2, 0));
    }
    await tx.repo(GoalEntity).insert(goal);
    goals++;
  }

  const projects = [
    ['Kubernetes migration', 7, 'platform'],
    ['Self-service onboarding', 8, 'product'],
    ['EMEA partner program', 9, 'emea'],
    ['Renewal playbook', 4, 'cs'],
  ] as const;
  for (const [name, owner, unit] of projects) {
    const p = await tx.repo(ProjectEntity).insert({
      name,
      description: `${name} (demo project)`,
      ownerId: people[owner].id,
      organizationId: unitIds.get(unit)!,
      startDate: new Date('2026-02-01T00:00:00Z'),
      dueDate: new Date('2026-12-01T00:00:00Z'),
      dueDateChanges: 0,
    });
    await tx.repo(ListItemEntity).insert({ kind: 'projectscope', ancestorId: p.id, rank: 0, name: 'Scope', description: `What ${name} delivers` });
    listItems++;
  }

  let commitments = 0;
  const commit = async (type: CommitmentEntity['type'], ancestorId: string, name: string, completed: boolean, rank: number) => {
    await tx.repo(CommitmentEntity).insert({
      type,
      ancestorId,
      periodId: current.id,
      name,
      description: null,
      dueDate: new Date('2026-12-31T00:00:00Z'),
      completed,
      completedDate: completed ? new Date('2026-10-01T00:00:00Z') : null,
      rank,
    });
    commitments++;
  };
  await commit('organization', unitIds.get('corp')!, 'Grow annual recurring revenue by 25%', false, 0);
  await commit('organization', unitIds.get('corp')!, 'Reach 99.95% availability', true, 1);
  await commit('organization', unitIds.get('corp')!, 'Employee engagement above 80%', true, 2);
  for (const [rank, u] of UNITS.filter((x) => x.parent).entries())
    await commit('department', unitIds.get(u.key)!, `${u.name}: deliver the 2026 plan`, random() < 0.5, rank);
  for (const person of people.slice(0, 20)) await commit('individual', person.id, 'Complete the yearly review on time', random() < 0.6, 0);

  let comments = 0;
  const commented: string[] = [];
  for (const [i, person] of people.entries()) {
    const manager = PEOPLE[i][2];
    if (manager === null || i % 2) continue;
    await writeComment(tx, {
      ancestorType: 'individuals',
      ancestorId: person.id,
      authorId: people[manager].id,
      body: COMMENTS[i % COMMENTS.length],
    });
    commented.push(person.id);
    comments++;
  }
  await refreshLastComments(tx.db, tx.ctx, commented);
  await writeComment(tx, {
    ancestorType: 'departments',
    ancestorId: unitIds.get('platform')!,
    authorId: people[2].id,
    body: 'On-call load is down 30% since spring.',
  });
  comments++;
  return {
    ...(await seedDialogsRolesAssessments(tx)),
    organizations: UNITS.length,
    individuals: people.length,
    periods: periods.length,
    goals,
    listItems,
    commitments,
    comments,
    coreValues: CORE_VALUES.length,
    projects: projects.length,
    ...(await seedDemoMetrics(tx, people, periods)),
  };
}

seed().catch((err: unknown) => {
  process.stderr.write(`pms-api seed:demo: failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
