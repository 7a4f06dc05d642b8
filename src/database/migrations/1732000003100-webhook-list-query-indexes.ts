import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the webhook lists, which take `filter=` and `sort=` (docs/queries.md):
 * each starts with site_id and the list's own scope, then the field, so a filter on it reads only the
 * index entries it selects and a sort on it walks the index in order and stops after the page.
 *
 * Webhooks, listed for the site: Created (the list's own order) and Active; ID is the primary key.
 * A webhook's delivery log, listed per webhook newest first: Created then Attempt (the log's own
 * order; ix_webhook_deliveries_webhook ended at Created, and retention still walks it), Status,
 * EventType and EventID in that scope.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'webhooks', name: 'ix_webhooks_site_created', columns: ['site_id', 'created'] },
  { table: 'webhooks', name: 'ix_webhooks_site_active', columns: ['site_id', 'active', 'created'] },
  { table: 'webhook_deliveries', name: 'ix_webhook_deliveries_webhook_order', columns: ['site_id', 'webhook_id', 'created', 'attempt'] },
  { table: 'webhook_deliveries', name: 'ix_webhook_deliveries_webhook_status', columns: ['site_id', 'webhook_id', 'status', 'created'] },
  { table: 'webhook_deliveries', name: 'ix_webhook_deliveries_webhook_type', columns: ['site_id', 'webhook_id', 'event_type', 'created'] },
  { table: 'webhook_deliveries', name: 'ix_webhook_deliveries_webhook_event', columns: ['site_id', 'webhook_id', 'event_id'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class WebhookListQueryIndexes1732000003100 implements MigrationInterface {
  name = 'WebhookListQueryIndexes1732000003100';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(table, name);
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) await q.dropIndex(table, name);
  }
}
