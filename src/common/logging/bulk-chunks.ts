import { channel } from 'node:diagnostics_channel';

/**
 * What one chunk of a bulk write (docs/bulk.md, "Round trips") spent, published on BULK_CHUNKS as
 * it ends: a `POST /v4/{collection}/bulk` chunk or an import's. Seconds.
 */
export interface BulkChunkTiming {
  /** The resource's label, as its problems name it: `Individual`, `Department`… */
  resource: string;
  /** The items the chunk ran. */
  items: number;
  /** From the chunk's start to the end of its reads ahead (its transaction's start, the records locked and read; a chunk that ran again counts each run). */
  readsAhead: number;
  /** Its items, one after another (their validation, checks and writes held for the chunk). */
  run: number;
  /**
   * The writes the items left to the chunk's end, and its commit (in an atomic request, or one with
   * an Idempotency-Key, the release of the chunk's savepoint: the request commits at its end).
   */
  commit: number;
}

/**
 * The chunks of bulk writes, for whoever listens (node:diagnostics_channel: the data floor
 * publishes, the metrics of the http floor subscribe, neither imports the other). Nothing is
 * timed while no one listens.
 */
export const BULK_CHUNKS = channel('pms.bulk.chunk');
