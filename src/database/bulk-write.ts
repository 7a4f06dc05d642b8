import { Logger, type Type } from '@nestjs/common';
import { In, type EntityTarget } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { AppError, NotFoundError, PreconditionFailedError, ValidationError, type ProblemDetails } from '../common/errors/errors.js';
import { isDatabaseUnavailable, isRetryableConflict } from '../common/errors/db-errors.js';
import { assertAccess } from '../auth/auth.guard.js';
import type { AccessRule } from '../auth/access.decorators.js';
import { AppValidationPipe } from '../http/pipeline/app-validation.pipe.js';
import { problemOf, toAppError } from '../http/pipeline/problem.filter.js';
import { toJsonValue } from '../http/wire/codec.js';
import { RECORD_VERSION } from '../http/wire/etag.js';
import { bulkAnswer, type BulkItemInput, type BulkOutcome, type BulkQuery, type BulkRequest, type BulkResultsDto } from '../http/wire/bulk.js';
import type { TenantDb } from './tenant-db.js';
import { CarriedWritesFailed } from './transactions.js';
import { Turns } from '../common/tasks/turns.js';
import { BULK_CHUNKS, type BulkChunkTiming } from '../common/logging/bulk-chunks.js';
import type { GuidTenantEntity, IntTenantEntity } from './entities/base.entity.js';
import { touches, writtenKeys } from './chunk-keys.js';
import { ChunksInFlight, startChunk, type ChunkInFlight } from './chunks-in-flight.js';

/** A table whose records carry an ExternalID (individuals, organizations). */
export type KeyedEntity = EntityTarget<GuidTenantEntity & { externalId: string | null }>;
/** The table of a resource written in bulk: with an ExternalID, or found by its ID only (guid or integer). */
export type BulkEntity = KeyedEntity | EntityTarget<GuidTenantEntity> | EntityTarget<IntTenantEntity>;

/**
 * How one resource writes a batch (docs/bulk.md): its single writes and what the batch needs to
 * find records by their keys. The resource's service builds it; `applyBulk` runs it.
 */
export interface BulkPlan<C extends object, U extends object, K extends string | number = string> {
  /** The kind messages name: `individual`. */
  label: string;
  /** The resource's table, searched by ID (and by ExternalID when `externalIds`). */
  entity: BulkEntity;
  /**
   * Whether the table carries ExternalID (default true): then an item's Record may name its record
   * by it. A resource without one names its records by ID only (an upsert without an ID creates).
   */
  externalIds?: boolean;
  /** Whether the IDs are integers (goals): an item's ID is read as one, and answered as its decimal text. */
  intIds?: boolean;
  /**
   * Whether the records carry an ETag whose version the single update checks against If-Match
   * (`update(…, { ifMatch: true })`), so an item may give `IfMatch` (default true). False for
   * records without one of their own (a metric value, a security-group member): an item's
   * `IfMatch` is then its 400. The request class must agree (`bulkRequestOf(…, { ifMatch: false })`).
   */
  conditional?: boolean;
  /** The single create's and update's input classes: each Record is validated as one of them. */
  create: Type<C>;
  update: Type<U>;
  /** The access rule of the single create's route (each item that creates is held to it). */
  createRule: AccessRule;
  /**
   * The access rule of the single update's route, when it is more than the bulk route's
   * (`admin` for memberships); otherwise the update's rules are the service's own.
   */
  updateRule?: AccessRule;
  /**
   * A record without ExternalID named by what it joins (a membership by its individual and
   * department): the fields that name it, and the record they name (null when none), read in the
   * item's transaction after its ExternalRefs are resolved. An item without ID is then an update
   * of that record, or a create when there is none (an upsert).
   */
  match?: {
    fields: readonly string[];
    find(record: Record<string, unknown>): Promise<string | null>;
  };
  /** Reference fields that may be given by ExternalID (ExternalRefs), and the table they name. */
  refs: Readonly<Record<string, KeyedEntity>>;
  /** The single writes, with their answers. */
  createOne(dto: C): Promise<{ ID: unknown }>;
  /** `id`: the record's ID (a number when `intIds`). */
  updateOne(id: K, dto: U): Promise<{ ID: unknown }>;
  /** The record as its GET answers the caller (an update that would change none of it writes nothing). */
  read(id: K): Promise<object>;
  /**
   * Several records as `read` answers each, by ID (those the caller may not read left out): a
   * chunk's records read ahead in one statement, for the items that may find theirs unchanged
   * (docs/bulk.md, "Round trips"). Without it each such item reads its record alone.
   */
  readMany?(ids: K[]): Promise<ReadonlyMap<string, object>>;
  /**
   * What the single updates of a chunk's records will read besides the records themselves (a
   * person's account), read ahead in one statement and kept for the chunk's transaction; given
   * the records as the chunk locked them.
   */
  prepare?(records: Record<string, unknown>[]): Promise<void>;
  /**
   * Whether the caller's update of the record `read` answered would pass its authorization, so an
   * unchanged record may be answered 200 without running it (default: the answer's CanUpdate, or
   * an administrator). When not, the update runs and answers as the single write does.
   */
  mayChange?(current: Record<string, unknown>): boolean;
  /**
   * The Record fields whose values no two records of the site share (a unique index), besides
   * `ID`, when they are all of the table's unique keys: `ExternalID`, a person's `UserName`. Given,
   * a chunk whose items name none of the records the chunk before it wrote is written while that
   * chunk commits (docs/bulk.md, "Two chunks at once"), and a run answers the keys of the records
   * it wrote (`BulkRun.keys()`, what a file import decides the same by). Left out, chunks are written
   * one after another.
   */
  uniqueKeys?: readonly string[];
}

