import { field, resource } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
import { CHILD_TYPE_COVERS, STATE_TEXT, type PermissionEntity } from '../../../database/entities/permission.entity.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';
import { declareExamples } from '../../../http/wire/examples.js';

/** What the wire form of a permission needs beyond its row: the names of its principal and row. */
export interface PermissionExtras {
  principalNames: ReadonlyMap<string, string>;
  rowNames: ReadonlyMap<string, string>;
}

const STATE_DOC = '0 Not Set, 1 Allow, 2 Deny (any other value is 400).';
const CHILD_TYPE_DOC =
  'null: the row itself. 19: the departments below the row; 4: the organizations below it; 15: the projects of the row’s units; 9, 25, 38: the dialogs about the row or about what lies below it; 7, 16, 58: the metrics likewise. Any other number is stored as null.';

/** A stored ChildType: one of the values docs/authorization.md lists, or 0 (the wire's null) for anything else. */
export const childTypeOf = (v: number | null | undefined): number => (v !== null && v !== undefined && CHILD_TYPE_COVERS[v] !== undefined ? v : 0);

const state = (name: string) =>
  field.int('Req', {
    enum: [0, 1, 2],
    description: `${name}: ${STATE_DOC}`,
    create: { description: `${name}: ${STATE_DOC}` },
    update: { description: `${name}: ${STATE_DOC}` },
  });
const text = (column: keyof PermissionEntity, name: string) =>
  field.string('RO', {
    column: null,
    description: `The text form of ${name}: Not Set, Allow or Deny.`,
    from: (p: PermissionEntity) => STATE_TEXT[p[column] as 0 | 1 | 2] ?? 'Not Set',
  });

/** Permission (docs/authorization.md): every field declared once. */
export const Permission = resource<PermissionEntity, PermissionExtras>()('Permission', {
  audit: 'audit',
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    RowID: field.fixed.guid(
      'The secured row: an individual, organization, department, project, dialog or metric of the site (else 400). Ignored on update (a permission does not move).',
      'The secured row: an individual, organization, department, project, dialog or metric of the site (else 400).',
      { query: { filter: true } },
    ),
    PrincipalID: field.fixed.guid(
      'A user (the UserID of an individual of the site) or a security group of the site (else 400). Ignored on update.',
      'A user (the UserID of an individual of the site, not its ID) or a security group of the site (else 400).',
      { query: { filter: true } },
    ),
    ChildType: field.int('ReqCre', {
      nullable: true,
      description: CHILD_TYPE_DOC,
      from: (p: PermissionEntity) => (p.childType === 0 ? null : p.childType),
      write: childTypeOf,
      nullAs: 0,
      createDefault: 0,
      create: { required: false, description: `${CHILD_TYPE_DOC} Absent means null. Ignored on update.` },
      update: false,
    }),
    CreateState: state('Create (records under the row)'),
    ReadState: state('Read'),
    UpdateState: state('Update'),
    DeleteState: state('Delete'),
    DelegateState: state('Delegate (managing the Permission records of the row)'),
    SiteID: field.guid('RO'),
    // Then the row, the principal's type and id and the ChildType: the plain list's order.
    RowType: field.int('RO', {
      query: { filter: true, sort: true, then: ['rowId', 'principalType', 'principalId', 'childType'] },
      description: 'What RowID is: 4 organization, 56 department, 39 individual, 15 project, 9 dialog, 7 metric.',
    }),
    PrincipalName: field.string('RO', {
      nullable: true,
      column: null,
      description: 'The user’s full name (or user name) or the security group’s name; null when the principal no longer exists.',
      from: (p: PermissionEntity, x: PermissionExtras) => x.principalNames.get(p.principalId) ?? null,
    }),
    PrincipalType: field.int('RO', { query: { filter: true }, description: '1 a user, 2 a security group.' }),
    RowName: field.string('RO', {
      nullable: true,
      column: null,
      description: 'The name of the secured row (a person’s full name, a unit’s, project’s or metric’s name, a dialog’s subject and date).',
      from: (p: PermissionEntity, x: PermissionExtras) => x.rowNames.get(p.rowId) ?? null,
    }),
    CreateText: text('createState', 'CreateState'),
    ReadText: text('readState', 'ReadState'),
    UpdateText: text('updateState', 'UpdateState'),
    DeleteText: text('deleteState', 'DeleteState'),
    DelegateText: text('delegateState', 'DelegateState'),
  },
});

export const { Response: PermissionDto, Create: CreatePermissionDto, Update: UpdatePermissionDto } = Permission;
export type PermissionDto = InstanceType<typeof PermissionDto>;
export type CreatePermissionDto = InstanceType<typeof CreatePermissionDto>;
export type UpdatePermissionDto = InstanceType<typeof UpdatePermissionDto>;

export class PermissionQuery extends QueriedPageQuery {
  @InputField('guid', { description: 'Only the permissions on this row.' })
  rowid?: string;

  @InputField('guid', { description: 'Only the permissions of this principal (a UserID or a security group id).' })
  principalid?: string;
}

