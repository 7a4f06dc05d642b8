import {
  DataSource,
  type DataSourceOptions,
  Entity,
  type EntityMetadata,
  type ObjectLiteral,
  In,
  IsNull,
  LessThan,
  LessThanOrEqual,
  Like,
  MoreThan,
  MoreThanOrEqual,
  Not,
  type FindManyOptions,
} from 'typeorm';
import { BoolCol, DateCol, DecimalCol, GuidCol, GuidPk, IntCol, IntPk, StrCol, VersionCol } from './columns.js';
import { anchorOf, compileAnchor, compileSimpleFind, joinedOf, totalFromPage, type JoinedColumns } from './kept-sql.js';
import { compileHydrate, createEntity, hydrateRows } from './hydrate.js';
import { announceWrite, keptInsert, keptUpdate } from './kept-writes.js';
import { entitiesFor } from './registry.js';

@Entity('things')
class Thing {
  @IntPk() id!: number;
  @GuidCol('site_id') siteId!: string;
  @StrCol('name', 50) name!: string | null;
  @IntCol('rank') rank!: number;
  @BoolCol('deleted') deleted!: boolean;
  @DecimalCol('score') score!: number | null;
  @DateCol('due') due!: Date | null;
  @VersionCol() version!: number;
}

@Entity('notes')
class Note {
  @IntPk() id!: number;
  @GuidCol('site_id') siteId!: string;
  @GuidCol('owner_id', { nullable: true }) ownerId!: string | null;
  @IntCol('rank') rank!: number;
}

@Entity('people')
class Person {
  @GuidPk() id!: string;
  @GuidCol('site_id') siteId!: string;
  @StrCol('first_name', 50) firstName!: string | null;
}

const SITE = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const ANA = '10000000-0000-4000-8000-000000000001';
const BEN = '10000000-0000-4000-8000-000000000002';
const CID = '10000000-0000-4000-8000-000000000003';
const NAMES: JoinedColumns = { table: 'people', columns: ['first_name'], by: 'ownerId' };

/** An in-memory database of people and their notes (the joined and anchored finds' fixtures). */
async function peopleAndNotes(people: Partial<Person>[], notes: Partial<Note>[]): Promise<DataSource> {
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Note, Person], synchronize: true });
  await ds.initialize();
  await ds.getRepository(Person).insert(people);
  await ds.getRepository(Note).insert(notes);
  return ds;
}