/**
 * How a resource writes a batch, for a context: the plan's single writes run in the context's
 * transaction, so a chunk written beside another (in a transaction of its own) has a plan of its own.
 */
export type BulkPlanOf<C extends object, U extends object, K extends string | number = string> = (ctx: RequestContext) => BulkPlan<C, U, K>;

export interface BulkOptions {
  /** All items or none. */
  atomic: boolean;
}

export interface BulkRun {
  outcomes: BulkOutcome[];
  /** Atomic: whether the items were written; otherwise whether any item was. */
  committed: boolean;
  /**
   * The keys of the records the items name as theirs (chunk-keys.ts `writtenKeys`: their IDs and
   * unique keys), when the plan declares its unique keys; null otherwise. Computed when asked (a
   * file import asks; a bulk route does not).
   */
  keys(): Set<string> | null;
}

const logger = new Logger('Bulk');

/**
 * Items per transaction (see Batch.run). 250 since 2026-11-28: side by side with 100, requests of
 * 1,000 new people answered 9 % faster (a chunk's BEGIN, look-ups, COMMIT and statements shared by
 * more items), with the same RSS; 500 gained 13 % but held 29 MB more (docs/bulk.md, "Cost"). A
 * file import's chunk is its own setting (IMPORT_CHUNK_ROWS).
 */
export const BULK_CHUNK = 250;

/**
 * The longest stretch a batch runs its items without letting the event loop take a turn (Turns;
 * docs/imports.md, "Sharing the replica"): a chunk with its writes held and its records read ahead
 * awaits no round trip from one item to the next.
 */
export const BULK_SLICE_MS = 10;
const pipe = new AppValidationPipe();

/** Raised to roll an atomic batch back once every item has been tried. */
class AtomicRollback extends Error {}

/** An entity tag (RFC 9110 §8.8.3), weak or strong, as an If-Match header lists them. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\uffff]*"$/;
/** The longest IfMatch an item may give (a header's value of about 30 tags). */
const IF_MATCH_MAX = 1024;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const guidText = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().toLowerCase() : null);

/**
 * Applies a batch of items of one resource (docs/bulk.md): each item through the resource's single
 * write — its validation, authorization, audit trail and everything that follows a commit — in an
 * order that writes the records other items refer to first, answered in the order sent. Each item
 * runs as one unit, between a savepoint and its release, so a failed item leaves nothing behind and
 * the others stay: in transactions of BULK_CHUNK items, or in the request's transaction (an
 * Idempotency-Key, or `atomic`). Atomic: once every item has been tried, any failure rolls all of
 * them back.
 *
 * The look-ups the batch needs are made once for all items (records by ExternalID, by ID); what
 * each item costs beyond that is its single write.
 */
