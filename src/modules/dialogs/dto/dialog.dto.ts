import { field, resource } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { QueriedListQuery } from '../../../http/wire/pagination.js';
import { RECORD_KINDS, type DialogEntity, type RecordKind } from '../../../database/entities/dialog.entity.js';
import { declareExamples, exampleDate } from '../../../http/wire/examples.js';

export const DIALOG_NOTES_MAX = 10000;

const KEEP_NOT_NULL = 'Absent keeps the current value; null is 400 (a dialog always has one).';

/**
 * The Dialog, every field declared once (docs/dialogs-tasks-roles-assessments.md).
 * Kind and AncestorID are not update inputs: a dialog does not move to another record.
 */
export const Dialog = resource<DialogEntity>()('Dialog', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Kind: field.fixed.string<RecordKind>(
      'What the dialog is about: organization, department, project or individual (lower case). Ignored on update.',
      'organization, department, project or individual.',
      { enum: RECORD_KINDS, query: { filter: true } },
    ),
    AncestorID: field.fixed.guid(
      'The organization (RowType 4), department (RowType 56), project or individual the dialog is about, matching Kind; a live record of the site. Ignored on update.',
      'A live record of the site matching Kind.',
      { query: { filter: true } },
    ),
    LeaderID: field.guid('ReqCre', {
      query: { filter: true },
      description: 'The individual who leads the dialog: a live individual of the site.',
      create: { description: 'A live individual of the site.' },
      update: { description: `A live individual of the site. ${KEEP_NOT_NULL}` },
    }),
    PeriodID: field.int('ReqCre', {
      description: 'The period the dialog counts in: a period of the site.',
      create: { description: 'A period of the site.' },
      update: { description: `A period of the site. ${KEEP_NOT_NULL}` },
    }),
    ScheduledDate: field.date('ReqCre', {
      query: { filter: true, sort: true },
      description: 'When the dialog is planned (dashboards count it as expected in its period).',
      update: { description: KEEP_NOT_NULL },
    }),
    OccurredDate: field.date('-', {
      query: { filter: true, sort: true },
      nullable: true,
      description: 'When the dialog was held; null until then (dashboards count it as occurred).',
      update: { description: 'Absent keeps the current value; null marks the dialog as not held.' },
    }),
    Notes: field.optional.string({ max: DIALOG_NOTES_MAX }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: DialogDto, Create: CreateDialogDto, Update: UpdateDialogDto } = Dialog;
export type DialogDto = InstanceType<typeof DialogDto>;
export type CreateDialogDto = InstanceType<typeof CreateDialogDto>;
export type UpdateDialogDto = InstanceType<typeof UpdateDialogDto>;

/** `period` (default: the period containing today) beside `deleted`, `filter`, `sort`, `fields` and `cursor` of the dialog lists (docs/queries.md). */
export class DialogQuery extends QueriedListQuery {
  @InputField('int', { description: 'Period id. Default: the period containing today, else the latest period.' })
  period?: number;
}

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchDialogDto: { body: { OccurredDate: exampleDate('2027-03-17'), Notes: 'Held, one day late' } },
  CreateDialogDto: {
    body: {
      Kind: 'individual',
      AncestorID: 'INDIVIDUAL_ID',
      LeaderID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      ScheduledDate: exampleDate('2027-03-15'),
      Notes: 'Mid-year review',
    },
  },
  UpdateDialogDto: {
    body: {
      ID: 'PATH_ID',
      LeaderID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      ScheduledDate: exampleDate('2027-03-15'),
      OccurredDate: exampleDate('2027-03-16'),
      Notes: 'Held',
    },
  },
});
