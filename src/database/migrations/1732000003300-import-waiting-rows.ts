import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * Rows of an import that wait for a record further down their file (docs/imports.md, "References
 * to later rows"): the job counts them and carries its retry passes (`rows_waiting`, `retry_pass`,
 * `retry_written`, `retry_final`); `import_waiting_rows` holds each with its bulk item (`longtext`
 * on MySQL/MariaDB) and its last problem, keyed by the site, the job, the pass that tries it next
 * and its position in the file. `claims_idle` counts the claims of a job since a chunk of it last
 * committed (a job that never moves on fails: ImportProcessor, MAX_IDLE_CLAIMS).
 */
const JOB_COLUMNS = [
  m.int('rows_waiting', { default: 0 }),
  m.int('retry_pass', { default: 0 }),
  m.int('retry_written', { default: 0 }),
  m.int('retry_final', { default: 0 }),
  m.int('claims_idle', { default: 0 }),
];

export class ImportWaitingRows1732000003300 implements MigrationInterface {
  name = 'ImportWaitingRows1732000003300';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns(
      'import_jobs',
      JOB_COLUMNS.map((c) => new TableColumn(c)),
    );
    const long = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
    await q.createTable(
      m.tenantTable({
        name: 'import_waiting_rows',
        id: 'int',
        versioned: true,
        columns: [
          m.guid('import_id'),
          m.int('row_no'),
          m.int('line'),
          m.int('pass'),
          m.str('external_id', 255),
          m.text('problem', false),
          { name: 'item', type: long, isNullable: false },
        ],
        indices: [m.index('ux_import_waiting_rows_pass', ['site_id', 'import_id', 'pass', 'row_no'], true)],
        foreignKeys: [m.belongsTo('fk_import_waiting_rows_job', 'import_id', 'import_jobs')],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('import_waiting_rows', true);
    for (const c of [...JOB_COLUMNS].reverse()) await q.dropColumn('import_jobs', c.name);
  }
}