export async function applyBulk<C extends object, U extends object, K extends string | number>(
  db: TenantDb,
  ctx: RequestContext,
  items: readonly BulkItemInput[],
  planOf: BulkPlanOf<C, U, K>,
  opts: BulkOptions,
): Promise<BulkRun> {
  const plan = planOf(ctx);
  const { uniqueKeys } = plan;
  const run = (outcomes: BulkOutcome[], committed: boolean): BulkRun => ({
    outcomes,
    committed,
    keys: () => (uniqueKeys ? writtenKeys(items, outcomes, uniqueKeys) : null),
  });
  if (!opts.atomic) {
    const outcomes = await runBatch(db, ctx, items, plan, planOf);
    return run(
      outcomes,
      outcomes.some((o) => o.status < 300),
    );
  }
  let outcomes: BulkOutcome[] = [];
  try {
    await db.savepoint(ctx, async () => {
      outcomes = await runBatch(db, ctx, items, plan, planOf);
      if (outcomes.some((o) => o.status >= 300)) throw new AtomicRollback();
    });
    return run(outcomes, true);
  } catch (e) {
    if (!(e instanceof AtomicRollback)) throw e;
    return run(
      outcomes.map((o) => (o.status < 300 ? notApplied(o.index) : o)),
      false,
    );
  }
}

/** Chunks written beside the commit of the one before (docs/bulk.md, "Two chunks at once"), and those of them written again alone: what tests read. */
export const BULK_OVERLAP = { started: 0, failed: 0 };

/**
 * A chunk's transaction under way (see `runBatch`): its items' indexes and, once it is ready, the
 * records they created or named (`added`); `done` answers those of the run that committed.
 */
interface ChunkWriting extends ChunkInFlight<readonly Added[]> {
  chunk: readonly number[];
  added: readonly Added[];
}

/**
 * The items in chunks of BULK_CHUNK, each chunk one transaction (a savepoint in the request's
 * when one runs) and each item a savepoint in it: an item still commits or fails on its own, and a
 * chunk costs one COMMIT — on MariaDB the commit's log flush, not the writes, was most of an item's
 * time. A chunk that loses a deadlock runs again whole, from the keys as they were before it.
 *
 * Two chunks at once (docs/bulk.md): on MySQL/MariaDB, when the chunks are transactions of their
 * own and the plan declares its unique keys, a chunk whose items name none of the records the
 * chunk before it wrote runs its items while that chunk's writes and commit are under way, on a
 * connection, a context and a plan of its own. Nothing here waits for one chunk inside the
 * other's transaction, so any wait between the two is the database's, which finds a cycle at once.
 * Their commits are not ordered: both take the site's change sequence with their audit rows, and
 * the later may take it first; the records either names are the other's to neither, so what is
 * stored is the same either way. One that fails beside the commit before (a lost deadlock, a
 * database that is gone) is written again alone once that commit has ended.
 */
