import { RATE_LEVELS, type AggregateRow, type DashboardBatchKind, type Level } from './dashboards.statements.js';
import { colorFor, type ColorBand } from '../colors/colors.service.js';
import { FIGURE_FORMULAS, type FigureName } from './dashboard-formulas.js';

/**
 * From the grouped counts and sums of one row (dashboards.statements.ts) to every computed figure of
 * its Dashboard, each with the numbers it was computed from (docs/dashboards.md). Pure: the
 * formulas are unit-tested here and proven against hand-computed data in the e2e tests.
 */

/** The settings a computation reads (the Dashboard's Threshold… and Show… fields). */
export interface FigureSettings {
  Threshold1: number;
  Threshold2: number;
  Threshold3: number;
  ShowDialogs: boolean;
  ShowFollowUps: boolean;
  ShowEvaluationCriteria: boolean;
  ShowLeaderAssessment: boolean;
  ShowTeamAssessment: boolean;
}

export interface FigureDetail {
  value: number | null;
  numerator: number | null;
  denominator: number | null;
  calculation: string;
}

export type Figures = Record<FigureName, FigureDetail>;

export interface ColorBandNamed extends ColorBand {
  Name: string;
}

/** Percentages are answered with 2 fraction digits. */
export function round2(x: number): number {
  return Math.round((x + Math.sign(x) * Number.EPSILON) * 100) / 100;
}

const fmt = (x: number) => String(round2(x));

/**
 * A count and the words that follow it, singular for 1 and plural otherwise: `{s}` marks the
 * plural ending ("1 goal", "2 goals", "1 of 1 dialog held", "0 ratings").
 */
function counted(n: number, words: string): string {
  return `${n} ${inflect(n, words)}`;
}

/** The words with `{s}` resolved for the count n. */
function inflect(n: number, words: string): string {
  return words.replace(/\{s\}/g, n === 1 ? '' : 's');
}

function count(n: number, what: string): FigureDetail {
  return { value: n, numerator: n, denominator: null, calculation: counted(n, what) };
}

/** num of den as a percentage; null (never NaN) when den is 0. The words agree with den. */
function share(num: number, den: number, what: string): FigureDetail & { raw: number | null } {
  if (den === 0) return { value: null, raw: null, numerator: num, denominator: den, calculation: `no ${inflect(0, what)}: null` };
  const raw = (num * 100) / den;
  return { value: round2(raw), raw, numerator: num, denominator: den, calculation: `${num} of ${counted(den, what)} = ${fmt(raw)} %` };
}

/** The mean of `n` ratings 1–5 summing to `sum`, as sum ÷ (n × 5) × 100; null without ratings. */
function ratingMean(sum: number, n: number): FigureDetail & { raw: number | null } {
  if (n === 0) return { value: null, raw: null, numerator: 0, denominator: 0, calculation: 'no ratings: null' };
  const raw = (sum * 100) / (n * 5);
  return {
    value: round2(raw),
    raw,
    numerator: sum,
    denominator: n * 5,
    calculation: `${counted(n, 'rating{s}')} summing to ${sum} of at most ${n * 5} = ${fmt(raw)} %`,
  };
}

/**
 * Follow-ups completed ÷ (completed + overdue): `a` completed by the period's end, `b` those that
 * count (completed, or open past their due date), `n` all created; the open ones not yet due
 * (n − b) are left out and named in the calculation.
 */
function followUpRate(x: { n: number; a: number; b: number }, note: string): FigureDetail & { raw: number | null } {
  const open = x.n - x.b;
  const leftOut = open ? `; left out: ${counted(open, 'open follow-up{s}')} not yet due` : '';
  if (x.b === 0) return { value: null, raw: null, numerator: 0, denominator: 0, calculation: `no follow-ups completed or overdue: null${note}${leftOut}` };
  const raw = (x.a * 100) / x.b;
  return {
    value: round2(raw),
    raw,
    numerator: x.a,
    denominator: x.b,
    calculation: `${x.a} completed of ${counted(x.b, 'follow-up{s}')} completed or overdue = ${fmt(raw)} %${note}${leftOut}`,
  };
}

/** A figure's calculation with a note after it. */
function withNote<F extends FigureDetail>(f: F, note: string): F {
  return { ...f, calculation: `${f.calculation}${note}` };
}

