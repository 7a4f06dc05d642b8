import { Table } from 'typeorm';
import { m, tablesMigration } from './schema-helpers.js';

/**
 * Dashboard summaries (docs/dashboards.md, "Summaries"): the service's own state, kept by the
 * summary builder from the change log, never written by a request.
 * - `dashboard_summaries`: per site, period and dashboard row (an individual, a department or an
 *   organization), the additive counts and sums its figures are computed from (`sums`, JSON);
 * - `dashboard_summary_state`: per site, the change sequence number the summaries reflect
 *   (`built_seq`), the instant their time-dependent figures were computed at (`time_at`) and the
 *   next instant at which time alone changes one of them (`valid_until`), and the lease of the
 *   replica building them.
 */
export const DashboardSummaries1732000002200 = tablesMigration('DashboardSummaries1732000002200', (q) => {
  const long = q.connection.options.type === 'better-sqlite3' ? 'text' : 'mediumtext';
  return [
    new Table({
      name: 'dashboard_summaries',
      columns: [
        { ...m.guid('site_id'), isPrimary: true },
        { ...m.int('period_id'), isPrimary: true },
        { ...m.int('row_type'), isPrimary: true },
        { ...m.guid('row_id'), isPrimary: true },
        { name: 'sums', type: long, isNullable: false },
      ],
    }),
    new Table({
      name: 'dashboard_summary_state',
      columns: [
        { ...m.guid('site_id'), isPrimary: true },
        m.int('built_seq', { default: 0 }),
        m.date('time_at'),
        m.date('valid_until'),
        m.str('lease_owner', 64),
        m.date('lease_until'),
      ],
    }),
  ];
});
