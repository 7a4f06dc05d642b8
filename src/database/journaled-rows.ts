import { DeepPartial, EntityTarget, FindOptionsWhere, ObjectLiteral, Repository } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { announceWrite, fillDefaults, keptInsert } from './kept-writes.js';
import { journalChange, type RowStore } from './row-store.js';

/** The reads of a global table (sites, login accounts): its writes go through `TenantDb.journaled` so the trail records them. */
export type GlobalReads<T extends ObjectLiteral> = Pick<
  Repository<T>,
  'find' | 'findBy' | 'findOne' | 'findOneBy' | 'findAndCount' | 'count' | 'countBy' | 'exists' | 'existsBy' | 'create' | 'createQueryBuilder' | 'metadata'
>;

/**
 * The writes of a global table — login accounts, sites — recorded in the audit trail as the
 * scoped path records tenant rows (docs/audit.md): each row changed is read (and locked) before
 * and read after, in the context's transaction, and journaled in the trail of the site `siteOf`
 * names (an account's home site, a site's own). Password hashes and other secrets are recorded
 * only as changed.
 */
export class JournaledRows<T extends ObjectLiteral & { id: string }> {
  constructor(
    private readonly db: Pick<RowStore, 'managerOf' | 'isSqlite' | 'transaction' | 'holdsWrites' | 'hold' | 'writingRow'>,
    private readonly ctx: RequestContext,
    private readonly target: EntityTarget<T>,
    private readonly siteOf: (row: T) => string,
  ) {}

  private get repo(): Repository<T> {
    return this.db.managerOf(this.ctx).getRepository(this.target);
  }

  /**
   * Inserts the row (its id given) and answers it as stored: the columns it leaves unset take their
   * defaults here as in the database, so the row is not read back; in a unit that holds its
   * inserts (a bulk item) the statement goes with the unit's others.
   */
  async insert(values: DeepPartial<T> & { id: string }): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      const repo = this.repo;
      const row = repo.create(values) as T;
      fillDefaults(repo.metadata, row);
      const statement = keptInsert(repo.metadata, row);
      const runner = repo.manager.queryRunner;
      if (!statement || !runner) {
        await repo.insert(values as never);
        const stored = (await this.read(values.id, false))!;
        this.journal(null, stored);
        return stored;
      }
      // A new row by its id: it drops only what the transaction kept of that row (TenantDb.writingRow).
      this.db.writingRow(this.ctx, statement.sql, repo.metadata, values.id);
      if (this.db.holdsWrites(this.ctx)) this.db.hold(this.ctx, statement.sql, statement.params);
      else await runner.query(statement.sql, statement.params);
      await announceWrite('afterInsert', repo.metadata, runner, row);
      this.journal(null, row);
      return row;
    });
  }

  /**
   * Sets `patch` on the row `id` where `where` also holds (e.g. a row version); answers the number
   * of rows changed (0: no such row, or `where` did not hold).
   */
  async update(id: string, patch: Record<string, unknown>, where: FindOptionsWhere<T> = {}): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.read(id, true);
      if (!before) return 0;
      const res = await this.repo
        .createQueryBuilder()
        .update()
        .set(patch as never)
        .where({ ...where, id } as FindOptionsWhere<T>)
        .execute();
      const affected = res.affected ?? 0;
      if (affected) this.journal(before, await this.read(id, false));
      return affected;
    });
  }

  /** The row, locked for the change that follows (MySQL/MariaDB; SQLite runs one write transaction at a time). */
  private read(id: string, lock: boolean): Promise<T | null> {
    const qb = this.repo.createQueryBuilder('t').where('t.id = :id', { id });
    if (lock && !this.db.isSqlite) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  private journal(before: T | null, after: T | null): void {
    journalChange(this.ctx, this.repo.metadata, before && { ...before }, after && { ...after }, this.siteOf((after ?? before)!));
  }
}
