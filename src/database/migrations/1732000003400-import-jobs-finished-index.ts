import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * The retention of ended imports (docs/imports.md, "Retention") finds, site by site, the jobs that
 * ended before its cutoff, oldest first: `ix_import_jobs_site_finished (site_id, finished)`, the
 * site first as every index. A queued, running or receiving job has no `finished` yet. An index
 * built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const TABLE = 'import_jobs';
const INDEX = { name: 'ix_import_jobs_site_finished', columns: ['site_id', 'finished'] };

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class ImportJobsFinishedIndex1732000003400 implements MigrationInterface {
  name = 'ImportJobsFinishedIndex1732000003400';

  async up(q: QueryRunner): Promise<void> {
    const found = (await q.getTable(TABLE))?.indices.find((i) => i.name === INDEX.name);
    if (found && same(found.columnNames, INDEX.columns)) return;
    if (found) await q.dropIndex(TABLE, INDEX.name);
    await q.createIndex(TABLE, new TableIndex(m.index(INDEX.name, INDEX.columns)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex(TABLE, INDEX.name);
  }
}
