import type { Test } from 'supertest';
import { statementsOf, type TestApp } from './harness.js';

/** The statements of a request that read the periods table. */
const periodReads = (statements: string[]) => statements.filter((s) => /\bFROM [`"]?periods[`"]?/i.test(s));

/**
 * An update of a record that belongs to a period (a goal, a commitment) checks `PeriodID` only
 * when it moves the record to another period (docs/performance.md, "Writes: fewer round trips"):
 * the period it names already needs no statement, another of the site is read once, and another
 * site's is a 400 naming the field. `put` sends the update with the period and a new Name.
 */
export async function expectPeriodCheckedOnlyWhenMoved(
  t: TestApp,
  put: (periodId: number, name: string) => Test,
  periods: { current: number; past: number; foreign: number },
): Promise<void> {
  const kept = await statementsOf(t, () => put(periods.current, 'Same period').expect(200));
  expect(periodReads(kept.statements)).toEqual([]);
  const moved = await statementsOf(t, () => put(periods.past, 'Moved').expect(200));
  expect(periodReads(moved.statements)).toHaveLength(1);
  expect(moved.result.body).toMatchObject({ Name: 'Moved', PeriodID: periods.past });
  const refused = await put(periods.foreign, 'Foreign').expect(400);
  expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'PeriodID' })]);
}
