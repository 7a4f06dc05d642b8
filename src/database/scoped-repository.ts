import { DeepPartial, FindOptionsWhere, In, ObjectLiteral } from 'typeorm';
import { actorIdOf } from '../common/context/request-context.js';
import { PreconditionFailedError } from '../common/errors/errors.js';
import { isPrimaryKeyViolation } from '../common/errors/db-errors.js';
import { announceWrite, fillDefaults, keptInsert, keptUpdate } from './kept-writes.js';
import { rowAsWritten } from './written-row.js';
import { sameValue } from './journal.js';
import type { TenantEntity } from './entities/base.entity.js';
import { createEntity } from './hydrate.js';
import { idTaken, PROTECTED, type Patch } from './row-store.js';
import { ScopedReads } from './scoped-reads.js';
import { newRecordId } from '../common/ids.js';

/**
 * A repository bound to one request's site (docs/architecture.md, "How a write runs"): the reads of
 * ScopedReads, and the writes. Every write sets or checks `site_id`, runs in the context's
 * transaction (starting one when none runs), and reports the row before and after to the
 * transaction's journal, which writes the audit trail before the commit.
 */
export class ScopedRepository<T extends TenantEntity & ObjectLiteral> extends ScopedReads<T> {
  // ------------------------------------------------------------------ writes

