import { m, tablesMigration } from './schema-helpers.js';

/**
 * File imports (docs/imports.md): the jobs, their files in parts (`longtext` on MySQL/MariaDB,
 * where `text` holds 64 KiB) and the rows that failed. Every index starts with site_id; one queued
 * or running import per site is held by the unique index on (site_id, active).
 */
export const ImportJobs1732000002700 = tablesMigration('ImportJobs1732000002700', (q) => {
  const long = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
  return [
    m.tenantTable({
      name: 'import_jobs',
      versioned: true,
      columns: [
        m.str('kind', 40, false),
        m.str('mode', 10, false),
        m.str('format', 10, false),
        m.str('state', 12, false),
        m.int('active', { nullable: true }),
        m.int('file_bytes', { default: 0 }),
        m.int('parts', { default: 0 }),
        m.int('total_rows', { nullable: true }),
        m.int('next_row', { default: 0 }),
        m.int('rows_written', { default: 0 }),
        m.int('rows_failed', { default: 0 }),
        m.text('caller', false),
        m.date('started'),
        m.date('finished'),
        m.str('problem', 500),
        m.str('lease_owner', 64),
        m.date('lease_until'),
      ],
      indices: [m.index('ix_import_jobs_site_created', ['site_id', 'created']), m.index('ux_import_jobs_site_active', ['site_id', 'active'], true)],
    }),
    m.tenantTable({
      name: 'import_file_parts',
      id: 'int',
      versioned: true,
      columns: [m.guid('import_id'), m.int('part_no'), { name: 'data', type: long, isNullable: false }],
      indices: [m.index('ux_import_file_parts_part', ['site_id', 'import_id', 'part_no'], true)],
      foreignKeys: [m.belongsTo('fk_import_file_parts_job', 'import_id', 'import_jobs')],
    }),
    m.tenantTable({
      name: 'import_errors',
      id: 'int',
      versioned: true,
      columns: [m.guid('import_id'), m.int('line'), m.int('status'), m.str('external_id', 255), m.text('problem', false)],
      indices: [m.index('ix_import_errors_job', ['site_id', 'import_id', 'line'])],
      foreignKeys: [m.belongsTo('fk_import_errors_job', 'import_id', 'import_jobs')],
    }),
  ];
});
