import type { AggregateRow } from './dashboards.statements.js';
import { DEFAULT_COLOR_BANDS } from '../colors/colors.service.js';
import { computeFigures, round2, type FigureSettings } from './dashboard-figures.js';
import { FIGURE_FORMULAS } from './dashboard-formulas.js';
import { SAMPLE_METRICS, sampleAggregates } from './dashboard-sample.js';

const SETTINGS: FigureSettings = {
  Threshold1: 70,
  Threshold2: 90,
  Threshold3: 110,
  ShowDialogs: true,
  ShowFollowUps: true,
  ShowEvaluationCriteria: true,
  ShowLeaderAssessment: true,
  ShowTeamAssessment: true,
};
const colors = DEFAULT_COLOR_BANDS.map((c) => ({ ...c }));
const row = (src: AggregateRow['src'], grp: string, grp2: string, n: number, a = 0, b = 0, c = 0, d = 0, e = 0, s = 0): AggregateRow => ({
  root: 'r',
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

describe('computeFigures', () => {
  const sut = computeFigures;

  it('answers every figure, with null percentages and colors and zero counts when there is nothing', () => {
    const f = sut('organization', [], undefined, SETTINGS, colors);
    expect(Object.keys(f)).toEqual(Object.keys(FIGURE_FORMULAS));
    for (const [name, detail] of Object.entries(f)) {
      if (/Percent$|ColorValue$/.test(name)) expect(detail.value).toBeNull();
      else expect(detail.value).toBe(0);
    }
    expect(f.IndividualPerformancePercent.calculation).toContain('no score qualifies');
  });

  it('computes shares, means and colors from the grouped counts', () => {
    const f = sut(
      'organization',
      [
        row('commitments', 'individual', '', 3, 2),
        row('commitments', 'organization', '', 4, 4),
        row('dialogs', 'individual', '', 3, 2),
        row('dialogs', 'project', '', 1, 0),
        row('tasks', 'department', '', 2, 1, 2),
        row('metrics', '', '', 4, 1, 1, 1, 2, 1, 150),
        row('ratings', 'leader', '1', 2, 6),
        row('ratings', 'leader', '0', 1, 3),
        row('ratings', 'team', '2', 2, 9),
        row('roleratings', '', '', 2, 7),
        row('selfratings', '', '', 2, 9),
        row('goals', '', '', 3, 1),
      ],
      null,
      SETTINGS,
      colors,
    );
    expect(f.IndividualCommitmentsColorValue.value).toBe(0xff0000); // 66.67
    expect(f.OrganizationCommitmentsColorValue.value).toBe(0x00ff00); // 100: the top band includes its maximum
    expect(f.DepartmentCommitmentsColorValue.value).toBeNull();
    expect([f.MetricsExceedsPercent.value, f.MetricsMeetsPercent.value, f.MetricsMinimumPercent.value, f.MetricsBelowPercent.value]).toEqual([25, 25, 25, 25]);
    expect(f.Metrics8020Percent.value).toBe(50);
    expect(f.Metrics8020CompositePercent.value).toBe(75);
    expect(f.EvaluationCriteriaPercent.value).toBe(60); // 6 of 10
    expect(f.LeaderAssessmentPercent.value).toBe(60); // 9 of 15
    expect(f.TeamAssessmentPercent.value).toBe(90);
    expect(f.IndividualCoreValuesPercent.value).toBe(90);
    expect(f.IndividualBasicRolePercent.value).toBe(70);
    expect(f.SelfAssessmentPercent.value).toBe(90); // shown, and counted in no score below
    expect(f.DialogsCompletedPercent.value).toBe(50); // 2 of 4: an organization counts every level
    expect(f.FollowUpsCompletedPercent.value).toBe(50);
    expect(f.IndividualPerformancePercent.value).toBe(round2((60 + 60 + 90 + 50 + 50 + 90 + 70) / 7));
    expect(f.DeptProjectsActive.value).toBe(0); // no department level
    expect(f.IndDialogsExpected.value).toBe(3);
    expect(f.ProjDialogsOccurred.value).toBe(0);
  });

  it('counts in the completion rates only the levels a row answers for, and every level in the counts', () => {
    // Dialogs held / expected: organization 1/2, department 3/4, project 0/1, individual 3/4 (the 7 of 10 and a project).
    const rows = [
      row('dialogs', 'organization', '', 2, 1),
      row('dialogs', 'department', '', 4, 3),
      row('dialogs', 'project', '', 1, 0),
      row('dialogs', 'individual', '', 4, 3),
      row('tasks', 'organization', '', 1, 0, 1),
      row('tasks', 'department', '', 1, 1, 1),
      row('tasks', 'individual', '', 2, 1, 2),
    ];
    const of = (kind: 'individual' | 'department' | 'organization') => sut(kind, rows, kind === 'individual' ? null : undefined, SETTINGS, colors);
    const ind = of('individual');
    expect(ind.DialogsCompletedPercent).toMatchObject({ value: 75, numerator: 3, denominator: 4 });
    expect(ind.DialogsCompletedPercent.calculation).toBe('3 of 4 dialogs held = 75 % (individual level)');
    expect(ind.OrgDialogsExpected.value).toBe(2); // the counts still show every level
    expect(ind.FollowUpsCompletedPercent).toMatchObject({ value: 50, numerator: 1, denominator: 2 });
    const dept = of('department'); // its own, its projects' and its people's: not the organization above it
    expect(dept.DialogsCompletedPercent).toMatchObject({ value: 66.67, numerator: 6, denominator: 9 });
    expect(dept.DialogsCompletedPercent.calculation).toBe('6 of 9 dialogs held = 66.67 % (department, project and individual levels)');
    expect(dept.FollowUpsCompletedPercent).toMatchObject({ numerator: 2, denominator: 3 });
    const org = of('organization'); // every level lies within it
    expect(org.DialogsCompletedPercent).toMatchObject({ numerator: 7, denominator: 11 });
    expect(org.FollowUpsCompletedPercent).toMatchObject({ numerator: 2, denominator: 4 });
  });

  it('leaves the open follow-ups not yet due out of the completion rate', () => {
    // 5 created: 2 completed, 1 overdue (3 count), 2 open and not yet due.
    const f = sut('individual', [row('tasks', 'individual', '', 5, 2, 3)], null, SETTINGS, colors);
    expect(f.FollowUpsCompletedPercent).toMatchObject({ value: 66.67, numerator: 2, denominator: 3 });
    expect(f.FollowUpsCompletedPercent.calculation).toBe(
      '2 completed of 3 follow-ups completed or overdue = 66.67 % (individual level); left out: 2 open follow-ups not yet due',
    );
    expect([f.IndFollowUpsCreated.value, f.IndFollowUpsCompleted.value]).toEqual([5, 2]);
    const none = sut('individual', [row('tasks', 'individual', '', 1, 0, 0)], null, SETTINGS, colors);
    expect(none.FollowUpsCompletedPercent.value).toBeNull(); // not 0 %: nothing was due yet
    expect(none.FollowUpsCompletedPercent.calculation).toBe(
      'no follow-ups completed or overdue: null (individual level); left out: 1 open follow-up not yet due',
    );
    expect(none.IndividualPerformancePercent.value).toBeNull();
  });

  it('leaves the switched-off scores out of IndividualPerformancePercent', () => {
    const rows = [row('ratings', 'leader', '1', 1, 5), row('ratings', 'team', '0', 1, 1), row('dialogs', 'individual', '', 1, 0)];
    const sut2 = (s: Partial<FigureSettings>) => sut('individual', rows, undefined, { ...SETTINGS, ...s }, colors).IndividualPerformancePercent;
    expect(sut2({}).value).toBe(round2((100 + 100 + 20 + 0) / 4)); // criteria, leader, team, dialogs
    const off = sut2({ ShowTeamAssessment: false, ShowDialogs: false });
    expect(off.value).toBe(100);
    expect(off.calculation).toContain('TeamAssessmentPercent (switched off)');
    expect(sut2({ ShowTeamAssessment: false, ShowDialogs: false, ShowEvaluationCriteria: false, ShowLeaderAssessment: false }).value).toBeNull();
  });

  it('writes the calculations in the singular for one record and in the plural otherwise', () => {
    const one = sut(
      'individual',
      [
        row('goals', '', '', 1, 1),
        row('ratings', 'leader', '0', 1, 4),
        row('dialogs', 'individual', '', 1, 1),
        row('commitments', 'individual', '', 1, 1),
        row('metrics', '', '', 1, 1, 0, 0, 1, 1, 100),
        row('projects', '', '', 1, 1, 1, 1),
        row('changes', '', '', 1),
      ],
      undefined,
      SETTINGS,
      colors,
    );
    const two = sut(
      'individual',
      [row('goals', '', '', 2, 0), row('ratings', 'leader', '0', 2, 9), row('dialogs', 'individual', '', 2, 1), row('metrics', '', '', 2, 0, 0, 0, 2, 0, 150)],
      undefined,
      SETTINGS,
      colors,
    );
    const texts = (f: typeof one, names: (keyof typeof one)[]) => names.map((n) => f[n].calculation);
    expect(
      texts(one, [
        'PersonalGoalsTotal',
        'PersonalGoalsCompleted',
        'LeaderAssessmentPercent',
        'IndDialogsExpected',
        'DialogsCompletedPercent',
        'IndividualCommitmentsTotal',
        'MetricsExceedsPercent',
        'Metrics8020CompositePercent',
        'ProjectsActive',
        'ProjectsDateChanges',
      ]),
    ).toEqual([
      '1 goal',
      '1 goal completed',
      '1 rating summing to 4 of at most 5 = 80 %',
      '1 dialog',
      '1 of 1 dialog held = 100 % (individual level)',
      '1 commitment',
      '1 of 1 measured metric at ≥ 110 = 100 %',
      'attainments capped at 100 summing to 100 over 1 80/20 metric = 100 %',
      '1 active project',
      '1 due-date move in the period',
    ]);
    expect(
      texts(two, [
        'PersonalGoalsTotal',
        'PersonalGoalsCompleted',
        'LeaderAssessmentPercent',
        'IndDialogsExpected',
        'IndDialogsOccurred',
        'DialogsCompletedPercent',
        'Metrics8020CompositePercent',
        'FollowUpsCompletedPercent',
      ]),
    ).toEqual([
      '2 goals',
      '0 goals completed',
      '2 ratings summing to 9 of at most 10 = 90 %',
      '2 dialogs',
      '1 dialog held',
      '1 of 2 dialogs held = 50 % (individual level)',
      'attainments capped at 100 summing to 150 over 2 80/20 metrics = 75 %',
      'no follow-ups completed or overdue: null (individual level)',
    ]);
  });

  it('turns the fixed sample into figures under the given thresholds', () => {
    const { own, dept } = sampleAggregates({ Threshold1: 70, Threshold2: 90, Threshold3: 110 });
    const f = sut('individual', own, dept, SETTINGS, colors);
    expect(SAMPLE_METRICS).toHaveLength(10);
    expect([f.MetricsExceedsPercent.value, f.MetricsMeetsPercent.value, f.MetricsMinimumPercent.value, f.MetricsBelowPercent.value]).toEqual([20, 30, 30, 20]);
    expect(f.DeptProjectsActive.value).toBe(24);
    const strict = sampleAggregates({ Threshold1: 100, Threshold2: 120, Threshold3: 130 });
    expect(
      sut('individual', strict.own, strict.dept, { ...SETTINGS, Threshold1: 100, Threshold2: 120, Threshold3: 130 }, colors).MetricsExceedsPercent.value,
    ).toBe(10);
  });
});
