/** The measure numbers of a goal. */
export const MEASURES = [1, 2, 3, 4, 5] as const;
export type MeasureNo = (typeof MEASURES)[number];

type MeasureTexts = { [K in `measure${MeasureNo}`]: string | null };
type MeasureFlags = { [K in `measure${MeasureNo}Completed`]: boolean };

/** The member names of each measure, written once: a page counts the measures of every goal twice. */
const TEXT_KEYS = MEASURES.map((n) => `measure${n}` as const);
const FLAG_KEYS = MEASURES.map((n) => `measure${n}Completed` as const);

/** MeasuresTotal = non-blank measures; MeasuresCompleted = non-blank measures that are completed. */
export function measureCounts(goal: MeasureTexts & MeasureFlags): { total: number; completed: number } {
  let total = 0;
  let completed = 0;
  for (let i = 0; i < MEASURES.length; i++) {
    const text = goal[TEXT_KEYS[i]];
    if (text === null || text.trim() === '') continue;
    total++;
    if (goal[FLAG_KEYS[i]]) completed++;
  }
  return { total, completed };
}