async function runBatch<C extends object, U extends object, K extends string | number>(
  db: TenantDb,
  ctx: RequestContext,
  items: readonly BulkItemInput[],
  plan: BulkPlan<C, U, K>,
  planOf: BulkPlanOf<C, U, K>,
): Promise<BulkOutcome[]> {
  const landed = new Keys(plan.externalIds !== false ? (plan.entity as KeyedEntity) : null);
  const first = new Batch(db, ctx, items, plan, landed);
  await first.lookUp();
  const outcomes: BulkOutcome[] = new Array(items.length);
  const order = first.order();
  const turns = new Turns(BULK_SLICE_MS);
  const uniqueKeys = !db.isSqlite && !db.inTransaction(ctx) ? plan.uniqueKeys : undefined;
  /** Whether `chunk` names a record the chunk in flight (ready: its items have run) wrote. */
  const touchesBefore = (chunk: readonly number[], before: ChunkWriting, keys: readonly string[]) =>
    touches(
      chunk.map((i) => items[i]),
      writtenKeys(
        before.chunk.map((i) => items[i]),
        before.chunk.map((i) => outcomes[i]),
        keys,
      ),
    );
  const writing = (c: RequestContext, chunk: readonly number[], start: Keys): ChunkWriting => {
    const batch = new Batch(db, c, items, c === ctx ? plan : planOf(c), start);
    const w: ChunkWriting = {
      chunk,
      added: [],
      ...startChunk((ready) =>
        batch.write(chunk, outcomes, turns, (added) => {
          w.added = added;
          ready();
        }),
      ),
    };
    return w;
  };
  // A chunk that landed: the records it wrote are known to the chunks after it.
  const writes = new ChunksInFlight<ChunkWriting, readonly Added[]>((added) => landed.add(added));
  try {
    for (let k = 0; k < order.length; k += BULK_CHUNK) {
      const chunk = order.slice(k, k + BULK_CHUNK);
      const before = writes.inFlight;
      if (uniqueKeys && before && !touchesBefore(chunk, before, uniqueKeys)) {
        // It starts from the keys the chunk before knew once its items had run; it names none of
        // that chunk's records, so which of its runs commits changes nothing this one reads.
        BULK_OVERLAP.started++;
        if (await writes.beside(writing(ctx.beside(), chunk, landed.with(before.added)))) continue;
        BULK_OVERLAP.failed++;
      }
      // (A chunk alone may start from the landed keys themselves: they change only once it has committed.)
      await writes.alone(() => writing(ctx, chunk, landed));
    }
    await writes.land();
  } catch (e) {
    // Nothing of the batch is left running when it answers.
    await writes.settled();
    throw e;
  }
  return outcomes;
}

/**
 * An item's 400 when an ExternalRefs names an ExternalID no record of the site has (yet): its
 * outcome says `waiting`, so an import can try the row again once its file's later rows are written
 * (docs/imports.md, "References to later rows").
 */
class UnknownReference extends ValidationError {}

/** An item of a failed atomic batch that did not fail itself. */
function notApplied(index: number): BulkOutcome {
  return {
    index,
    status: 424,
    id: null,
    problem: {
      type: 'urn:pms:problem:not-applied',
      title: 'Not applied',
      status: 424,
      detail: 'The batch is atomic and another item failed: nothing was written',
    },
  };
}

/** A record a chunk created or named by its ExternalID: what the chunks after it know of it. */
interface Added {
  ext: string | null;
  id: string;
}

/** What a batch knows of its table's records: ExternalID → ID by table (found before the items run, then kept up to date as they create), and the IDs of its table that exist. */
class Keys {
  readonly byExternalId = new Map<KeyedEntity, Map<string, string>>();
  readonly existing = new Set<string>();

  /** `own`: the plan's table when its records carry an ExternalID. */
  constructor(private readonly own: KeyedEntity | null) {}

  copy(): Keys {
    const keys = new Keys(this.own);
    for (const [e, m] of this.byExternalId) keys.byExternalId.set(e, new Map(m));
    for (const id of this.existing) keys.existing.add(id);
    return keys;
  }

  /** These keys and the records a chunk wrote. */
  with(added: readonly Added[]): Keys {
    const keys = this.copy();
    keys.add(added);
    return keys;
  }

  /** The records a chunk wrote, as it wrote them. */
  add(added: readonly Added[]): void {
    for (const { ext, id } of added) {
      if (ext && this.own) this.ownExternalIds().set(ext, id);
      this.existing.add(id);
    }
  }

  /** The plan's table's ExternalID → ID. */
  ownExternalIds(): Map<string, string> {
    let map = this.byExternalId.get(this.own!);
    if (!map) this.byExternalId.set(this.own!, (map = new Map()));
    return map;
  }
}

class Batch<C extends object, U extends object, K extends string | number> {
  /** The chunk's records as `read` answers them, read ahead (`readAhead`); an item that writes one drops it. */
  private ahead: Map<string, object> = new Map();
  /** The keys as the chunk found them and as its items change them (a run starts again from `start`). */
  private keys: Keys;
  /** The records this run of the chunk created or named by ExternalID. */
  private added: Added[] = [];