/** Sums of the rows of one source, by group. */
class Totals {
  constructor(private readonly rows: readonly AggregateRow[]) {}
  of(src: AggregateRow['src'], where: (r: AggregateRow) => boolean = () => true) {
    const out = { n: 0, a: 0, b: 0, c: 0, d: 0, e: 0, s: 0 };
    for (const r of this.rows) {
      if (r.src !== src || !where(r)) continue;
      out.n += r.n;
      out.a += r.a;
      out.b += r.b;
      out.c += r.c;
      out.d += r.d;
      out.e += r.e;
      out.s += r.s;
    }
    return out;
  }
}

const COMMITMENT_LEVELS = [
  ['Organization', 'organization'],
  ['Department', 'department'],
  ['Individual', 'individual'],
] as const;
const LEVELS = [
  ['Org', 'organization'],
  ['Dept', 'department'],
  ['Proj', 'project'],
  ['Ind', 'individual'],
] as const;

function projectFigures(t: Totals): { active: number; onTime: number; completed: number; changes: number } {
  const p = t.of('projects');
  return { active: p.a, onTime: p.b, completed: p.c, changes: t.of('changes').n };
}

/** "(individual level)", "(department, project and individual levels)": what a completion rate counts. */
function levelsNote(levels: readonly Level[]): string {
  const list = levels.length === 1 ? levels[0] : `${levels.slice(0, -1).join(', ')} and ${levels[levels.length - 1]}`;
  return ` (${list} level${levels.length === 1 ? '' : 's'})`;
}

/**
 * Every computed figure of one row of the given kind. `own` are the row's aggregate rows; `dept` those of the
 * department level's project figures (an individual's primary department), `undefined` when the
 * department level is the row itself (a department or organization), `null` when there is none.
 */
