import { columnMigration, m } from './schema-helpers.js';

/**
 * A counter on each site that `TenantDb.lockSite` moves on (docs/scaling.md, "Galera"): on a Galera
 * cluster `SELECT … FOR UPDATE` locks the row on one node only, so two tree moves through two nodes
 * would both pass their cycle checks. Writing the row makes Galera certify the lock on every node:
 * the second of two such transactions fails at commit (1213) and is run again, seeing the first.
 * Not part of any answer.
 */
export const SiteLockSeq1732000001800 = columnMigration('SiteLockSeq1732000001800', 'sites', m.int('lock_seq', { default: 0 }));