  /**
   * Inserts a record of the caller's site; id, site, audit and version columns are set here.
   * Always an INSERT, never an upsert: a supplied id that is taken — in any site, since ids are
   * primary keys — is a 409 `id-taken`, and a race on the same id fails in the database, never
   * overwriting the other row. The answer is the same wherever the id is used, and names no
   * record, so it tells a caller nothing about another site (docs/http-and-xml.md).
   *
   * `atCommit`: when the id is made here (a new uuid) and the insert is one kept statement, it is
   * sent when the transaction commits (TenantDb.keptAtCommit: on MySQL/MariaDB in the COMMIT's round
   * trip), not now. For a row nothing later in the transaction reads except other writes left for
   * the commit, which follow it in order, and whose failure the caller does not interpret: its new
   * uuid cannot clash, but any other unique index or a foreign key may refuse the row there, and
   * then the commit fails with that error and everything rolls back.
   */
  async insert(values: DeepPartial<T>, opts: { atCommit?: boolean } = {}): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      const repo = this.repo;
      const now = new Date();
      const row = stamped(settable(values as object, true), this.siteId, now, actorIdOf(this.ctx.caller));
      const entity = createEntity<T>(repo.metadata, row, () => repo.create(row as DeepPartial<T>));
      const rec = entity as Record<string, unknown>;
      const idCol = repo.metadata.primaryColumns[0];
      let madeId = false;
      if (idCol && !idCol.isGenerated) {
        if (rec.id === undefined || rec.id === null) {
          rec.id = newRecordId();
          madeId = true;
        } else if (await repo.exists({ where: { id: rec.id } as unknown as FindOptionsWhere<T> })) {
          throw idTaken(rec.id);
        }
      }
      // The answer is built from this object, without reading the row back.
      fillDefaults(repo.metadata, rec);
      try {
        // One statement: the entity is not read back (every column is set above), only a
        // generated id is taken from the insert's own result.
        const statement = keptInsert(repo.metadata, rec);
        const runner = repo.manager.queryRunner;
        let raw: unknown;
        if (statement && runner) {
          if (opts.atCommit && madeId) this.db.keptAtCommit(this.ctx, statement.sql, statement.params);
          // A unit that holds its inserts (a bulk item) sends them together; an id the database
          // generates must be read from the insert's own answer, so that insert goes now.
          else {
            if (!idCol?.isGenerated) this.db.writingRow(this.ctx, statement.sql, repo.metadata, rec.id as string);
            if (!idCol?.isGenerated && this.db.holdsWrites(this.ctx)) this.db.hold(this.ctx, statement.sql, statement.params);
            else raw = await runner.query(statement.sql, statement.params);
          }
          await announceWrite('afterInsert', repo.metadata, runner, rec);
        } else {
          raw = (
            await repo
              .createQueryBuilder()
              .insert()
              .into(repo.metadata.target)
              .values(entity as never)
              .updateEntity(false)
              .execute()
          ).raw;
        }
        const generated = this.db.generatedKeys(repo.metadata, raw);
        if (generated) Object.assign(rec, generated);
      } catch (e) {
        // Another unique index is the caller's to interpret (e.g. a duplicate membership).
        if (isPrimaryKeyViolation(e)) throw idTaken(rec.id);
        throw e;
      }
      this.journal(null, rec);
      return entity;
    });
  }

  /**
   * Inserts many records of the caller's site with few statements (a chunk of rows each): ids are
   * always generated, site, audit and version columns set here. For rows the service derives
   * itself (the archives of a closing period), never for input that may name its own id. Answers
   * the number of rows written.
   */
  async insertMany(values: DeepPartial<T>[], chunkSize = 200): Promise<number> {
    if (values.length === 0) return 0;
    return this.db.transaction(this.ctx, async () => {
      const repo = this.repo;
      const now = new Date();
      const by = actorIdOf(this.ctx.caller);
      const generated = repo.metadata.primaryColumns[0]?.isGenerated ?? false;
      const rows = values.map((v) => {
        const row = settable(v as object, false);
        if (!generated) row.id = newRecordId();
        return stamped(row, this.siteId, now, by);
      });
      for (let i = 0; i < rows.length; i += chunkSize) {
        await repo
          .createQueryBuilder()
          .insert()
          .values(rows.slice(i, i + chunkSize) as never)
          .updateEntity(false)
          .execute();
      }
      for (const row of rows) this.journal(null, row);
      return rows.length;
    });
  }

  /**
   * Writes the defined keys of `patch` (protected columns ignored) to the record `id` of the
   * caller's site in one `UPDATE … WHERE site_id = ? AND id = ?`, bumping its version. With
   * `ifMatch`, the versions the request's If-Match header names are part of that WHERE, so of
   * concurrent writers holding the same ETag exactly one succeeds. Answers the row as written: the
   * locked row with the values set, the audit columns and the version bumped when the database
   * stores every value exactly (src/database/written-row.ts), else the row read back in the same
   * transaction. 404 when the record is not in the site, 412 when If-Match names another version.
   */
  async update(id: string | number, patch: DeepPartial<T> | Patch, opts: { ifMatch?: boolean } = {}): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.before(id);
      const where: Patch = { siteId: this.siteId, id };
      const versions = opts.ifMatch ? this.ctx.ifMatchVersions : null;
      if (versions) where.version = In(versions.length ? versions : [-1]);
      // The row is locked (`before`) and no version is asked for: the UPDATE changes exactly it,
      // so in a unit that holds its writes it may wait to travel with the others. It sets only
      // the values the locked row does not hold already.
      const { affected, set } = await this.write(where, changedOnly(patch as Patch, before), !versions && this.db.holdsWrites(this.ctx));
      if (affected === 0) throw new PreconditionFailedError();
      const metadata = this.repo.metadata;
      const written = rowAsWritten(metadata, before, set);
      const after = written ? (Object.assign(metadata.create(), written) as T) : await this.get(id);
      this.journal(before, after);
      return after;
    });
  }

  /**
   * Sets columns on every row of the caller's site that matches (cascades, bulk flags), each row's
   * version bumped, in one UPDATE. Answers the number of rows changed.
   */
  async updateWhere(where: FindOptionsWhere<T>, patch: Patch): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      // The rows are read (and locked) first and changed by id: the trail records exactly them.
      const before = await this.lockedWhere(where);
      const ids = before.map((r) => r.id as string | number);
      let affected = 0;
      for (let i = 0; i < ids.length; i += 500) affected += (await this.write({ siteId: this.siteId, id: In(ids.slice(i, i + 500)) }, patch)).affected;
      const after = new Map((await this.findByIdsChunked(ids)).map((r) => [String(r.id), r]));
      for (const row of before) this.journal(row, after.get(String(row.id)) ?? null);
      return affected;
    });
  }

  /**
   * A value for `update`/`updateWhere` that adds `by` to a counter column in the UPDATE itself
   * (no read-modify-write across awaits).
   */
  plus(column: keyof T & string, by: number): () => string {
    const col = this.repo.metadata.findColumnWithPropertyName(column);
    if (!col) throw new Error(`${this.label} has no column ${column}`);
    const name = this.db.escape(col.databaseName);
    const n = Number(by);
    if (!Number.isFinite(n)) throw new Error('plus() takes a finite number');
    return () => `${name} + ${n}`;
  }

  /**
   * Removes the record `id` of the caller's site (for records without soft delete); with
   * `ifMatch`, only at the version the request names. 404 / 412 as `update`.
   */
  async remove(id: string | number, opts: { ifMatch?: boolean } = {}): Promise<void> {
    await this.db.transaction(this.ctx, async () => {
      const before = await this.before(id);
      const where: Patch = { siteId: this.siteId, id };
      const versions = opts.ifMatch ? this.ctx.ifMatchVersions : null;
      if (versions) where.version = In(versions.length ? versions : [-1]);
      const res = await this.repo.delete(where as FindOptionsWhere<T>);
      if (!res.affected) throw new PreconditionFailedError();
      this.journal(before, null);
    });
  }

  /** Removes matching rows of the caller's site (for records without soft delete). */
  async deleteWhere(where: FindOptionsWhere<T>): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.lockedWhere(where);
      const ids = before.map((r) => r.id as string | number);
      let affected = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const res = await this.repo.delete({ siteId: this.siteId, id: In(ids.slice(i, i + 500)) } as unknown as FindOptionsWhere<T>);
        affected += res.affected ?? 0;
      }
      for (const row of before) this.journal(row, null);
      return affected;
    });
  }

  /** One UPDATE of the rows `where` matches: the rows changed, and every value set (the audit columns included; the version is bumped). */
  private async write(where: Patch, patch: DeepPartial<T> | Patch, hold = false): Promise<{ affected: number; set: Patch }> {
    const set: Patch = {};
    for (const [k, v] of Object.entries(patch as Patch)) if (!PROTECTED.has(k) && v !== undefined) set[k] = v;
    set.updated = new Date();
    set.updatedBy = actorIdOf(this.ctx.caller);
    const repo = this.repo;
    const statement = keptUpdate(repo.metadata, set, where);
    const runner = repo.manager.queryRunner;
    // A write of one row by its id drops only what the transaction kept of that row.
    const id = where.id;
    if (statement && runner && (typeof id === 'string' || typeof id === 'number')) this.db.writingRow(this.ctx, statement.sql, repo.metadata, id, set);
    if (statement && runner && hold) {
      this.db.hold(this.ctx, statement.sql, statement.params);
      await announceWrite('afterUpdate', repo.metadata, runner);
      return { affected: 1, set };
    }
    if (statement && runner) {
      const affected = (await runner.query(statement.sql, statement.params, true)).affected ?? 0;
      await announceWrite('afterUpdate', repo.metadata, runner);
      return { affected, set };
    }
    const version = this.db.escape('version');
    const res = await repo
      .createQueryBuilder()
      .update()
      .set({ ...set, version: () => `${version} + 1` } as never)
      .where(where as FindOptionsWhere<T>)
      .execute();
    return { affected: res.affected ?? 0, set };
  }
}