describe('a simple find in one kept statement', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Thing], synchronize: true });
    await ds.initialize();
    const rows: Partial<Thing>[] = [];
    for (let i = 0; i < 40; i++) {
      rows.push({
        siteId: i % 4 === 3 ? OTHER : SITE,
        name: i % 5 === 0 ? null : `n${i % 7}`,
        rank: i % 3,
        deleted: i % 6 === 0,
        score: i % 4 === 0 ? null : i * 1.25,
        due: i % 2 ? new Date(Date.UTC(2026, 0, 1 + i, 8, 30, 0, 123)) : null,
      });
    }
    await ds.getRepository(Thing).insert(rows);
  });
  afterAll(() => ds.destroy());

  const metadata = () => ds.getMetadata(Thing);

  /** The rows and total the kept statement answers. */
  async function kept(options: FindManyOptions<Thing>): Promise<[Thing[], number]> {
    const sut = compileSimpleFind(metadata(), SITE, options);
    if (!sut) throw new Error('not simple');
    const rows = hydrateRows<Thing>(metadata(), (await ds.query(sut.rows, [...sut.params, ...sut.paging])) as Record<string, unknown>[]);
    const [count] = (await ds.query(sut.count, sut.params)) as { n: number }[];
    return [rows, Number(count.n)];
  }

  /** What TypeORM's own findAndCount answers for the same options in the same site. */
  function typeorm(options: FindManyOptions<Thing>): Promise<[Thing[], number]> {
    return ds.getRepository(Thing).findAndCount({ ...options, where: { ...(options.where as object), siteId: SITE } });
  }

  it.each<[string, FindManyOptions<Thing>]>([
    ['no condition, ordered', { order: { rank: 'ASC', id: 'DESC' } }],
    ['equality and a boolean', { where: { rank: 1, deleted: false }, order: { id: 'ASC' } }],
    ['IsNull()', { where: { name: IsNull() }, order: { id: 'ASC' } }],
    ['In', { where: { rank: In([0, 2]) }, order: { name: 'ASC', id: 'ASC' } }],
    ['an empty In', { where: { rank: In([]) }, order: { id: 'ASC' } }],
    ['a page', { where: { deleted: false }, order: { id: 'ASC' }, take: 5, skip: 10 }],
    ['a first page', { order: { id: 'DESC' }, take: 7 }],
    ['a page past the end', { order: { id: 'ASC' }, take: 5, skip: 1000 }],
    ['LessThan a number', { where: { rank: LessThan(2) }, order: { id: 'ASC' } }],
    ['MoreThan a number', { where: { score: MoreThan(20) }, order: { id: 'ASC' } }],
    // Instants to the millisecond, at and around a stored one (2026-01-04T08:30:00.123Z is row 3's).
    ['a range of instants', { where: { due: MoreThanOrEqual(new Date(Date.UTC(2026, 0, 4, 8, 30, 0, 123))) }, order: { id: 'ASC' } }],
    ['an instant just after a stored one', { where: { due: MoreThan(new Date(Date.UTC(2026, 0, 4, 8, 30, 0, 123))) }, order: { id: 'ASC' } }],
    ['an instant just before a stored one', { where: { due: LessThanOrEqual(new Date(Date.UTC(2026, 0, 4, 8, 30, 0, 122))) }, order: { id: 'ASC' } }],
    [
      'a period holding an instant, newest first',
      { where: { due: LessThanOrEqual(new Date(Date.UTC(2026, 0, 20))), rank: MoreThanOrEqual(1) }, order: { due: 'DESC', id: 'DESC' }, take: 3 },
    ],
  ])('answers as TypeORM does: %s', async (_name, options) => {
    const [rows, total] = await kept(options);
    const [expected, expectedTotal] = await typeorm(options);
    expect(rows).toEqual(expected);
    expect(rows.every((r) => r instanceof Thing)).toBe(true);
    expect(total).toBe(expectedTotal);
  });

  it('hydrates every column type as TypeORM does (decimal as a number, datetime as a Date, boolean)', async () => {
    const [rows] = await kept({ where: { id: 2 } });
    expect(rows[0]).toEqual(
      Object.assign(new Thing(), {
        id: 2,
        siteId: SITE,
        name: 'n1',
        rank: 1,
        deleted: false,
        score: 1.25,
        due: new Date(Date.UTC(2026, 0, 2, 8, 30, 0, 123)),
        version: 1,
      }),
    );
    const [nulls] = await kept({ where: { id: 5 } });
    expect(nulls[0]).toEqual(Object.assign(new Thing(), { id: 5, siteId: SITE, name: 'n4', rank: 1, deleted: false, score: null, due: null, version: 1 }));
  });

  it('never reads another site', async () => {
    const [rows] = await kept({});
    expect(rows.length).toBe(30);
    expect(rows.every((r) => r.siteId === SITE)).toBe(true);
  });

  it('keeps one statement per shape: other values reuse it', () => {
    const a = compileSimpleFind(metadata(), SITE, { where: { rank: 1 }, take: 5 })!;
    const b = compileSimpleFind(metadata(), OTHER, { where: { rank: 2 }, take: 9 })!;
    expect(a.rows).toBe(b.rows);
    expect(b.params).toEqual([OTHER, 2]);
    expect(b.paging).toEqual([9]);
    expect(a.rows).toBe(
      'SELECT "id", "site_id", "name", "rank", "deleted", "score", "due", "version" FROM "things" WHERE "site_id" = ? AND "rank" = ? LIMIT ?',
    );
  });

  it('binds a range with its value and keeps the statement of its shape', () => {
    const at = new Date(Date.UTC(2026, 0, 4, 8, 30, 0, 123));
    const sut = compileSimpleFind<Thing>(metadata(), SITE, { where: { due: LessThanOrEqual(at), rank: MoreThan(0) }, order: { due: 'DESC' }, take: 1 })!;
    expect(sut.rows).toBe(
      'SELECT "id", "site_id", "name", "rank", "deleted", "score", "due", "version" FROM "things" WHERE "site_id" = ? AND "due" <= ? AND "rank" > ? ORDER BY "due" DESC LIMIT ?',
    );
    expect(sut.params).toEqual([SITE, '2026-01-04 08:30:00.123', 0]);
    expect(sut.prepare).toBe(true);
    expect(compileSimpleFind(metadata(), SITE, { where: { rank: In([1, 2]) } })!.prepare).toBe(false);
  });

  it.each<[string, FindManyOptions<Thing>]>([
    ['another operator', { where: { rank: Not(2) } }],
    ['Like', { where: { name: Like('n%') } }],
    ['a range of something else than a number or an instant', { where: { rank: LessThan([1, 2] as never) } }],
    ['an instant outside the years 1000-9999', { where: { due: LessThan(new Date(Date.UTC(10000, 0, 1))) } }],
    ['an OR list', { where: [{ rank: 1 }, { rank: 2 }] }],
    ['a bare null (TypeORM refuses it)', { where: { name: null as unknown as string } }],
    ['a Date value', { where: { due: new Date() } }],
    ['select', { select: { id: true } }],
    ['an unknown property', { where: { nope: 1 } as never }],
    ['a site condition of its own', { where: { siteId: OTHER } }],
    ['an offset without a limit', { skip: 5 }],
    ['an order other than ASC/DESC', { order: { id: { direction: 'ASC', nulls: 'FIRST' } } as never }],
  ])('leaves the rest to TypeORM: %s', (_name, options) => {
    expect(compileSimpleFind(metadata(), SITE, options)).toBeNull();
  });
});

