import { Column, PrimaryColumn } from 'typeorm';
import { DateCol, DialectTable, LongTextCol, StrCol } from '../columns.js';

/**
 * The audit trail (docs/audit.md): one row per changed record, numbered by the site's change
 * sequence. Written only by the journal (src/database/journal.ts) with its own statements, in the
 * write's transaction; this mapping is for reading it as a queried list (`GET /v4/audit?filter=…`,
 * docs/queries.md): the list-query statements take its table and column names from here, and the
 * schema test keeps it in step with the migrations (1732000001900, 1732000002500, 1732000003200).
 *
 * The key is (site, sequence number): `seq` is the entry's key within its site, as `id` is a
 * record's. A changed comment before and after can be longer than a MySQL `text` holds, so
 * `changes` is `longtext` there and `text` on SQLite: one class per dialect (registry.ts).
 */
export abstract class AuditLogColumns {
  @PrimaryColumn({ type: 'varchar', length: 36, name: 'site_id' })
  siteId: string;

  @PrimaryColumn({ type: 'integer', name: 'seq' })
  seq: number;

  /** The kind of record (`individual`, `organization-member`, `user`, `site`…). */
  @StrCol('kind', 40, { nullable: false })
  kind: string;

  @StrCol('row_id', 36, { nullable: false })
  rowId: string;

  /** `create`, `update`, `delete` or `undelete`. */
  @StrCol('action', 10, { nullable: false })
  action: string;

  /** A hard delete (the record is gone). */
  @Column({ type: 'boolean', name: 'gone', default: false })
  gone: boolean;

  @StrCol('actor_id', 64)
  actorId: string | null;

  @StrCol('actor_kind', 20, { nullable: false })
  actorKind: string;

  @StrCol('actor_name', 256)
  actorName: string | null;

  @StrCol('request_id', 64)
  requestId: string | null;

  /** The commit time (the server's clock on MySQL/MariaDB). */
  @DateCol('at', { nullable: false })
  at: Date;

  /** Each changed field before and after, as JSON; declared by the dialect's class. */
  abstract changes: string;
}

const AUDIT_LOG = DialectTable('audit_log', [
  ['ix_audit_log_kind', ['siteId', 'kind', 'seq']],
  ['ix_audit_log_row', ['siteId', 'rowId', 'seq']],
  ['ix_audit_log_actor', ['siteId', 'actorId', 'seq']],
  ['ix_audit_log_site_at', ['siteId', 'at', 'seq']],
]);

@AUDIT_LOG
export class AuditLogEntity extends AuditLogColumns {
  @LongTextCol('changes', true)
  changes: string;
}

@AUDIT_LOG
export class AuditLogMysqlEntity extends AuditLogColumns {
  @LongTextCol('changes', false)
  changes: string;
}
