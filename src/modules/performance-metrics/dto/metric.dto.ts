import { LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import { METRIC_KINDS, type MetricEntity } from '../../../database/entities/metric.entity.js';
import type { MetricValueEntity } from '../../../database/entities/metric-value.entity.js';

/** DECIMAL(18,4) columns hold 14 digits before the point: larger numbers are 400, never a database error. */
export const METRIC_NUMBER_MAX = 99_999_999_999_999;

/** Decimals are stored with 4 fraction digits on every database: round once, before writing. */
export const toScale4 = (v: number): number => Number(v.toFixed(4));

const NUMBER_LIMITS = { minValue: -METRIC_NUMBER_MAX, maxValue: METRIC_NUMBER_MAX, write: toScale4 } as const;

/** One actual value of a metric: `{PeriodID, Actual}`, nested in Metric.Values (docs/metrics-archives.md). */
export const MetricValue = resource<MetricValueEntity>()('MetricValue', {
  createName: 'PutMetricValueDto',
  fields: {
    PeriodID: field.int('RO', { description: 'The period the value belongs to (on PUT /metrics/{id}/values/{periodid}, the path names it).' }),
    Actual: field.decimal('Req', {
      ...NUMBER_LIMITS,
      description: `The actual value in that period. Kept with 4 fraction digits (more are rounded); at most ${METRIC_NUMBER_MAX} in absolute value.`,
      create: { description: `Required. Kept with 4 fraction digits (more are rounded); at most ${METRIC_NUMBER_MAX} in absolute value.` },
    }),
  },
});
export const MetricValueDto = MetricValue.Response;
export type MetricValueDto = InstanceType<typeof MetricValueDto>;
export const PutMetricValueDto = MetricValue.Create;
export type PutMetricValueDto = InstanceType<typeof PutMetricValueDto>;

/** What Metric.toWire needs beyond the row: its values, loaded in one batch per page. */
export interface MetricExtras {
  values: MetricValueDto[];
}

/** The Metric resource (docs/metrics-archives.md): every field declared once. */
export const Metric = resource<MetricEntity, MetricExtras>()('Metric', {
  audit: 'softDelete',
  fields: {
    ID: field.id(),
    Kind: field.fixed.string(
      'What AncestorID names: individual or project (lower case). Required on create; ignored on update (a metric does not move).',
      'individual or project (lower case, exactly).',
      { enum: METRIC_KINDS },
    ),
    AncestorID: field.fixed.guid(
      'The live individual or project of the site (matching Kind) the metric measures. Required on create; ignored on update.',
      'A live individual (Kind individual) or project (Kind project) of the site, else 400 naming AncestorID.',
    ),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank; stored trimmed.' }),
    Is8020: field.flag(false, 'An 80/20 metric (one of the few that matter most; dashboards show them apart). Default false.', { null: 'default' }),
    Target: field.decimal('-', {
      nullable: true,
      ...NUMBER_LIMITS,
      description: `The value aimed at in each period; null when none is set (such a metric has no attainment). Kept with 4 fraction digits; at most ${METRIC_NUMBER_MAX} in absolute value.`,
      create: { description: `Optional (null: no target). 4 fraction digits; at most ${METRIC_NUMBER_MAX} in absolute value.` },
      update: { description: 'Absent keeps the current value; null clears it.' },
    }),
    HigherIsBetter: field.flag(true, 'true: attainment is Actual/Target; false (lower is better): Target/Actual. Default true.', { null: 'default' }),
    Values: field.array('RO', {
      nested: () => MetricValue.Response,
      column: null,
      from: (_e: MetricEntity, x: MetricExtras | undefined) => x?.values ?? [],
      description:
        'The actual value of each period that has one, ordered by the period’s StartDate. Read-only here: write one with PUT /metrics/{id}/values/{periodid}, remove it with DELETE on the same path.',
    }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: MetricDto, Create: CreateMetricDto, Update: UpdateMetricDto } = Metric;
export type MetricDto = InstanceType<typeof MetricDto>;
export type CreateMetricDto = InstanceType<typeof CreateMetricDto>;
export type UpdateMetricDto = InstanceType<typeof UpdateMetricDto>;
