import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The audit trail becomes a queried list (`GET /v4/audit?filter=…&sort=…`, docs/queries.md): its
 * filterable fields are Seq (the primary key, site first), Kind (ix_audit_log_kind), RowID
 * (ix_audit_log_row), ActorID (ix_audit_log_actor) and At, which had only `ix_audit_log_at (at)`,
 * an index without the site. That one is replaced by `ix_audit_log_site_at (site_id, at, seq)`:
 * site first, so a filter or sort on At reads only the caller's site's entries, and the retention
 * sweep (per site, `at < ?`) is served by it as well; the trail keeps the same number of indexes,
 * so a write appends no more than before. An index built beforehand with these columns (Galera
 * RSU, docs/scaling.md) is found and kept.
 */
const NEW = { name: 'ix_audit_log_site_at', columns: ['site_id', 'at', 'seq'] };
const OLD = { name: 'ix_audit_log_at', columns: ['at'] };

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class AuditListQueryIndexes1732000003200 implements MigrationInterface {
  name = 'AuditListQueryIndexes1732000003200';

  async up(q: QueryRunner): Promise<void> {
    const indices = (await q.getTable('audit_log'))?.indices ?? [];
    const found = indices.find((i) => i.name === NEW.name);
    if (found && !same(found.columnNames, NEW.columns)) await q.dropIndex('audit_log', NEW.name);
    if (!found || !same(found.columnNames, NEW.columns)) await q.createIndex('audit_log', new TableIndex({ name: NEW.name, columnNames: NEW.columns }));
    if (indices.some((i) => i.name === OLD.name)) await q.dropIndex('audit_log', OLD.name);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex('audit_log', new TableIndex({ name: OLD.name, columnNames: OLD.columns }));
    await q.dropIndex('audit_log', NEW.name);
  }
}
