import { field, LIMITS, resource } from '../../../http/wire/resource.js';

/** One record behind a figure; XML element `DashboardRecord`. */
export const DashboardRecord = resource<never>()('DashboardRecord', {
  fields: {
    ID: field.string('RO', {
      description: 'The record’s id: a guid, or an integer as text for commitments and goals (see the figure’s RecordType).',
    }),
    Value: field.decimal('RO', {
      nullable: true,
      description:
        'What the record contributes: a metric’s attainment (%), a rating (1–5), 1 or 0 for a record of a completion rate or a color band (done or not); null for a plain count.',
    }),
  },
});
export const DashboardRecordDto = DashboardRecord.Response;
export type DashboardRecordDto = InstanceType<typeof DashboardRecordDto>;

/** One computed figure of a Dashboard, explained; XML element `DashboardFigure`. */
export const DashboardFigure = resource<never>()('DashboardFigure', {
  fields: {
    Name: field.string('RO', { description: 'The Dashboard field explained (e.g. DialogsCompletedPercent).' }),
    Value: field.decimal('RO', { nullable: true, description: 'The figure’s value, as the Dashboard answers it.' }),
    Formula: field.string('RO', { description: 'How the figure is computed, in words (the same text as the Dashboard field’s description).' }),
    Calculation: field.string('RO', { description: 'The formula with this dashboard’s numbers, e.g. "3 of 4 = 75".' }),
    Numerator: field.decimal('RO', {
      nullable: true,
      description: 'The count or sum divided (for a percentage), or the count itself; null when the figure is not a quotient or count.',
    }),
    Denominator: field.decimal('RO', { nullable: true, description: 'What it is divided by (for a percentage or a color band); null otherwise.' }),
    RecordType: field.string('RO', {
      nullable: true,
      description:
        'The kind of record counted: commitment, metric, project, projectduedatechange, assessmentrating, basicroledialog, dialog, task or goal; null for a figure computed from other figures (IndividualPerformancePercent, DeptProjects…).',
    }),
    RecordCount: field.int('RO', { description: 'How many records the figure counts (all of them, also beyond the listed ones).' }),
    Records: field.array('RO', {
      nested: () => DashboardRecordDto,
      description: 'The first 100 records the figure counts, ordered by ID. In XML one DashboardRecord element each.',
    }),
  },
});
export const DashboardFigureDto = DashboardFigure.Response;
export type DashboardFigureDto = InstanceType<typeof DashboardFigureDto>;

/**
 * `GET /{organizations|departments|individuals}/{id}/dashboards/explain`: every computed figure of
 * the row's dashboard with its formula and the records behind it (docs/dashboards.md).
 */
export const DashboardExplanation = resource<never>()('DashboardExplanation', {
  fields: {
    ID: field.guid('RO', { description: 'The row’s id (as Dashboard.ID).' }),
    SiteID: field.guid('RO'),
    RowType: field.int('RO', { enum: [4, 56, 39], description: 'organization 4, department 56, individual 39.' }),
    Name: field.string('RO', { max: LIMITS.name, description: 'The row’s name (as Dashboard.Name).' }),
    PeriodID: field.int('RO', { description: 'The period explained.' }),
    FromDate: field.date('RO', { description: 'The period’s StartDate.' }),
    ToDate: field.date('RO', { description: 'The period’s EndDate.' }),
    Figures: field.array('RO', {
      nested: () => DashboardFigureDto,
      description: 'One entry per computed Dashboard field, in the Dashboard’s order. In XML one DashboardFigure element each.',
    }),
  },
});
export const DashboardExplanationDto = DashboardExplanation.Response;
export type DashboardExplanationDto = InstanceType<typeof DashboardExplanationDto>;