  /** `start`: what the batch knows before the chunk (its look-ups fill it, for the batch's first Batch). */
  constructor(
    private readonly db: TenantDb,
    private readonly ctx: RequestContext,
    private readonly items: readonly BulkItemInput[],
    private readonly plan: BulkPlan<C, U, K>,
    private readonly start: Keys,
  ) {
    this.keys = start;
  }

  /**
   * One chunk's items in one transaction (see `runBatch`), their outcomes set in `outcomes`:
   * `ready` is told, with the records they created or named, once they have run and the chunk's
   * writes and commit are under way. Answers the records of the run that committed.
   */
  async write(chunk: readonly number[], outcomes: BulkOutcome[], turns: Turns, ready: (added: readonly Added[]) => void): Promise<readonly Added[]> {
    // What the chunk spends, for the metrics (BULK_CHUNKS), when anyone listens.
    const timed = BULK_CHUNKS.hasSubscribers;
    const started = timed ? performance.now() : 0;
    let read = 0;
    let ran = 0;
    // A chunk carries its items' held writes to its end (multi-row INSERTs, docs/bulk.md "Round
    // trips"), and runs again from its start when it must (in a transaction of its own, or from
    // its savepoint in the request's).
    await this.db.transactionCarrying(this.ctx, async () => {
      this.keys = this.start.copy();
      this.added = [];
      await this.readAhead(chunk);
      if (timed) read = performance.now();
      for (const i of chunk) {
        outcomes[i] = await this.one(i);
        await turns.take();
      }
      if (timed) ran = performance.now();
      ready(this.added);
    });
    if (timed) {
      const timing: BulkChunkTiming = {
        resource: this.plan.label,
        items: chunk.length,
        readsAhead: (read - started) / 1000,
        run: (ran - read) / 1000,
        commit: (performance.now() - ran) / 1000,
      };
      BULK_CHUNKS.publish(timing);
    }
    return this.added;
  }

  // ------------------------------------------------------------------ keys

  /** One statement per table (per 500 keys): the records the items name by ExternalID, and those whose ID they give. */
  async lookUp(): Promise<void> {
    const wanted = new Map<KeyedEntity, Set<string>>(this.keyed ? [[this.plan.entity as KeyedEntity, new Set()]] : []);
    const ids = new Set<string>();
    for (const item of this.items) {
      const own = this.keyed ? text(item.Record.ExternalID) : null;
      if (own) wanted.get(this.plan.entity as KeyedEntity)!.add(own);
      const id = this.idText(item.Record.ID);
      if (id) ids.add(id);
      for (const [f, ext] of Object.entries(item.ExternalRefs ?? {})) {
        const target = this.plan.refs[f];
        const value = text(ext);
        if (!target || !value) continue;
        if (!wanted.has(target)) wanted.set(target, new Set());
        wanted.get(target)!.add(value);
      }
    }
    for (const [entity, values] of wanted) {
      const map = new Map<string, string>();
      this.keys.byExternalId.set(entity, map);
      const list = [...values];
      for (let k = 0; k < list.length; k += 500) {
        const rows = await this.db.repo(this.ctx, entity).find({ where: { externalId: In(list.slice(k, k + 500)) }, select: { id: true, externalId: true } });
        for (const r of rows) if (r.externalId) map.set(r.externalId, r.id);
      }
    }
    // Integer IDs: only those that are integers are looked for (another is the item's 400, from its input class).
    const idList: (string | number)[] = this.plan.intIds ? [...ids].filter((v) => /^\d{1,15}$/.test(v)).map(Number) : [...ids];
    const table = this.plan.entity as EntityTarget<GuidTenantEntity>;
    for (let k = 0; k < idList.length; k += 500) {
      const rows = await this.db.repo(this.ctx, table).find({ where: { id: In(idList.slice(k, k + 500)) }, select: { id: true } });
      for (const r of rows) this.keys.existing.add(String(r.id));
    }
  }

