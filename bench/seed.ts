/**
 * Seeds the benchmark's sites through the service's data layer (its entities, repositories and
 * migrations), not through SQL dumps: a site of a given size whose individuals form a reporting
 * tree (ten reports each), one comment on each, one individual with many comments and one with
 * none, a non-administrator manager who can log in, and a period for goals.
 */
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { hashPassword } from '../src/auth/password.js';
import { RequestContext } from '../src/common/context/request-context.js';
import { refreshLastComments } from '../src/database/queries/last-comment.js';
import { TenantDb } from '../src/database/tenant-db.js';
import { UserEntity } from '../src/database/entities/user.entity.js';
import { CommentEntity } from '../src/database/entities/comment.entity.js';
import { IndividualEntity } from '../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../src/database/entities/organization-member.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../src/database/entities/organization.entity.js';
import { PeriodEntity } from '../src/database/entities/period.entity.js';
import { SiteEntity } from '../src/database/entities/site.entity.js';

export interface SeededSite {
  siteId: string;
  size: number;
  /** Every individual's id, in tree order (0 is the top of the chart). */
  ids: string[];
  /** A non-administrator with ten direct reports (and their reports), and a password. */
  manager: { userName: string; password: string; individualId: string };
  /** An individual with `busyComments` comments on them, and one with none. */
  busyId: string;
  quietId: string;
  /**
   * The individual the short-list rows read (its goals, its comments): one seeded comment and no
   * `deletable` ones, so those rows list the 20 records the bench posts and one more.
   */
  listedId: string;
  periodId: number;
  orgId: string;
  /** Comments spread over the individuals, each deleted once by the DELETE row (`deletable` of the options). */
  deletable: string[];
}

const CHUNK = 1000;
const DAY = 24 * 3600 * 1000;

export async function insertChunked<T extends ObjectLiteral>(ds: DataSource, entity: EntityTarget<T>, rows: T[]): Promise<void> {
  // updateEntity(false): no read-back of generated columns (SQLite would OR together 1,000 ids).
  for (let i = 0; i < rows.length; i += CHUNK)
    await ds
      .createQueryBuilder()
      .insert()
      .into(entity)
      .values(rows.slice(i, i + CHUNK) as never)
      .updateEntity(false)
      .execute();
}

export async function seedSite(
  ds: DataSource,
  opts: { name: string; size: number; busyComments: number; password: string; deletable?: number },
): Promise<SeededSite> {
  const now = Date.now();
  const siteId = randomUUID();
  await ds.getRepository(SiteEntity).insert({ id: siteId, name: opts.name, performanceManagement: true, created: new Date(now), updated: new Date(now) });
  const sys = RequestContext.system(siteId);
  const db = new TenantDb(ds);
  const org = await db.repo(sys, OrganizationEntity).insert({ name: `${opts.name} Organization`, rowType: ROW_TYPE_ORGANIZATION, rank: 0 });
  const period = await db
    .repo(sys, PeriodEntity)
    .insert({ name: 'Current', startDate: new Date(now - 100 * DAY), endDate: new Date(now + 300 * DAY), closed: false });

  const ids = Array.from({ length: opts.size }, () => randomUUID());
  const tag = siteId.slice(0, 8);
  const managerUser = { id: randomUUID(), userName: `bench-manager-${tag}` };
  const audit = (k: number) => ({ siteId, created: new Date(now - (opts.size - k) * 1000), updated: new Date(now), createdBy: null, updatedBy: null });
  const individuals = ids.map((id, k) => ({
    id,
    ...audit(k),
    userId: k === 1 ? managerUser.id : null,
    isAdmin: false,
    prefix: k % 7 === 0 ? 'Dr.' : null,
    suffix: null,
    firstName: `First${k}`,
    lastName: `Last${String((k * 7919) % opts.size).padStart(6, '0')}`,
    userDefined1: `ud-${k}`,
    userDefined2: null,
    userDefined3: null,
    userDefined4: null,
    email: `p${k}@${tag}.bench.test`,
    primaryOrganizationId: org.id,
    primaryTitle: k === 0 ? 'Chief' : 'Engineer',
    primaryReportsTo: k === 0 ? null : ids[Math.floor((k - 1) / 10)],
    hireDate: new Date(Date.UTC(2020, 0, 1 + (k % 1000))),
    sendEvalSurvey: false,
    deleted: false,
    deletedByRef: false,
  }));
  await ds.getRepository(UserEntity).insert({
    id: managerUser.id,
    siteId,
    userName: managerUser.userName,
    userNameKey: managerUser.userName,
    email: null,
    passwordHash: await hashPassword(opts.password),
    isGlobalAdmin: false,
    created: new Date(now),
    updated: new Date(now),
  });
  await insertChunked(ds, IndividualEntity, individuals as IndividualEntity[]);
  await insertChunked(
    ds,
    OrganizationMemberEntity,
    ids.map((id, k) => ({
      id: randomUUID(),
      ...audit(k),
      individualId: id,
      organizationId: org.id,
      title: 'Engineer',
      deletedByRef: false,
    })) as OrganizationMemberEntity[],
  );

  const busyId = ids[Math.floor(opts.size / 2)];
  const quietId = ids[Math.floor(opts.size / 2) + 1];
  const comment = (ancestorId: string, k: number, created: number, author = individuals[(k * 31) % ids.length]) => ({
    id: randomUUID(),
    siteId,
    created: new Date(created),
    updated: new Date(created),
    createdBy: null,
    updatedBy: null,
    ancestorId,
    ancestorType: 'individuals' as const,
    body: `Comment ${k}: good quarter`,
    authorId: author.id,
    // The author's name the comment keeps, as an import writes it (docs/operations.md).
    authorFirstName: author.firstName,
    authorLastName: author.lastName,
    deleted: false,
    deletedByRef: false,
  });
  await insertChunked(ds, CommentEntity, ids.filter((id) => id !== quietId && id !== busyId).map((id, k) => comment(id, k, now - 5000 + k)) as CommentEntity[]);
  for (let k = 0; k < opts.busyComments; k += CHUNK) {
    const n = Math.min(CHUNK, opts.busyComments - k);
    await insertChunked(
      ds,
      CommentEntity,
      Array.from({ length: n }, (_, j) => comment(busyId, k + j, now - (opts.busyComments - k - j) * 1000)) as CommentEntity[],
    );
  }
  const listedId = ids[9];
  const commented = ids.filter((id) => id !== quietId && id !== busyId && id !== listedId);
  const deletable = Array.from({ length: opts.deletable ?? 0 }, (_, k) => comment(commented[(k * 7) % commented.length], k, now - 10_000_000 + k));
  for (let k = 0; k < deletable.length; k += CHUNK) await insertChunked(ds, CommentEntity, deletable.slice(k, k + CHUNK) as CommentEntity[]);
  // Comments written around the API, as an import would: then each individual's kept newest comment (docs/operations.md).
  await db.transaction(sys, (tx) => refreshLastComments(tx.db, tx.ctx, ids));
  return {
    siteId,
    size: opts.size,
    ids,
    manager: { userName: managerUser.userName, password: opts.password, individualId: ids[1] },
    busyId,
    quietId,
    listedId,
    periodId: period.id,
    orgId: org.id,
    deletable: deletable.map((c) => c.id),
  };
}