describe('a simple find with the columns of the row it references', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = await peopleAndNotes(
      [
        { id: ANA, siteId: SITE, firstName: 'Ana' },
        // BEN is a person of the other site only: a note of SITE naming him joins nothing.
        { id: BEN, siteId: OTHER, firstName: 'Ben' },
      ],
      [
        { siteId: SITE, ownerId: ANA, rank: 2 },
        { siteId: SITE, ownerId: BEN, rank: 1 },
        { siteId: SITE, ownerId: null, rank: 0 },
        { siteId: OTHER, ownerId: BEN, rank: 1 },
      ],
    );
  });
  afterAll(() => ds.destroy());

  it('reads the records as the plain find does, each with the referenced row of its own site or null', async () => {
    const metadata = ds.getMetadata(Note);
    const options: FindManyOptions<Note> = { where: { rank: MoreThanOrEqual(0) }, order: { rank: 'DESC', id: 'ASC' }, take: 10 };
    const sut = compileSimpleFind(metadata, SITE, options, NAMES)!;
    expect(sut.rows).toBe(
      'SELECT t."id", t."site_id", t."owner_id", t."rank", j."id" AS "__joined_id", j."first_name" AS "__joined_first_name" ' +
        'FROM "notes" t LEFT JOIN "people" j ON j."site_id" = t."site_id" AND j."id" = t."owner_id" ' +
        'WHERE t."site_id" = ? AND t."rank" >= ? ORDER BY t."rank" DESC, t."id" ASC LIMIT ?',
    );
    const raw = (await ds.query(sut.rows, [...sut.params, ...sut.paging])) as Record<string, unknown>[];
    const plain = compileSimpleFind(metadata, SITE, options)!;
    const expected = hydrateRows<Note>(metadata, (await ds.query(plain.rows, [...plain.params, ...plain.paging])) as Record<string, unknown>[]);
    expect(hydrateRows<Note>(metadata, raw)).toEqual(expected);
    expect(raw.map((r) => joinedOf(NAMES, r))).toEqual([{ id: ANA, first_name: 'Ana' }, null, null]);
    const [count] = (await ds.query(sut.count, sut.params)) as { n: number }[];
    expect(Number(count.n)).toBe(3);
  });

  it('keeps a statement of its own per joined columns', () => {
    const metadata = ds.getMetadata(Note);
    const plain = compileSimpleFind(metadata, SITE, { where: { rank: 1 } })!;
    const joined = compileSimpleFind(metadata, SITE, { where: { rank: 1 } }, NAMES)!;
    expect(joined.rows).not.toBe(plain.rows);
    expect(compileSimpleFind(metadata, OTHER, { where: { rank: 3 } }, NAMES)!.rows).toBe(joined.rows);
  });
});