  /**
   * The records a chunk's items will update, as far as their ID or ExternalID names them: locked
   * in one statement (their single updates then find them locked: ScopedReads.lock), what their
   * updates read besides (`prepare`), and their answers (`readMany`) for the items that may find
   * theirs unchanged: a changed record costs its writes, carried with the chunk's, instead of a
   * round trip for each read (docs/bulk.md, "Round trips"). In the chunk's transaction, so a
   * chunk that runs again reads them again.
   */
  private async readAhead(chunk: readonly number[]): Promise<void> {
    this.ahead = new Map();
    const ids = new Set<string>();
    for (const i of chunk) {
      const item = this.items[i];
      if (item.Op === 'create') continue;
      const found = this.known(this.idText(item.Record.ID), this.keyed ? text(item.Record.ExternalID) : null);
      if (found) ids.add(found);
    }
    // One record is read by its item as it would be anyway.
    if (ids.size < 2) return;
    const keys = [...ids].map((id) => this.key(id));
    if (!this.db.isSqlite) {
      const locked = await this.db.repo(this.ctx, this.plan.entity as EntityTarget<GuidTenantEntity>).lockMany(keys as string[]);
      await this.plan.prepare?.(locked as unknown as Record<string, unknown>[]);
    }
    if (this.plan.readMany) this.ahead = new Map(await this.plan.readMany(keys));
  }

  /** The ID of the record an item names by its `ID` (when it exists) or else its `ExternalID`, as far as the batch knows; null: none. */
  private known(given: string | null, ext: string | null): string | null {
    if (given) return this.keys.existing.has(given) ? given : null;
    return ext ? (this.keys.ownExternalIds().get(ext) ?? null) : null;
  }

  /** Whether the resource's records carry an ExternalID (the plan's `externalIds`). */
  private get keyed(): boolean {
    return this.plan.externalIds !== false;
  }

  /** An item's ID as the batch keeps it: a guid in lower case, an integer in its decimal form (another text as sent, for its input class to refuse). */
  private idText(v: unknown): string | null {
    if (!this.plan.intIds) return guidText(v);
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
    const t = text(v);
    return t !== null && /^\d{1,15}$/.test(t) ? String(Number(t)) : t;
  }

  /** The ID the single writes take: a number when the IDs are integers (as far as it is one). */
  private key(id: string): K {
    return (this.plan.intIds && /^\d{1,15}$/.test(id) ? Number(id) : id) as K;
  }

  /**
   * The order the items run in: the order sent, except that an item that creates (or upserts) a
   * record another item refers to — by ExternalRefs, or by the ID it gives — runs before it. A
   * cycle of references keeps the order sent (the first item of it then fails as its single
   * write would).
   */
  order(): number[] {
    const { items, plan } = this;
    const byExt = new Map<string, number>();
    const byId = new Map<string, number>();
    items.forEach((item, i) => {
      if (item.Op === 'update') return;
      const ext = this.keyed ? text(item.Record.ExternalID) : null;
      const id = this.idText(item.Record.ID);
      if (ext && !byExt.has(ext)) byExt.set(ext, i);
      if (id && !byId.has(id)) byId.set(id, i);
    });
    const selfRefs = Object.entries(plan.refs)
      .filter(([, entity]) => entity === plan.entity)
      .map(([f]) => f);
    const dependsOn = (i: number): number[] => {
      const out: number[] = [];
      for (const f of selfRefs) {
        const ext = text(items[i].ExternalRefs?.[f]);
        const byRef = ext === null ? undefined : byExt.get(ext);
        const byGuid = byId.get(this.idText(items[i].Record[f]) ?? '');
        for (const j of [byRef, byGuid]) if (j !== undefined && j !== i) out.push(j);
      }
      return out;
    };
    const state = new Uint8Array(items.length); // 0 new, 1 visiting, 2 done
    const order: number[] = [];
    const visit = (start: number) => {
      // Depth-first without recursion: a chain of 1,000 managers must not exhaust the stack.
      const stack: [number, number[]][] = [[start, dependsOn(start)]];
      state[start] = 1;
      while (stack.length) {
        const top = stack[stack.length - 1];
        const next = top[1].shift();
        if (next === undefined) {
          stack.pop();
          state[top[0]] = 2;
          order.push(top[0]);
        } else if (state[next] === 0) {
          state[next] = 1;
          stack.push([next, dependsOn(next)]);
        }
      }
    };
    for (let i = 0; i < items.length; i++) if (state[i] === 0) visit(i);
    return order;
  }

  // ------------------------------------------------------------------ one item

