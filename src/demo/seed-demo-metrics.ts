import { writePeriodArchives } from '../database/archive-writers.js';
import { dashboardArchives } from '../modules/dashboards/dashboard-archives.js';
import { metricArchives } from '../modules/performance-metrics/metric-archives.js';
import type { IndividualEntity } from '../database/entities/individual.entity.js';
import { toScale4 } from '../modules/performance-metrics/dto/metric.dto.js';
import { MetricValueEntity } from '../database/entities/metric-value.entity.js';
import { MetricEntity } from '../database/entities/metric.entity.js';
import type { PeriodEntity } from '../database/entities/period.entity.js';
import { ProjectEntity } from '../database/entities/project.entity.js';
import type { TenantTx } from '../database/tenant-db.js';

/** [name, target, higher is better, 80/20] */
type MetricPlan = [string, number, boolean, boolean];

/** The metrics of a role, chosen by a word of the person's title (first match wins). */
const BY_TITLE: [RegExp, MetricPlan[]][] = [
  [
    /Account Executive|Sales Director|VP Sales/,
    [
      ['Quota attainment (%)', 100, true, true],
      ['New pipeline (k€)', 1200, true, false],
      ['Win rate (%)', 25, true, false],
    ],
  ],
  [
    /Site Reliability|Platform Engineer/,
    [
      ['Service availability (%)', 99.95, true, true],
      ['Incidents resolved within SLA (%)', 95, true, false],
      ['Mean time to recovery (min)', 45, false, false],
    ],
  ],
  [
    /Software Engineer/,
    [
      ['Story points delivered', 120, true, false],
      ['Escaped defects', 5, false, true],
      ['Code review turnaround (h)', 24, false, false],
    ],
  ],
  [
    /Customer Success/,
    [
      ['Net revenue retention (%)', 110, true, true],
      ['Customer satisfaction (1-5)', 4.5, true, false],
      ['Time to onboard (days)', 30, false, false],
    ],
  ],
  [
    /HR Business Partner|Head of People/,
    [
      ['Time to hire (days)', 40, false, true],
      ['Engagement score (%)', 80, true, false],
    ],
  ],
  [
    /Financial|Finance/,
    [
      ['Monthly close (days)', 5, false, true],
      ['Forecast accuracy (%)', 95, true, false],
    ],
  ],
  [
    /.*/,
    [
      ['Team goal attainment (%)', 100, true, true],
      ['Employee engagement (%)', 80, true, false],
    ],
  ],
];

const PROJECT_METRICS: MetricPlan[] = [
  ['Milestones on time (%)', 90, true, true],
  ['Budget used (%)', 100, false, false],
];

/** The same small deterministic generator as the rest of the demo, seeded apart. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The metrics part of `npm run seed:demo` (called from build() in seed-demo.ts, in its
 * transaction): two or three metrics per person by role, two per project, with actual values in
 * every period that has begun — spread around the target, so the dashboards show every color —
 * and the archives of the periods that are already closed, written as closing them writes them.
 */
export async function seedDemoMetrics(tx: TenantTx, people: readonly IndividualEntity[], periods: readonly PeriodEntity[]): Promise<Record<string, number>> {
  const random = rng(8020);
  const begun = periods.filter((p) => p.startDate.getTime() <= Date.now());
  const metrics = tx.repo(MetricEntity);
  const values = tx.repo(MetricValueEntity);
  let metricCount = 0;
  let valueCount = 0;

  const add = async (kind: MetricEntity['kind'], ancestorId: string, [name, target, higherIsBetter, is8020]: MetricPlan) => {
    const m = await metrics.insert({ kind, ancestorId, name, target, higherIsBetter, is8020, deleted: false, deletedByRef: false });
    metricCount++;
    for (const period of begun) {
      // Attainment between 60 % and 125 % of the target, the way round the metric counts.
      const attainment = 0.6 + 0.65 * random();
      const actual = higherIsBetter ? target * attainment : target / attainment;
      await values.insert({ metricId: m.id, periodId: period.id, actual: toScale4(actual) });
      valueCount++;
    }
  };

  for (const person of people) {
    const plans = BY_TITLE.find(([re]) => re.test(person.primaryTitle ?? ''))![1];
    for (const plan of plans) await add('individual', person.id, plan);
  }
  for (const project of await tx.repo(ProjectEntity).find({ order: { name: 'ASC' } })) {
    for (const plan of PROJECT_METRICS) await add('project', project.id, plan);
  }

  let archives = 0;
  for (const period of periods.filter((p) => p.closed)) archives += await writePeriodArchives(tx, period, [metricArchives, dashboardArchives]);
  return { metrics: metricCount, metricValues: valueCount, archives };
}
