import { Table } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/**
 * The Idempotency-Keys of writes and their stored answers (docs/idempotency.md). Primary key
 * (site, account, key hash); the sweep deletes expired rows site by site with the
 * (site_id, expires) index.
 */
export const IdempotencyKeys1732000000900 = tablesMigration('IdempotencyKeys1732000000900', (q) => {
  const sqlite = q.connection.driver.options.type === 'better-sqlite3';
  return [
    new Table({
      name: 'idempotency_keys',
      columns: [
        { ...m.guid('site_id'), isPrimary: true },
        { ...m.guid('user_id'), isPrimary: true },
        { ...m.str('key_hash', 64, false), isPrimary: true },
        m.str('fingerprint', 64, false),
        m.str('request', MIGRATED_LIMITS.name, false),
        m.int('status'),
        // Longer than a MySQL `text` holds (the entity's LongTextCol, src/database/columns.ts).
        { name: 'answer', type: sqlite ? 'text' : 'longtext', isNullable: false },
        m.date('created', false),
        m.date('expires', false),
      ],
      indices: [m.index('ix_idempotency_keys_site_expires', ['site_id', 'expires'])],
    }),
  ];
});
