import { fullName } from '../../../common/names.js';
import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { BasicRolesCountRow } from '../../../database/queries/basic-roles.js';
import type { BasicRoleDialogEntity } from '../../../database/entities/basic-role-dialog.entity.js';
import type { BasicRoleEntity } from '../../../database/entities/basic-role.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';

export const BASIC_ROLE_DESCRIPTION_MAX = 4000;
/** A role reviewed in more dialogs than this per period is a data-entry error (a daily review is ~260). */
export const DIALOGS_PER_PERIOD_MAX = 1000;
export const BASIC_ROLE_DIALOG_COMMENT_MAX = 4000;

/** The BasicRole, every field declared once (docs/dialogs-tasks-roles-assessments.md). */
export const BasicRole = resource<BasicRoleEntity>()('BasicRole', {
  audit: 'softDelete',
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    IndividualID: field.fixed.guid(
      'The individual the role belongs to: a live individual of the site. Ignored on update (a role does not move to another person).',
      'A live individual of the site the caller may manage.',
      { query: { filter: true } },
    ),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    Description: field.optional.string({ max: BASIC_ROLE_DESCRIPTION_MAX }),
    Rank: field.int('-', {
      query: { filter: true, sort: true, then: ['name'] },
      description: 'Display order (lists are ordered by Rank, then Name). Default 0.',
      nullAs: 0,
      createDefault: 0,
      create: { description: 'Default 0.' },
      update: { description: 'Absent keeps the current value; null sets 0.' },
    }),
    DialogsPerPeriod: field.int('-', {
      description: `How many dialogs should review this role in each period (0–${DIALOGS_PER_PERIOD_MAX}). Default 1.`,
      minValue: 0,
      maxValue: DIALOGS_PER_PERIOD_MAX,
      createDefault: 1,
      nullIsAbsent: true,
      create: { description: 'Default 1.' },
      update: { description: 'Absent or null keeps the current value.' },
    }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: BasicRoleDto, Create: CreateBasicRoleDto, Update: UpdateBasicRoleDto } = BasicRole;
export type BasicRoleDto = InstanceType<typeof BasicRoleDto>;
export type CreateBasicRoleDto = InstanceType<typeof CreateBasicRoleDto>;
export type UpdateBasicRoleDto = InstanceType<typeof UpdateBasicRoleDto>;

export const IndividualBasicRolesCount = resource<BasicRolesCountRow>()('IndividualBasicRolesCount', {
  fields: {
    // Queried over the individuals (the column is theirs: id); answered from the row.
    IndividualID: field.guid('RO', {
      column: 'id',
      query: { filter: true },
      from: (r: BasicRolesCountRow) => r.individualId,
      description: 'A live individual of the site.',
    }),
    FullName: field.string('RO', { description: 'First Last.', from: (r: BasicRolesCountRow) => fullName(r.firstName, r.lastName) }),
    BasicRolesCount: field.int('RO', { description: 'How many live (not deleted) basic roles the individual has.' }),
  },
});
export const IndividualBasicRolesCountDto = IndividualBasicRolesCount.Response;
export type IndividualBasicRolesCountDto = InstanceType<typeof IndividualBasicRolesCountDto>;

/**
 * The BasicRoleDialog: one per (basic role, dialog), written by `PUT
 * /basicroles/{basicRoleid}/dialogs/{dialogid}`, which creates or replaces it. A dialog's list is
 * queried (docs/queries.md) on its keys, Rating and the audit dates; Comment is free text of up to
 * 4,000 characters, which no index serves, so it is not filterable.
 */
export const BasicRoleDialog = resource<BasicRoleDialogEntity>()('BasicRoleDialog', {
  audit: 'audit',
  auditQuery: { Created: { filter: true, sort: true }, Updated: { filter: true, sort: true } },
  updateName: 'PutBasicRoleDialogDto',
  fields: {
    ID: field.guid('RO', { description: 'Id of the record, generated when the pair is first written.', query: { filter: true } }),
    BasicRoleID: field.guid('-', {
      description: 'The basic role (from the path). In a body it may be left out; when present it must equal the path.',
      query: { filter: true },
      update: { description: 'Optional; must equal basicRoleid in the path.' },
    }),
    DialogID: field.guid('-', {
      description: 'The dialog (from the path). In a body it may be left out; when present it must equal the path.',
      query: { filter: true },
      update: { description: 'Optional; must equal dialogid in the path.' },
    }),
    Rating: field.int('-', {
      nullable: true,
      // Ratings repeat (1–5 or none): equal ones in the list's own order, oldest first.
      query: { filter: true, sort: true, then: ['created'] },
      minValue: 1,
      maxValue: 5,
      description: 'How the role was fulfilled, 1 (lowest) to 5 (highest); null when not rated.',
      update: { description: '1–5, or null/absent for no rating (the PUT replaces the record).' },
    }),
    Comment: field.string('-', {
      nullable: true,
      max: BASIC_ROLE_DIALOG_COMMENT_MAX,
      update: { description: 'Absent or null: no comment (the PUT replaces the record).' },
    }),
    SiteID: field.guid('RO'),
  },
});
export const BasicRoleDialogDto = BasicRoleDialog.Response;
export type BasicRoleDialogDto = InstanceType<typeof BasicRoleDialogDto>;
export const PutBasicRoleDialogDto = BasicRoleDialog.Update;
export type PutBasicRoleDialogDto = InstanceType<typeof PutBasicRoleDialogDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchBasicRoleDto: { body: { DialogsPerPeriod: 3 } },
  PatchBasicRoleDialogDto: { body: { Rating: 5 } },
  CreateBasicRoleDto: { body: { IndividualID: 'INDIVIDUAL_ID', Name: 'People leader', Description: 'Leads and grows the team', Rank: 1, DialogsPerPeriod: 2 } },
  UpdateBasicRoleDto: { body: { ID: 'PATH_ID', Name: 'People leader', Description: 'Leads, coaches and grows the team', Rank: 1, DialogsPerPeriod: 2 } },
  PutBasicRoleDialogDto: { body: { Rating: 4, Comment: 'Coached two new hires to independence' } },
});