  private async one(index: number): Promise<BulkOutcome> {
    const item = this.items[index];
    let id: string | null = null;
    try {
      // The item's precondition stands for the If-Match header while it is written (the request's own header is not read).
      return await this.ctx.underIfMatch(this.precondition(item), async () => {
        const record = this.resolveRefs(item);
        const ext = this.keyed ? text(record.ExternalID) : null;
        const given = this.idText(record.ID);
        let found = this.known(given, ext);
        const match = this.plan.match;
        // (A create does not look: it creates, and answers as its single write does when the record exists.)
        if (!given && !ext && match && item.Op !== 'create') {
          const missing = match.fields.filter((f) => record[f] === undefined || record[f] === null || record[f] === '');
          if (missing.length === 0) found = await match.find(record);
          else if (item.Op === 'update')
            throw new ValidationError(missing.map((f) => ({ field: f, message: `An update without ID names its record by ${match.fields.join(' and ')}` })));
          if (item.Op === 'update' && !found)
            throw new NotFoundError(this.plan.label, `with ${match.fields.map((f) => `${f} ${String(record[f])}`).join(' and ')}`);
        }
        if (item.Op === 'update' && !given && !found) {
          if (!ext) throw new ValidationError([{ field: 'ID', message: `An update names its record by ${this.keyed ? 'ID or ExternalID' : 'ID'}` }]);
          throw new NotFoundError(this.plan.label, `with ExternalID "${ext}"`);
        }
        // The service numbers records with integer IDs: an upsert naming one updates it (404 when there is none).
        const updates = item.Op === 'update' || (item.Op === 'upsert' && (found !== null || (this.plan.intIds === true && given !== null)));
        id = updates ? (given ?? found) : given;
        const written = updates ? await this.update(id!, record) : await this.create(record);
        id = String(written);
        const added = { ext, id };
        this.keys.add([added]);
        this.added.push(added);
        return { index, status: 200, id, problem: null };
      });
    } catch (e) {
      return { index, id, ...this.failure(e) };
    }
  }

  /**
   * The item's `IfMatch` as an If-Match header value (docs/bulk.md, "Preconditions"): null when it
   * gives none (absent, null, blank); the item's 400 when it is not a header's value — `*`, or
   * entity tags separated by commas (RFC 9110) — or when the plan's records take none.
   */
  private precondition(item: BulkItemInput): string | null {
    const raw = item.IfMatch;
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return null;
    if (this.plan.conditional === false)
      throw new ValidationError([
        { field: 'IfMatch', message: `A ${this.plan.label} has no ETag of its own and its single write takes no If-Match: leave IfMatch out` },
      ]);
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (value.length > IF_MATCH_MAX || !(value === '*' || value.split(',').every((tag) => ENTITY_TAG.test(tag.trim()))))
      throw new ValidationError([
        { field: 'IfMatch', message: 'IfMatch must be the ETag the record’s GET answered, with its quotes ("3-AbC…"), several separated by commas, or *' },
      ]);
    return value;
  }

  /** The Record with the references ExternalRefs gives set to the IDs of the records they name. */
  private resolveRefs(item: BulkItemInput): Record<string, unknown> {
    const record = { ...item.Record };
    for (const [f, raw] of Object.entries(item.ExternalRefs ?? {})) {
      const ext = text(raw);
      const target = this.plan.refs[f];
      if (!ext) continue;
      if (!target)
        throw new ValidationError([{ field: `ExternalRefs.${f}`, message: `${f} names a record that has no ExternalID: give its ID in the Record` }]);
      const id = this.keys.byExternalId.get(target)?.get(ext);
      if (!id) throw new UnknownReference([{ field: `ExternalRefs.${f}`, message: `No record of this site has the ExternalID "${ext}"` }]);
      record[f] = id;
    }
    return record;
  }

  private async create(record: Record<string, unknown>): Promise<unknown> {
    assertAccess(this.ctx.user, this.plan.createRule);
    const dto = (await pipe.transform(record, { type: 'body', metatype: this.plan.create, data: '' })) as C;
    // An IfMatch names a version of a record that does not exist (yet): nothing can match it, as for
    // the PUTs that create (a basic role's dialog, the dashboard settings). `*` is no condition.
    if (this.ctx.ifMatchVersions !== null) throw new PreconditionFailedError();
    return this.db.savepoint(this.ctx, async () => (await this.plan.createOne(dto)).ID, { holdWrites: true });
  }