/**
 * `patch` without the values `before` holds already. `before` is the row as the transaction locked
 * it (or as its own writes left it), the state the audit trail's changes are worked out from, so
 * the UPDATE sets exactly the fields the trail records as changed (and the data layer's stamps):
 * an upsert of a person whose title alone changed sets the title, not their 40 fields. Values
 * compared as they are: a value of another type or form than the one read (a boolean against
 * 0/1, an object) counts as changed and is set.
 */
function changedOnly(patch: Patch, before: Record<string, unknown>): Patch {
  const out: Patch = {};
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v !== undefined && !sameValue(v, before[k])) out[k] = v;
  }
  return out;
}

/** `row` with the columns the data layer sets on a new record: its site, who made it and when, version 1. */
function stamped(row: Record<string, unknown>, siteId: string, now: Date, by: string | null): Record<string, unknown> {
  row.siteId = siteId;
  row.created = now;
  row.createdBy = by;
  row.updated = now;
  row.updatedBy = by;
  row.version = 1;
  return row;
}

/**
 * `values` without the columns the data layer sets itself (PROTECTED; `id` kept when `keepId`).
 * A loop: Object.entries, filter and fromEntries, then a spread, cost about 25 µs on a person's 40
 * fields, a tenth of a bulk item's CPU (docs/bulk.md, "Cost").
 */
function settable(values: object, keepId: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const from = values as Record<string, unknown>;
  for (const k of Object.keys(from)) if (!PROTECTED.has(k) || (keepId && k === 'id')) out[k] = from[k];
  return out;
}
