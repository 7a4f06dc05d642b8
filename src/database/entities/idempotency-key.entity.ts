import { PrimaryColumn } from 'typeorm';
import { DateCol, DialectTable, IntCol, LongTextCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/**
 * One `Idempotency-Key` a caller used for a write, with the answer the write gave
 * (docs/idempotency.md). The key is the caller's per site: site, login account and the SHA-256 of
 * the key make the primary key. The row is written in the write's own transaction, so it exists
 * exactly when the write committed.
 *
 * The stored answer can be as large as a request body allows (1 MiB of text fields), more than a
 * MySQL `text` holds, so the answer column is `longtext` there and `text` on SQLite: one class per
 * dialect, registered by `entitiesFor()` in registry.ts.
 */
export abstract class IdempotencyKeyColumns {
  @PrimaryColumn({ type: 'varchar', length: 36, name: 'site_id' })
  siteId: string;

  /** The caller's login account (users.id). */
  @PrimaryColumn({ type: 'varchar', length: 36, name: 'user_id' })
  userId: string;

  /** Hex SHA-256 of the key: fixed length, and no collation can make two keys equal. */
  @PrimaryColumn({ type: 'varchar', length: 64, name: 'key_hash' })
  keyHash: string;

  /** Hex SHA-256 of method, path and the parsed body (docs/idempotency.md, "Same request"). */
  @StrCol('fingerprint', 64, { nullable: false })
  fingerprint: string;

  /** Method and path of the first request, e.g. `POST /v4/goals`, for the 409 message. */
  @StrCol('request', LIMITS.name, { nullable: false })
  request: string;

  /** HTTP status of the stored answer. */
  @IntCol('status')
  status: number;

  @DateCol('created', { nullable: false })
  created: Date;

  /** After this instant the key is treated as unused, and the sweep deletes the row. */
  @DateCol('expires', { nullable: false })
  expires: Date;

  /** The stored answer (see stored-answer.ts); `answer` is declared by the dialect's class. */
  abstract answer: string;
}

const IDEMPOTENCY_KEYS = DialectTable('idempotency_keys', [['ix_idempotency_keys_site_expires', ['siteId', 'expires']]]);

@IDEMPOTENCY_KEYS
export class IdempotencyKeyEntity extends IdempotencyKeyColumns {
  @LongTextCol('answer', true)
  answer: string;
}

@IDEMPOTENCY_KEYS
export class IdempotencyKeyMysqlEntity extends IdempotencyKeyColumns {
  @LongTextCol('answer', false)
  answer: string;
}