  private async update(id: string, record: Record<string, unknown>): Promise<unknown> {
    if (this.plan.updateRule) assertAccess(this.ctx.user, this.plan.updateRule);
    const key = this.key(id);
    const dto = (await pipe.transform({ ...record, ID: key }, { type: 'body', metatype: this.plan.update, data: '' })) as U & Record<string, unknown>;
    return this.db.savepoint(
      this.ctx,
      async () => {
        if (await this.unchanged(key, dto)) return id;
        // Written now: what was read ahead of it no longer answers it.
        this.ahead.delete(id);
        return (await this.plan.updateOne(key, dto)).ID;
      },
      { holdWrites: true },
    );
  }

  /**
   * Whether the update would change nothing the record's answer shows: then nothing is written (no
   * version, no audit row, no webhook). Only when the caller may change the record (`mayChange`),
   * so a refusal is answered as the single write answers it; a write-only member (a password)
   * always writes.
   */
  private async unchanged(id: K, dto: Record<string, unknown>): Promise<boolean> {
    let read: object;
    try {
      read = this.ahead.get(String(id)) ?? (await this.plan.read(id));
    } catch (e) {
      // A record the caller may not read (a permission they do not hold): the update answers as the single write does.
      if (e instanceof AppError) return false;
      throw e;
    }
    const current = toJsonValue(read) as Record<string, unknown>;
    const allowed = this.plan.mayChange ? this.plan.mayChange(current) : current.CanUpdate === true || this.ctx.user.isAdmin;
    if (!allowed) return false;
    if (current.Deleted === true) return false;
    // An IfMatch that names another version: the update runs and answers 412 as its UPDATE finds it.
    const versions = this.ctx.ifMatchVersions;
    const version = (read as { [RECORD_VERSION]?: unknown })[RECORD_VERSION];
    if (versions !== null && (typeof version !== 'number' || !versions.includes(version))) return false;
    const sent = toJsonValue(dto) as Record<string, unknown>;
    for (const [k, v] of Object.entries(sent)) {
      if (v === undefined) continue;
      if (!(k in current)) {
        if (v === null || v === '') continue;
        return false;
      }
      const now = current[k];
      if (now === v || (v === null && now === null)) continue;
      if (typeof v === 'string' && typeof now === 'string' && v.trim() === now) continue;
      return false;
    }
    return true;
  }

  /**
   * The status and problem of a failed item, its writes rolled back to its savepoint: a typed
   * error's, or a constraint's (409) as the single write would answer it. A lost deadlock or lock
   * wait, or a database that is gone, ends the transaction: it fails the chunk (which runs again,
   * or answers 503).
   */
  private failure(e: unknown): { status: number; problem: ProblemDetails; waiting?: true } {
    if (e instanceof CarriedWritesFailed) throw e;
    if (!(e instanceof AppError) && (isRetryableConflict(e) || isDatabaseUnavailable(e))) throw e;
    const { error, unexpected } = toAppError(e);
    if (unexpected) logger.error(`bulk item failed unexpectedly (request ${this.ctx.requestId}): ${(e as Error)?.stack ?? String(e)}`);
    const { requestId: _r, instance: _i, ...problem } = problemOf(error);
    return e instanceof UnknownReference ? { status: error.status, problem, waiting: true } : { status: error.status, problem };
  }
}

/** A bulk route's answer (docs/bulk.md): the request's items applied by `plan`, `atomic` as the query says. */
export async function answerBulk<C extends object, U extends object, K extends string | number>(
  db: TenantDb,
  ctx: RequestContext,
  body: BulkRequest,
  q: BulkQuery,
  planOf: BulkPlanOf<C, U, K>,
): Promise<BulkResultsDto> {
  const atomic = q.atomic === true;
  const run = await applyBulk(db, ctx, body.Items, planOf, { atomic });
  return bulkAnswer(run.outcomes, atomic, run.committed);
}