describe('a page under the record it hangs on, in one statement', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = await peopleAndNotes(
      [
        { id: ANA, siteId: SITE, firstName: 'Ana' },
        { id: CID, siteId: SITE, firstName: 'Cid' },
        { id: BEN, siteId: OTHER, firstName: 'Ben' },
      ],
      [
        { siteId: SITE, ownerId: ANA, rank: 2 },
        { siteId: SITE, ownerId: ANA, rank: 1 },
        { siteId: SITE, ownerId: ANA, rank: 1 },
        { siteId: SITE, ownerId: CID, rank: 5 },
        // BEN is a person of the other site only: his notes in SITE hang on no record of SITE.
        { siteId: OTHER, ownerId: BEN, rank: 1 },
        { siteId: SITE, ownerId: BEN, rank: 1 },
      ],
    );
  });
  afterAll(() => ds.destroy());

  /** The raw rows of a page of `owner`'s notes read with the person `owner` (with `where` on the person), and of the person alone. */
  async function under(owner: string, options: FindManyOptions<Note>, where: Record<string, unknown> = {}, joined?: JoinedColumns) {
    const anchored = compileAnchor(ds.getMetadata(Person), SITE, owner, where, ['first_name'])!;
    const sut = compileSimpleFind(
      ds.getMetadata(Note),
      SITE,
      { ...options, where: { ...(options.where as object), ownerId: owner } },
      joined,
      anchored.anchor,
    )!;
    const raw = (await ds.query(sut.rows, [...anchored.params, ...sut.params, ...sut.paging])) as Record<string, unknown>[];
    const alone = (await ds.query(sut.anchor!, anchored.params)) as Record<string, unknown>[];
    return { sut, anchored, raw, alone: anchorOf(anchored.anchor, alone[0]) };
  }

  it('joins the anchor (an inner join on its primary key) after the list’s own table, so the list is walked as without it', async () => {
    const { sut, raw, anchored, alone } = await under(ANA, { order: { rank: 'ASC', id: 'ASC' }, take: 10 });
    expect(sut.rows).toBe(
      'SELECT t."id", t."site_id", t."owner_id", t."rank", a."id" AS "__anchor_id", a."first_name" AS "__anchor_first_name" ' +
        'FROM "notes" t JOIN "people" a ON a."site_id" = ? AND a."id" = ? ' +
        'WHERE t."site_id" = ? AND t."owner_id" = ? ORDER BY t."rank" ASC, t."id" ASC LIMIT ?',
    );
    expect(sut.anchor).toBe('SELECT a."id" AS "__anchor_id", a."first_name" AS "__anchor_first_name" FROM "people" a WHERE a."site_id" = ? AND a."id" = ?');
    const plain = compileSimpleFind<Note>(ds.getMetadata(Note), SITE, { where: { ownerId: ANA }, order: { rank: 'ASC', id: 'ASC' }, take: 10 })!;
    const expected = hydrateRows<Note>(ds.getMetadata(Note), (await ds.query(plain.rows, [...plain.params, ...plain.paging])) as Record<string, unknown>[]);
    expect(hydrateRows<Note>(ds.getMetadata(Note), raw)).toEqual(expected);
    expect(expected.map((n) => n.rank)).toEqual([1, 1, 2]);
    expect(raw.map((r) => anchorOf(anchored.anchor, r))).toEqual(new Array(3).fill({ id: ANA, first_name: 'Ana' }));
    expect(alone).toEqual({ id: ANA, first_name: 'Ana' });
  });

  it('reads no row when the id names no record of the site, and the anchor alone for an empty page', async () => {
    // BEN's notes in SITE: BEN is not a person of SITE, so none of them comes back.
    const orphan = await under(BEN, { order: { id: 'ASC' } });
    expect(orphan.raw).toEqual([]);
    expect(anchorOf(orphan.anchored.anchor, orphan.raw[0])).toBeNull();
    expect(orphan.alone).toBeNull();
    const empty = await under(CID, { where: { rank: 1 }, order: { id: 'ASC' } });
    expect(empty.raw).toEqual([]);
    expect(empty.alone).toEqual({ id: CID, first_name: 'Cid' });
    expect((await under('10000000-0000-4000-8000-00000000000f', { order: { id: 'ASC' } })).alone).toBeNull();
    expect(anchorOf(empty.anchored.anchor, undefined)).toBeNull();
  });

  it('filters the anchor by its own conditions and joins referenced rows to the records', async () => {
    const named = await under(ANA, { order: { id: 'ASC' } }, { firstName: 'Ana' });
    expect(named.raw.map((r) => r.__anchor_id)).toEqual([ANA, ANA, ANA]);
    const misnamed = await under(ANA, { order: { id: 'ASC' } }, { firstName: 'Cid' });
    expect(misnamed.raw).toEqual([]);
    expect(misnamed.alone).toBeNull();
    const { raw, sut } = await under(ANA, { order: { id: 'ASC' }, take: 2, skip: 1 }, {}, NAMES);
    expect(sut.rows).toMatch(/FROM "notes" t LEFT JOIN "people" j ON .* JOIN "people" a ON /);
    expect(sut.rows).not.toContain('LEFT JOIN "people" a');
    expect(raw.map((r) => [r.rank, joinedOf(NAMES, r), r.__anchor_id])).toEqual([
      [1, { id: ANA, first_name: 'Ana' }, ANA],
      [1, { id: ANA, first_name: 'Ana' }, ANA],
    ]);
  });

  it('keeps a statement of its own per anchor', () => {
    const metadata = ds.getMetadata(Note);
    const anchored = compileAnchor(ds.getMetadata(Person), SITE, ANA, {}, ['first_name'])!;
    const plain = compileSimpleFind(metadata, SITE, { where: { ownerId: ANA } })!;
    const sut = compileSimpleFind(metadata, SITE, { where: { ownerId: ANA } }, undefined, anchored.anchor)!;
    expect(sut.rows).not.toBe(plain.rows);
    expect(plain.anchor).toBeUndefined();
    const again = compileAnchor(ds.getMetadata(Person), OTHER, BEN, {}, ['first_name'])!;
    expect(compileSimpleFind(metadata, OTHER, { where: { ownerId: BEN } }, undefined, again.anchor)!.rows).toBe(sut.rows);
    expect(again.params).toEqual([OTHER, BEN]);
  });

  it('refuses an anchor condition that is not a plain column compared with a scalar', () => {
    expect(compileAnchor(ds.getMetadata(Person), SITE, ANA, { siteId: OTHER })).toBeNull();
    expect(compileAnchor(ds.getMetadata(Person), SITE, ANA, { nothing: 1 })).toBeNull();
    expect(compileAnchor(ds.getMetadata(Person), SITE, ANA, { firstName: IsNull() })).toBeNull();
  });
});

