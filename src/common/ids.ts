import { v7 } from 'uuid';

/**
 * A new record's ID (docs/decisions.md, "Record IDs"): a GUID of RFC 9562's version 7, whose
 * first 48 bits are the millisecond it was made and the rest random (the `uuid` package, with its
 * counter keeping IDs made in one millisecond in order). InnoDB keeps a table's rows in the order
 * of its primary key: a version 4 GUID lands each new row on a random page of a large table,
 * splitting and dirtying pages all over it, where these land at its end. An ID is not a secret
 * (every read is authorized); the millisecond it tells is the record's `Created`.
 */
export function newRecordId(): string {
  return v7();
}