export class EffectiveQuery {
  @InputField('guid', { required: true, description: 'The row: an individual, organization, department, project, dialog or metric of the site.' })
  rowid: string;

  @InputField('guid', { description: 'The principal: a UserID or a security group id of the site. Default: the caller.' })
  principalid?: string;
}

/** One operation's answer in the effective-rights view. */
export interface DecisionRow {
  operation: string;
  allowed: boolean;
  rule: string;
  state: string | null;
  permissionId: string | null;
  viaGroupId: string | null;
  throughRowId: string | null;
  childType: number | null;
  explanation: string;
}

export const PermissionDecision = resource<DecisionRow>()('PermissionDecision', {
  fields: {
    Operation: field.string('RO', { description: 'Create, Read, Update, Delete or Delegate.', column: 'operation' }),
    Allowed: field.bool('RO', { description: 'Whether the principal may do it.', column: 'allowed' }),
    Rule: field.string('RO', {
      description: 'What decided: administrator (may do everything in the site), permission (a Permission record), or default (no record applies).',
      column: 'rule',
    }),
    State: field.string('RO', { nullable: true, description: 'For Rule permission: Allow or Deny; else null.', column: 'state' }),
    PermissionID: field.guid('RO', { nullable: true, description: 'For Rule permission: the record that decided.', column: 'permissionId' }),
    ViaGroupID: field.guid('RO', {
      nullable: true,
      description: 'When the deciding record names a security group the principal belongs to: that group.',
      column: 'viaGroupId',
    }),
    ThroughRowID: field.guid('RO', {
      nullable: true,
      description: 'When the deciding record is on a row above this one and reaches it through its ChildType: that row.',
      column: 'throughRowId',
    }),
    ChildType: field.int('RO', { nullable: true, description: 'The ChildType of the deciding record (null: the row itself).', column: 'childType' }),
    Explanation: field.string('RO', { description: 'The decision in words.', column: 'explanation' }),
  },
});
export const PermissionDecisionDto = PermissionDecision.Response;
export type PermissionDecisionDto = InstanceType<typeof PermissionDecisionDto>;

export interface EffectiveRow {
  rowId: string;
  rowType: number;
  rowName: string | null;
  principalId: string;
  principalType: number;
  principalName: string | null;
  decisions: DecisionRow[];
}

/** GET /permissions/effective: the five operations of one principal on one row, with the rule that decided each. */
export const EffectivePermissions = resource<EffectiveRow>()('EffectivePermissions', {
  fields: {
    RowID: field.guid('RO', { column: 'rowId' }),
    RowType: field.int('RO', { column: 'rowType', description: '4 organization, 56 department, 39 individual, 15 project, 9 dialog, 7 metric.' }),
    RowName: field.string('RO', { nullable: true, column: 'rowName' }),
    PrincipalID: field.guid('RO', { column: 'principalId' }),
    PrincipalType: field.int('RO', { column: 'principalType', description: '1 a user, 2 a security group.' }),
    PrincipalName: field.string('RO', { nullable: true, column: 'principalName' }),
    Decisions: field.array('RO', {
      nested: () => PermissionDecisionDto,
      column: null,
      description: 'Create, Read, Update, Delete and Delegate, in that order. In XML one PermissionDecision element each.',
      from: (e: EffectiveRow) => e.decisions.map((d) => PermissionDecision.toWire(d)),
    }),
  },
});
export const EffectivePermissionsDto = EffectivePermissions.Response;
export type EffectivePermissionsDto = InstanceType<typeof EffectivePermissionsDto>;

/**
 * The body of POST /permissions/bulk (docs/bulk.md): a permission is named by its ID, or by its
 * RowID, PrincipalID and ChildType (unique together). Its rows and principals have no ExternalRefs:
 * RowID names rows of several kinds, PrincipalID a UserID or a security group.
 */
export const BulkPermissions = bulkRequestOf('Permission', { create: 'CreatePermissionDto', update: 'UpdatePermissionDto', refs: [] });
export type BulkPermissions = BulkRequest;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchPermissionDto: { body: { UpdateState: 2 } },
  BulkRequestOfPermission: {
    body: {
      Items: [
        {
          Op: 'upsert',
          Record: {
            RowID: 'INDIVIDUAL_ID',
            PrincipalID: 'USER_ID',
            ChildType: null,
            CreateState: 0,
            ReadState: 1,
            UpdateState: 1,
            DeleteState: 0,
            DelegateState: 0,
          },
        },
      ],
    },
  },
  CreatePermissionDto: {
    body: { RowID: 'INDIVIDUAL_ID', PrincipalID: 'USER_ID', ChildType: null, CreateState: 0, ReadState: 1, UpdateState: 2, DeleteState: 0, DelegateState: 0 },
  },
  UpdatePermissionDto: { body: { ID: 'PATH_ID', CreateState: 0, ReadState: 1, UpdateState: 1, DeleteState: 2, DelegateState: 0 } },
});