describe('kept writes', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Thing], synchronize: true });
    await ds.initialize();
  });
  afterAll(() => ds.destroy());
  const metadata = () => ds.getMetadata(Thing);
  const read = (id: number) => ds.getRepository(Thing).findOneByOrFail({ id });

  it('inserts the columns the entity sets, converted as TypeORM converts them, and hands back the generated id', async () => {
    const due = new Date(Date.UTC(2026, 4, 6, 7, 8, 9, 10));
    const entity = { siteId: SITE, name: 'a', rank: 3, deleted: true, score: 2.5, due, version: 1 };
    const sut = keptInsert(metadata(), entity)!;
    expect(sut.sql).toBe('INSERT INTO "things" ("site_id", "name", "rank", "deleted", "score", "due", "version") VALUES (?, ?, ?, ?, ?, ?, ?)');
    const raw = await ds.query(sut.sql, sut.params);
    const id = ds.driver.createGeneratedMap(metadata(), raw, 0, 1)!.id as number;
    expect(await read(id)).toEqual(Object.assign(new Thing(), { id, ...entity }));
  });

  it('keeps the statement of an insert that sets every column apart from those that set fewer', () => {
    const every = { id: 9, siteId: SITE, name: 'a', rank: 3, deleted: true, score: null, due: null, version: 1 };
    const all = 'INSERT INTO "things" ("id", "site_id", "name", "rank", "deleted", "score", "due", "version") VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
    expect(keptInsert(metadata(), every)!.sql).toBe(all);
    const { id: _id, score: _score, ...fewer } = every;
    expect(keptInsert(metadata(), fewer)!.sql).toBe('INSERT INTO "things" ("site_id", "name", "rank", "deleted", "due", "version") VALUES (?, ?, ?, ?, ?, ?)');
    const again = keptInsert(metadata(), { ...every, id: 10 })!;
    expect(again.sql).toBe(all);
    expect(again.params).toEqual([10, SITE, 'a', 3, 1, null, null, 1]);
  });

  it('updates only the columns it is given and bumps the version, under its conditions', async () => {
    const [{ id }] = (await ds.getRepository(Thing).insert({ siteId: SITE, name: 'b', rank: 1, deleted: false, score: null, due: null, version: 1 }))
      .identifiers;
    const stale = keptUpdate(metadata(), { name: 'c' }, { siteId: SITE, id, version: In([7]) })!;
    const runner = ds.createQueryRunner();
    try {
      expect((await runner.query(stale.sql, stale.params, true)).affected).toBe(0);
      const other = keptUpdate(metadata(), { name: 'c' }, { siteId: OTHER, id })!;
      expect((await runner.query(other.sql, other.params, true)).affected).toBe(0);
      const sut = keptUpdate(metadata(), { name: 'c', deleted: true }, { siteId: SITE, id, version: In([1]) })!;
      expect(sut.sql).toBe('UPDATE "things" SET "name" = ?, "deleted" = ?, "version" = "version" + 1 WHERE "site_id" = ? AND "id" = ? AND "version" IN (?)');
      expect((await runner.query(sut.sql, sut.params, true)).affected).toBe(1);
    } finally {
      await runner.release();
    }
    expect(await read(id as number)).toEqual(
      Object.assign(new Thing(), { id, siteId: SITE, name: 'c', rank: 1, deleted: true, score: null, due: null, version: 2 }),
    );
  });

  it('tells the subscribers of a kept write, as TypeORM would (the caller cache listens)', async () => {
    const seen: string[] = [];
    const subscriber = {
      afterInsert: (e: { metadata: { tableName: string } }) => void seen.push(`insert ${e.metadata.tableName}`),
      afterUpdate: (e: { metadata: { tableName: string } }) => void seen.push(`update ${e.metadata.tableName}`),
    };
    const elsewhere = { listenTo: () => class Other {}, afterUpdate: () => void seen.push('not for things') };
    ds.subscribers.push(subscriber as never, elsewhere as never);
    const runner = ds.createQueryRunner();
    try {
      await announceWrite('afterInsert', metadata(), runner, {});
      await announceWrite('afterUpdate', metadata(), runner);
    } finally {
      await runner.release();
      ds.subscribers.splice(ds.subscribers.indexOf(subscriber as never), 2);
    }
    expect(seen).toEqual(['insert things', 'update things']);
  });

  it('leaves SQL expressions, unknown columns and writes without a site to TypeORM', () => {
    expect(keptInsert(metadata(), { siteId: SITE, rank: () => 'rank + 1' })).toBeNull();
    expect(keptUpdate(metadata(), { rank: () => 'rank + 1' }, { siteId: SITE, id: 1 })).toBeNull();
    expect(keptUpdate(metadata(), { nope: 1 }, { siteId: SITE, id: 1 })).toBeNull();
    expect(keptUpdate(metadata(), { name: 'x' }, { id: 1 })).toBeNull();
    expect(keptUpdate(metadata(), { name: 'x' }, { siteId: SITE, rank: LessThan(3) })).toBeNull();
  });
});