export function computeFigures(
  kind: DashboardBatchKind,
  own: readonly AggregateRow[],
  dept: readonly AggregateRow[] | null | undefined,
  settings: FigureSettings,
  colors: readonly ColorBandNamed[],
): Figures {
  const t = new Totals(own);
  const f: Partial<Figures> = {};

  for (const [prefix, lvl] of COMMITMENT_LEVELS) {
    const c = t.of('commitments', (r) => r.grp === lvl);
    f[`${prefix}CommitmentsCompleted`] = count(c.a, 'commitment{s} completed');
    f[`${prefix}CommitmentsTotal`] = count(c.n, 'commitment{s}');
    const pct = share(c.a, c.n, 'commitment{s} completed');
    const band = colorFor(colors, pct.raw);
    f[`${prefix}CommitmentsColorValue`] = {
      value: band ? band.ColorValue : null,
      numerator: c.a,
      denominator: c.n,
      calculation:
        pct.raw === null
          ? 'no commitments: null'
          : `${pct.calculation} → ${band ? `band ${band.Name} (${band.MinPercent}–${band.MaxPercent})` : 'no band holds it: null'}`,
    };
  }

  const m = t.of('metrics');
  const below = m.n - m.a - m.b - m.c;
  f.MetricsExceedsPercent = share(m.a, m.n, `measured metric{s} at ≥ ${settings.Threshold3}`);
  f.MetricsMeetsPercent = share(m.b, m.n, `measured metric{s} at ≥ ${settings.Threshold2} and < ${settings.Threshold3}`);
  f.MetricsMinimumPercent = share(m.c, m.n, `measured metric{s} at ≥ ${settings.Threshold1} and < ${settings.Threshold2}`);
  f.MetricsBelowPercent = share(below, m.n, `measured metric{s} below ${settings.Threshold1}`);
  f.Metrics8020Percent = share(m.e, m.d, `measured 80/20 metric{s} at ≥ ${settings.Threshold2}`);
  f.Metrics8020CompositePercent =
    m.d === 0
      ? { value: null, numerator: 0, denominator: 0, calculation: 'no measured 80/20 metrics: null' }
      : {
          value: round2(m.s / m.d),
          numerator: round2(m.s),
          denominator: m.d,
          calculation: `attainments capped at 100 summing to ${fmt(m.s)} over ${counted(m.d, '80/20 metric{s}')} = ${fmt(m.s / m.d)} %`,
        };

  const p = projectFigures(t);
  f.ProjectsActive = count(p.active, 'active project{s}');
  f.ProjectsOnTime = count(p.onTime, 'project{s} on time');
  f.ProjectsCompleted = count(p.completed, 'project{s} completed in the period');
  f.ProjectsDateChanges = count(p.changes, 'due-date move{s} in the period');
  const d = dept === undefined ? p : dept === null ? null : projectFigures(new Totals(dept));
  const deptNote = dept === undefined ? ' (the row itself)' : dept === null ? ' (no department level: 0)' : ' (the primary department)';
  f.DeptProjectsActive = count(d?.active ?? 0, `active project{s}${deptNote}`);
  f.DeptProjectsOnTime = count(d?.onTime ?? 0, `project{s} on time${deptNote}`);
  f.DeptProjectsCompleted = count(d?.completed ?? 0, `project{s} completed in the period${deptNote}`);
  f.DeptProjectsDateChanges = count(d?.changes ?? 0, `due-date move{s} in the period${deptNote}`);

  const leader = t.of('ratings', (r) => r.grp === 'leader');
  const team = t.of('ratings', (r) => r.grp === 'team');
  const criteria = t.of('ratings', (r) => r.grp2 === '1');
  const values = t.of('ratings', (r) => r.grp2 === '2');
  const roles = t.of('roleratings');
  // The completion rates count the levels the row answers for (RATE_LEVELS), the counts every level.
  const levels: readonly string[] = RATE_LEVELS[kind];
  const rated = (src: 'dialogs' | 'tasks') => t.of(src, (r) => levels.includes(r.grp));
  const note = levelsNote(RATE_LEVELS[kind]);
  const scores = {
    EvaluationCriteriaPercent: ratingMean(criteria.a, criteria.n),
    LeaderAssessmentPercent: ratingMean(leader.a, leader.n),
    TeamAssessmentPercent: ratingMean(team.a, team.n),
    IndividualCoreValuesPercent: ratingMean(values.a, values.n),
    IndividualBasicRolePercent: ratingMean(roles.a, roles.n),
    DialogsCompletedPercent: withNote(share(rated('dialogs').a, rated('dialogs').n, 'dialog{s} held'), note),
    FollowUpsCompletedPercent: followUpRate(rated('tasks'), note),
  };
  Object.assign(f, scores);
  // Beside the leader's and the team's view, in no score (docs/dashboards.md).
  const self = t.of('selfratings');
  f.SelfAssessmentPercent = ratingMean(self.a, self.n);

  const switches: Record<keyof typeof scores, boolean> = {
    EvaluationCriteriaPercent: settings.ShowEvaluationCriteria,
    LeaderAssessmentPercent: settings.ShowLeaderAssessment,
    TeamAssessmentPercent: settings.ShowTeamAssessment,
    DialogsCompletedPercent: settings.ShowDialogs,
    FollowUpsCompletedPercent: settings.ShowFollowUps,
    IndividualCoreValuesPercent: true,
    IndividualBasicRolePercent: true,
  };
  const used: string[] = [];
  const left: string[] = [];
  let sum = 0;
  for (const [name, score] of Object.entries(scores) as [keyof typeof scores, { raw: number | null }][]) {
    if (!switches[name]) left.push(`${name} (switched off)`);
    else if (score.raw === null) left.push(`${name} (no data)`);
    else {
      used.push(`${name} ${fmt(score.raw)}`);
      sum += score.raw;
    }
  }
  const leftOut = left.length ? `; left out: ${left.join(', ')}` : '';
  f.IndividualPerformancePercent = used.length
    ? {
        value: round2(sum / used.length),
        numerator: round2(sum),
        denominator: used.length,
        calculation: `mean of ${used.join(', ')} = ${fmt(sum / used.length)} %${leftOut}`,
      }
    : { value: null, numerator: 0, denominator: 0, calculation: `no score qualifies: null${leftOut}` };

  const g = t.of('goals');
  f.PersonalGoalsCompleted = count(g.a, 'goal{s} completed');
  f.PersonalGoalsTotal = count(g.n, 'goal{s}');

  for (const [prefix, lvl] of LEVELS) {
    const dl = t.of('dialogs', (r) => r.grp === lvl);
    const tk = t.of('tasks', (r) => r.grp === lvl);
    f[`${prefix}DialogsExpected`] = count(dl.n, 'dialog{s}');
    f[`${prefix}DialogsOccurred`] = count(dl.a, 'dialog{s} held');
    f[`${prefix}FollowUpsCreated`] = count(tk.n, 'follow-up{s} created');
    f[`${prefix}FollowUpsCompleted`] = count(tk.a, 'follow-up{s} completed');
  }

  // Only the detail members leave this function (the raw values were for the mean above).
  const out = {} as Figures;
  for (const name of Object.keys(FIGURE_FORMULAS) as FigureName[]) {
    const x = f[name]!;
    out[name] = { value: x.value, numerator: x.numerator, denominator: x.denominator, calculation: x.calculation };
  }
  return out;
}
