import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * The indexes behind the fields of the list of a site's imports, `GET /v4/imports`, which takes
 * `filter=` and `sort=` (docs/queries.md): each starts with site_id, then the field, so a filter on
 * it reads only the index entries it selects. State, Kind, Mode and Format; Created (the list's own
 * order, newest first) had ix_import_jobs_site_created, Finished ix_import_jobs_site_finished
 * (1732000003400), and ID is the primary key.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const TABLE = 'import_jobs';
const INDEXES: readonly { name: string; columns: string[] }[] = [
  { name: 'ix_import_jobs_site_state', columns: ['site_id', 'state'] },
  { name: 'ix_import_jobs_site_kind', columns: ['site_id', 'kind'] },
  { name: 'ix_import_jobs_site_mode', columns: ['site_id', 'mode'] },
  { name: 'ix_import_jobs_site_format', columns: ['site_id', 'format'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class ImportJobListQueryIndexes1732000003410 implements MigrationInterface {
  name = 'ImportJobListQueryIndexes1732000003410';

  async up(q: QueryRunner): Promise<void> {
    for (const { name, columns } of INDEXES) {
      const found = (await q.getTable(TABLE))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(TABLE, name);
      await q.createIndex(TABLE, new TableIndex(m.index(name, columns)));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name } of [...INDEXES].reverse()) await q.dropIndex(TABLE, name);
  }
}
