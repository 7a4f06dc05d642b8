import type { AggregateRow, SourceName } from './dashboards.statements.js';
import type { DashboardSettingsDto } from './dto/dashboard-settings.dto.js';

/**
 * The fixed sample of `GET /dashboards/sample` (docs/dashboards.md): the records of an imaginary
 * individual, turned into figures by the same formulas as a real dashboard with the site's
 * thresholds, switches and colors, so an administrator sees what a change of settings does.
 */
export const SAMPLE_NAME = 'Sample Individual';

/** Attainments (%) of the sample's ten measured metrics, and which are 80/20 metrics. */
export const SAMPLE_METRICS: readonly { attainment: number; is8020: boolean }[] = [
  { attainment: 135, is8020: false },
  { attainment: 112, is8020: true },
  { attainment: 104, is8020: false },
  { attainment: 97, is8020: true },
  { attainment: 92, is8020: false },
  { attainment: 88, is8020: true },
  { attainment: 75, is8020: false },
  { attainment: 71, is8020: false },
  { attainment: 64, is8020: true },
  { attainment: 40, is8020: false },
];

/** [count, completed or held, …] per level, ratings as [count, sum]. */
export const SAMPLE_RECORDS = {
  commitments: { organization: [4, 3], department: [8, 5], individual: [2, 2] },
  dialogs: { organization: [2, 2], department: [4, 3], project: [3, 2], individual: [6, 5] },
  /** [created, completed, completed or overdue]: the rest are open and not yet due */
  tasks: { organization: [1, 1, 1], department: [3, 2, 3], project: [4, 3, 4], individual: [6, 4, 5] },
  goals: [5, 3],
  /** active, on time, completed, due-date moves */
  projects: [6, 5, 2, 3],
  departmentProjects: [24, 19, 7, 11],
  /** [count, sum of ratings 1–5] */
  leader: { evaluationcriteria: [4, 16], corevalue: [3, 12], other: [2, 8] },
  team: { corevalue: [3, 13], other: [2, 8] },
  self: [5, 21],
  basicRoles: [2, 7],
} as const;

const row = (src: SourceName, grp: string, grp2: string, n: number, a = 0, b = 0, c = 0, d = 0, e = 0, s = 0): AggregateRow => ({
  root: 'sample',
  src,
  grp,
  grp2,
  n,
  a,
  b,
  c,
  d,
  e,
  s,
});

/** The sample's aggregate rows under the given thresholds (the buckets depend on them). */
export function sampleAggregates(settings: Pick<DashboardSettingsDto, 'Threshold1' | 'Threshold2' | 'Threshold3'>): {
  own: AggregateRow[];
  dept: AggregateRow[];
} {
  const r = SAMPLE_RECORDS;
  const own: AggregateRow[] = [];
  for (const [lvl, [n, a]] of Object.entries(r.commitments)) own.push(row('commitments', lvl, '', n, a));
  for (const [lvl, [n, a]] of Object.entries(r.dialogs)) own.push(row('dialogs', lvl, '', n, a));
  for (const [lvl, [n, a, b]] of Object.entries(r.tasks)) own.push(row('tasks', lvl, '', n, a, b));
  own.push(row('goals', '', '', r.goals[0], r.goals[1]));
  const { Threshold1: t1, Threshold2: t2, Threshold3: t3 } = settings;
  const ms = SAMPLE_METRICS;
  own.push(
    row(
      'metrics',
      '',
      '',
      ms.length,
      ms.filter((m) => m.attainment >= t3).length,
      ms.filter((m) => m.attainment >= t2 && m.attainment < t3).length,
      ms.filter((m) => m.attainment >= t1 && m.attainment < t2).length,
      ms.filter((m) => m.is8020).length,
      ms.filter((m) => m.is8020 && m.attainment >= t2).length,
      ms.filter((m) => m.is8020).reduce((sum, m) => sum + Math.min(100, m.attainment), 0),
    ),
  );
  const [active, onTime, completed, changes] = r.projects;
  own.push(row('projects', '', '', active, active, onTime, completed), row('changes', '', '', changes));
  own.push(
    row('ratings', 'leader', '1', r.leader.evaluationcriteria[0], r.leader.evaluationcriteria[1]),
    row('ratings', 'leader', '2', r.leader.corevalue[0], r.leader.corevalue[1]),
    row('ratings', 'leader', '0', r.leader.other[0], r.leader.other[1]),
    row('ratings', 'team', '2', r.team.corevalue[0], r.team.corevalue[1]),
    row('ratings', 'team', '0', r.team.other[0], r.team.other[1]),
    row('selfratings', '', '', r.self[0], r.self[1]),
    row('roleratings', '', '', r.basicRoles[0], r.basicRoles[1]),
  );
  const [dActive, dOnTime, dCompleted, dChanges] = r.departmentProjects;
  const dept = [row('projects', '', '', dActive, dActive, dOnTime, dCompleted), row('changes', '', '', dChanges)];
  return { own, dept };
}