describe('the total a page tells', () => {
  it.each([
    [3, 20, 0, 3],
    [0, 20, 0, 0],
    [5, 20, 40, 45],
    [20, 20, 0, null],
    [0, 20, 40, null],
    [7, undefined, undefined, 7],
  ])('%i rows of a page of %s from %s: %s', (found, take, skip, total) => {
    expect(totalFromPage(found, take, skip)).toBe(total);
  });
});

describe('compiled hydration', () => {
  /** TypeORM's own hydration of one row, as its query builder does it. */
  function typeormHydrate(metadata: EntityMetadata, columns: readonly EntityMetadata['columns'][number][], row: Record<string, unknown>): ObjectLiteral {
    const entity = metadata.create() as ObjectLiteral;
    for (const c of columns) c.setEntityValue(entity, metadata.connection.driver.prepareHydratedValue(row[c.databaseName], c));
    return entity;
  }

  /** Equal property by property: the same keys, values the same (Object.is), dates at the same instant. */
  function same(a: ObjectLiteral, b: ObjectLiteral): boolean {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    return keys.every((k) => (a[k] instanceof Date && b[k] instanceof Date ? Object.is(a[k].getTime(), b[k].getTime()) : Object.is(a[k], b[k])));
  }

  // What a driver may hand over for a column, whatever its type: every kind the hydration branches on.
  const values: unknown[] = [
    null,
    undefined,
    0,
    1,
    2,
    -7,
    1.5,
    '0',
    '1',
    '42',
    '12.5000',
    '',
    'text',
    'true',
    '2026-11-24 10:20:30.123',
    '2026-11-24T10:20:30.123Z',
    new Date(Date.UTC(2026, 10, 24, 10, 20, 30, 123)),
    true,
    false,
  ];

  /** Both drivers, and whether the application's entities are those of SQLite. */
  const DRIVERS = [
    ['better-sqlite3', true],
    ['mysql', false],
  ] as const;

  /** A data source of every entity of the application, its metadata built (no connection is opened). */
  async function application(type: (typeof DRIVERS)[number][0], sqlite: boolean): Promise<DataSource> {
    const ds = new DataSource({ type, database: ':memory:', entities: entitiesFor(sqlite) } as DataSourceOptions);
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    return ds;
  }

  it.each(DRIVERS)('gives every entity of the application the entity TypeORM gives, on %s', async (type, sqlite) => {
    const ds = await application(type, sqlite);
    expect(ds.entityMetadatas.length).toBeGreaterThan(20);
    let compared = 0;
    for (const metadata of ds.entityMetadatas) {
      for (const which of ['selected', 'all'] as const) {
        const columns = which === 'all' ? metadata.columns : metadata.columns.filter((c) => c.isSelect !== false);
        for (let k = 0; k < values.length; k++) {
          // Each column gets a different value of the list on each row: every value reaches every column.
          const row = Object.fromEntries(columns.map((c, i) => [c.databaseName, values[(k + i) % values.length]]));
          const [ours] = hydrateRows<ObjectLiteral>(metadata, [row], which);
          const theirs = typeormHydrate(metadata, columns, row);
          if (!same(ours, theirs))
            throw new Error(`${metadata.name} (${which}) on ${type}: ${JSON.stringify(row)} gave ${JSON.stringify(ours)}, TypeORM ${JSON.stringify(theirs)}`);
          compared++;
        }
      }
    }
    expect(compared).toBe(ds.entityMetadatas.length * 2 * values.length);
  });

  it.each(DRIVERS)('makes every entity of the application from plain values as TypeORM create does, on %s', async (type, sqlite) => {
    const ds = await application(type, sqlite);
    let compared = 0;
    let ownPath = 0;
    for (const metadata of ds.entityMetadatas) {
      for (let k = 0; k < values.length; k++) {
        // Every column a value of the list (undefined among them: left unset), and a key no column has.
        const plain: Record<string, unknown> = { notAColumn: 'dropped' };
        metadata.columns.forEach((c, i) => (plain[c.propertyName] = values[(k + i) % values.length]));
        let typeormCalled = false;
        const theirs = ds.manager.create(metadata.target as never, plain) as ObjectLiteral;
        const ours = createEntity(metadata, plain, () => {
          typeormCalled = true;
          return ds.manager.create(metadata.target as never, plain) as ObjectLiteral;
        });
        if (!typeormCalled) ownPath++;
        expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs));
        if (!same(ours, theirs) || Object.keys(ours).join() !== Object.keys(theirs).join())
          throw new Error(`${metadata.name} on ${type}: ${JSON.stringify(plain)} gave ${JSON.stringify(ours)}, TypeORM ${JSON.stringify(theirs)}`);
        expect('notAColumn' in ours).toBe(false);
        compared++;
      }
    }
    expect(compared).toBe(ds.entityMetadatas.length * values.length);
    // The application's entities are plain: every one takes the loop, none TypeORM's create.
    expect(ownPath).toBe(compared);
  });

  it('writes untouched and boolean columns inline, and hands every other column to the driver', () => {
    const ds = new DataSource({ type: 'mysql', database: 'none', entities: [Thing] } as DataSourceOptions);
    return (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas().then(() => {
      const source = compileHydrate(ds.getMetadata(Thing), ds.getMetadata(Thing).columns).toString();
      expect(source).toContain('entity["name"] = row["name"];');
      expect(source).toContain('entity["deleted"] = v === null || v === undefined ? v : v ? true : false;');
      // The decimal has a transformer, the date and the generated id a conversion of their own.
      expect(source).toMatch(/entity\["score"\] = prepare\(row\["score"\], columns\[\d+\]\);/);
      expect(source).toMatch(/entity\["due"\] = prepare\(row\["due"\], columns\[\d+\]\);/);
      expect(source).toMatch(/entity\["id"\] = prepare\(row\["id"\], columns\[\d+\]\);/);
    });
  });
});
