import { Table } from 'typeorm';
import { m, tablesMigration } from './schema-helpers.js';

/**
 * History and events (docs/audit.md, docs/delta-sync.md, docs/events.md):
 * - `change_seqs`: each site's change sequence, moved on by every write transaction just before it
 *   commits (its row lock makes sequence order commit order);
 * - `audit_log`: one row per changed record, numbered by that sequence: the audit trail, the change
 *   log delta sync reads and the outbox webhooks are delivered from;
 * - `webhooks` and `webhook_deliveries`.
 * Long texts (a changed comment before and after, a delivered payload) are `longtext` on
 * MySQL/MariaDB, where `text` holds 64 KiB.
 */
export const HistoryEvents1732000001900 = tablesMigration('HistoryEvents1732000001900', (q) => {
  const long = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
  return [
    new Table({ name: 'change_seqs', columns: [{ ...m.guid('site_id'), isPrimary: true }, m.int('seq', { default: 0 })] }),
    new Table({
      name: 'audit_log',
      columns: [
        { ...m.guid('site_id'), isPrimary: true },
        { ...m.int('seq'), isPrimary: true },
        m.str('kind', 40, false),
        m.str('row_id', 36, false),
        m.str('action', 10, false),
        m.bool('gone'),
        { name: 'changes', type: long, isNullable: false },
        m.str('actor_id', 64),
        m.str('actor_kind', 20, false),
        m.str('actor_name', 256),
        m.str('request_id', 64),
        m.date('at', false),
      ],
      indices: [
        m.index('ix_audit_log_kind', ['site_id', 'kind', 'seq']),
        m.index('ix_audit_log_row', ['site_id', 'row_id', 'seq']),
        // The retention sweep finds the oldest rows of every site (docs/audit.md, "Retention").
        m.index('ix_audit_log_at', ['at']),
      ],
    }),
    m.tenantTable({
      name: 'webhooks',
      versioned: true,
      columns: [
        m.str('url', 2000, false),
        m.text('event_types', false),
        m.str('secret', 100, false),
        m.str('previous_secret', 100),
        m.date('previous_secret_expires'),
        m.str('description', 500),
        m.bool('active', true),
        m.str('disabled_reason', 500),
        m.int('cursor_seq', { default: 0 }),
        m.date('failing_since'),
        m.int('attempts', { default: 0 }),
        m.date('next_attempt'),
        m.str('lease_owner', 64),
        m.date('lease_until'),
      ],
      indices: [m.index('ix_webhooks_site', ['site_id', 'id'])],
    }),
    m.tenantTable({
      name: 'webhook_deliveries',
      versioned: true,
      columns: [
        m.guid('webhook_id'),
        m.str('event_id', 80, false),
        m.str('event_type', 60, false),
        m.int('seq', { default: 0 }),
        m.int('attempt', { default: 1 }),
        m.str('status', 20, false),
        m.int('response_code', { nullable: true }),
        m.int('duration_ms', { default: 0 }),
        m.str('error', 500),
        { name: 'payload', type: long, isNullable: false },
      ],
      // No foreign key: deleting a webhook deletes its log in the same transaction (webhooks.service.ts).
      indices: [m.index('ix_webhook_deliveries_webhook', ['site_id', 'webhook_id', 'created'])],
    }),
  ];
});
