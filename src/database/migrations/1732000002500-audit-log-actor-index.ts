import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * An index of the change log by who made each change, site first: a dashboard answers a caller's
 * read from the summaries only when none of that caller's own changes is still waiting for them
 * (docs/dashboards.md, "How fresh"), found with one dive into this index; and the audit trail's
 * `actor` filter walks it instead of the whole site's trail. Built online on MariaDB/MySQL
 * (InnoDB adds a secondary index without blocking writes; on Galera it is replicated in total
 * order: docs/scaling.md says how to build it beforehand, which this migration then finds).
 */
export class AuditLogActorIndex1732000002500 implements MigrationInterface {
  name = 'AuditLogActorIndex1732000002500';

  async up(q: QueryRunner): Promise<void> {
    // Built beforehand (node by node on Galera, docs/scaling.md): nothing to do.
    const table = await q.getTable('audit_log');
    if (table?.indices.some((i) => i.name === 'ix_audit_log_actor')) return;
    await q.createIndex('audit_log', new TableIndex({ name: 'ix_audit_log_actor', columnNames: ['site_id', 'actor_id', 'seq'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('audit_log', 'ix_audit_log_actor');
  }
}
