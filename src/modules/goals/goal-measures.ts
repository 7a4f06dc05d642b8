/** The measure numbers of a goal. */
export const MEASURES = [1, 2, 3, 4, 5] as const;
export type MeasureNo = (typeof MEASURES)[number];

type MeasureTexts = { [K in `measure${MeasureNo}`]: string | null };
type MeasureFlags = { [K in `measure${MeasureNo}Completed`]: boolean };

/** MeasuresTotal = non-blank measures; MeasuresCompleted = non-blank measures that are completed. */
export function measureCounts(goal: MeasureTexts & MeasureFlags): { total: number; completed: number } {
  let total = 0;
  let completed = 0;
  for (const n of MEASURES) {
    const text = goal[`measure${n}`];
    if (text === null || text.trim() === '') continue;
    total++;
    if (goal[`measure${n}Completed`]) completed++;
  }
  return { total, completed };
}
