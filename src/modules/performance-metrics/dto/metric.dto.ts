import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { METRIC_KINDS, type MetricEntity } from '../../../database/entities/metric.entity.js';
import type { MetricValueEntity } from '../../../database/entities/metric-value.entity.js';
import { declareExamples, declareListElements } from '../../../http/wire/examples.js';
import { InputField } from '../../../http/wire/wire.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

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

const ACTUAL = `Required. Kept with 4 fraction digits (more are rounded); at most ${METRIC_NUMBER_MAX} in absolute value.`;

/**
 * A bulk item's Record setting a metric's value in a period (POST /metrics/values/bulk,
 * docs/bulk.md): what PUT /metrics/{id}/values/{periodid} names in its path, and its body.
 */
export class SetMetricValueInput {
  @InputField('guid', { description: 'Ignored: a value is named by its metric and period when it is set.' })
  ID?: string;

  @InputField('guid', { required: true, description: 'A metric of the site (else 404, as the single write).' })
  MetricID: string;

  @InputField('int', { required: true, description: 'A period of the site, not closed (404; 409 closed).' })
  PeriodID: number;

  @InputField('decimal', { required: true, minValue: -METRIC_NUMBER_MAX, maxValue: METRIC_NUMBER_MAX, description: ACTUAL })
  Actual: number;
}

/** A bulk item's Record naming a value by its ID: a value does not move, so MetricID and PeriodID are ignored. */
export class MetricValueInput {
  @InputField('guid', { required: true, description: 'The value.' })
  ID: string;

  @InputField('guid', { description: 'Ignored: a value does not move.' })
  MetricID?: string;

  @InputField('int', { description: 'Ignored: a value does not move.' })
  PeriodID?: number;

  @InputField('decimal', { required: true, minValue: -METRIC_NUMBER_MAX, maxValue: METRIC_NUMBER_MAX, description: ACTUAL })
  Actual: number;
}

/** The body of POST /metrics/values/bulk: each item sets one metric's value in one period. */
// A value has no ETag of its own (it is part of its metric's); PUT /metrics/{id}/values/{periodid} takes no If-Match.
export const BulkMetricValues = bulkRequestOf('MetricValue', { create: 'SetMetricValueInput', update: 'MetricValueInput', refs: [], ifMatch: false });
export type BulkMetricValues = BulkRequest;

/** What Metric.toWire needs beyond the row: its values, loaded in one batch per page. */
export interface MetricExtras {
  values: MetricValueDto[];
}

/** The Metric resource (docs/metrics-archives.md): every field declared once. */
export const Metric = resource<MetricEntity, MetricExtras>()('Metric', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Kind: field.fixed.string(
      'What AncestorID names: individual or project (lower case). Required on create; ignored on update (a metric does not move).',
      'individual or project (lower case, exactly).',
      { enum: METRIC_KINDS, query: { filter: true } },
    ),
    AncestorID: field.fixed.guid(
      'The live individual or project of the site (matching Kind) the metric measures. Required on create; ignored on update.',
      'A live individual (Kind individual) or project (Kind project) of the site, else 400 naming AncestorID.',
      { query: { filter: true } },
    ),
    Name: field.string('Req', {
      query: { filter: true, sort: true },
      max: LIMITS.name,
      min: 1,
      write: trim,
      description: 'Must not be blank; stored trimmed.',
    }),
    Is8020: {
      ...field.flag(false, 'An 80/20 metric (one of the few that matter most; dashboards show them apart). Default false.', { null: 'default' }),
      query: { filter: true },
    },
    Target: field.decimal('-', {
      query: { filter: true, sort: true },
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

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchMetricDto: { body: { Target: 115 } },
  CreateMetricDto: {
    body: { Kind: 'individual', AncestorID: 'INDIVIDUAL_ID', Name: 'Net revenue retention (%)', Is8020: true, Target: 110, HigherIsBetter: true },
  },
  UpdateMetricDto: { body: { ID: 'PATH_ID', Name: 'Net revenue retention (%)', Is8020: true, Target: 112.5, HigherIsBetter: true } },
  PutMetricValueDto: { body: { Actual: 104.25 } },
  BulkRequestOfMetricValue: {
    body: { Items: [{ Op: 'upsert', Record: { MetricID: '3f2c8a61-5b0e-4c47-9d0a-6c1e2b7f4a10', PeriodID: 'PERIOD_ID', Actual: 104.25 } }] },
  },
});

/** The element of each item of the list member in XML (the examples write it so). */
declareListElements({ Values: 'MetricValue' });
