import { measureCounts } from './goal-measures.js';

const goal = (texts: (string | null)[], done: boolean[]) => {
  const g: Record<string, string | null | boolean> = {};
  texts.forEach((t, i) => {
    g[`measure${i + 1}`] = t;
    g[`measure${i + 1}Completed`] = done[i];
  });
  return g as Parameters<typeof measureCounts>[0];
};

describe('measureCounts (Goal.MeasuresTotal / MeasuresCompleted)', () => {
  it('counts non-blank measures, and of those the completed ones', () => {
    const sut = measureCounts(goal(['a', 'b', '', null, 'e'], [true, false, true, true, true]));
    expect(sut).toEqual({ total: 3, completed: 2 });
  });

  it('does not count a completed flag on a blank measure, nor whitespace-only text', () => {
    expect(measureCounts(goal(['  ', '', null, '', ''], [true, true, true, true, true]))).toEqual({ total: 0, completed: 0 });
  });

  it('counts all five when all are set and done', () => {
    expect(measureCounts(goal(['1', '2', '3', '4', '5'], [true, true, true, true, true]))).toEqual({ total: 5, completed: 5 });
  });
});
