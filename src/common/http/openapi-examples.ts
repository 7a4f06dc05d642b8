import { ordinalCompare } from './wire.js';
import { XSI_NS } from './codec.js';

/**
 * One request-body example per input type, shown by Swagger UI and executed by
 * test/e2e/openapi-examples.e2e-spec.ts. An example without placeholders answers 200 when sent
 * unchanged to a fresh server. A placeholder is an upper-case token standing for a whole value
 * that only the reader knows (an id the server generated, a password); the document shows an id
 * placeholder as a fixed example id of the field's type (`exampleValue`), so every example is valid
 * against its schema, and the request body's description says what to put there (docs/openapi.md).
 */
export interface BodyExample {
  /** The JSON body, with placeholder tokens; the XML example is the same data (`xmlExampleValue`). */
  body: Record<string, unknown>;
  /** Form-encoded body, for the login only. */
  form?: Record<string, string>;
}

/** What a placeholder stands for, and for an id the example value the document shows in its place. */
export interface Placeholder {
  /** Quoted by the request body's description: "replace `Field` (**value**) with <means>". */
  means: string;
  /** The example id shown in a UUID field, and in an integer field. A placeholder with neither is shown as its token (a string field). */
  uuid?: string;
  integer?: number;
}

/** Example UUIDs: recognisably made up, of version 4 as the service's own, one per placeholder. */
const exampleUuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const PLACEHOLDERS: Record<string, Placeholder> = {
  PATH_ID: {
    means: 'the id of the path (read the record first and send it back changed: the body ID must equal the path id)',
    uuid: exampleUuid(1),
    integer: 1,
  },
  ADMIN_PASSWORD: { means: 'the administrator password (ADMIN_PASSWORD, or the one printed at the first start)' },
  INDIVIDUAL_ID: { means: 'the ID of an individual of the site (GET /v4/me answers yours)', uuid: exampleUuid(2) },
  ORGANIZATION_ID: {
    means: 'the ID of an organization or department of the site (GET /v4/organizations lists the organizations)',
    uuid: exampleUuid(3),
  },
  DEPARTMENT_ID: {
    means: 'the ID of a department (or organization) the individual is not yet a member of (POST /v4/departments creates one)',
    uuid: exampleUuid(4),
  },
  PERIOD_ID: { means: 'the ID of a period (create one with POST /v4/periods, list them with GET /v4/periods)', integer: 1 },
  ANCESTOR_ID: {
    means:
      'the ID of the owner: for accountabilities, evaluation criteria and supervisory scopes an individual (GET /v4/me answers yours), for project scopes a project',
    uuid: exampleUuid(5),
  },
  USER_ID: { means: 'the UserID of an individual of the site, or the ID of a security group (GET /v4/me answers your UserID)', uuid: exampleUuid(6) },
  USER_NAME: { means: 'the UserName the individual keeps (its current one, from GET /v4/individuals/{id}) or a new one' },
};

/**
 * What the document shows for a placeholder in a field: its example UUID, or its example integer
 * when the field is an integer (the ids of periods, goals, colors…), or the token itself.
 */
export function exampleValue(token: string, integerField: boolean): unknown {
  const p = PLACEHOLDERS[token];
  if (integerField && p.integer !== undefined) return p.integer;
  return p.uuid ?? p.integer ?? token;
}

/**
 * The placeholder a value of a documented example stands for, if it is one: an example id in an id
 * field (`…ID`; `ID` itself only ever holds the path's id, other id fields the other placeholders,
 * whose example values differ), or a token (a password, a user name) in any field.
 */
export function placeholderOf(field: string, value: unknown): string | undefined {
  const idField = field.endsWith('ID');
  const shows = (token: string) => {
    const p = PLACEHOLDERS[token];
    if (p.uuid === undefined && p.integer === undefined) return value === token;
    return idField && (value === p.uuid || value === p.integer);
  };
  if (field === 'ID') return shows('PATH_ID') ? 'PATH_ID' : undefined;
  return Object.keys(PLACEHOLDERS).find((token) => token !== 'PATH_ID' && shows(token));
}

const date = (d: string) => `${d}T00:00:00.000+00:00`;

/**
 * The PATCH bodies (merge patches, src/common/http/merge-patch.ts), keyed like REQUEST_EXAMPLES by
 * their schema's name: a change of a field or two, and a null where the field may be cleared.
 * They name no record, so they work unchanged on any record of the kind.
 */
const PATCH_EXAMPLES: Record<string, BodyExample> = {
  PatchSiteDto: { body: { Name: 'Initech Worldwide' } },
  PatchPeriodDto: { body: { Name: 'FY 2027 (audited)' } },
  PatchOrganizationDto: { body: { Description: 'New business, renewals and partner sales' } },
  PatchIndividualDto: { body: { PrimaryTitle: 'Team lead', UserDefined1: null } },
  PatchOrganizationMemberDto: { body: { Title: 'Interim project lead' } },
  PatchListItemDto: { body: { Description: 'Keep the yearly CSAT above 4.7' } },
  PatchProjectDto: { body: { DueDate: date('2027-08-31'), CompletedDate: null } },
  PatchGoalDto: { body: { Measure1Completed: true, Comment: 'Interviews done' } },
  PatchColorDto: { body: { MaxPercent: 140 } },
  PatchPermissionDto: { body: { UpdateState: 2 } },
  PatchIdentityProviderDto: { body: { Enabled: false } },
  PatchSecurityGroupDto: { body: { Description: 'Read the records of the individuals they support.' } },
  PatchCoreValueDto: { body: { Description: 'We do what we say, and we say so when we cannot.' } },
  PatchCommentDto: { body: { Body: 'Great progress this quarter (edited).' } },
  PatchCommitmentDto: { body: { Completed: true } },
  PatchMetricDto: { body: { Target: 115 } },
  PatchBasicRoleDto: { body: { DialogsPerPeriod: 3 } },
  PatchDashboardSettingsDto: { body: { Threshold3: 120, ShowTeamAssessment: true } },
  PatchBasicRoleDialogDto: { body: { Rating: 5 } },
  PatchDialogDto: { body: { OccurredDate: date('2027-03-17'), Notes: 'Held, one day late' } },
  PatchTaskDto: { body: { Completed: true } },
  PatchAssessmentDto: { body: { Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 3 }] } },
  PatchWebhookDto: { body: { EventTypes: 'dialog.held period.closed task.completed' } },
};

/** Keyed by the OpenAPI schema name of the request body (the input DTO's class name). */
export const REQUEST_EXAMPLES: Record<string, BodyExample> = {
  ...PATCH_EXAMPLES,
  TokenRequest: {
    body: { UserName: 'admin', Password: 'ADMIN_PASSWORD' },
    form: { grant_type: 'password', username: 'admin', password: 'ADMIN_PASSWORD' },
  },
  CreateSiteDto: { body: { Name: 'Initech', PerformanceManagement: true } },
  CreateWebhookDto: { body: { URL: 'https://hooks.example.com/pms', EventTypes: 'dialog.held period.closed', Description: 'HRIS sync' } },
  UpdateWebhookDto: { body: { ID: 'PATH_ID', URL: 'https://hooks.example.com/pms/v2', EventTypes: 'dialog.held period.closed individual.*', Active: true } },
  UpdateSiteDto: { body: { ID: 'PATH_ID', Name: 'Initech Europe', PerformanceManagement: true } },
  CreatePeriodDto: { body: { Name: 'FY 2027', StartDate: date('2027-01-01'), EndDate: '2027-12-31T23:59:59.999+00:00' } },
  UpdatePeriodDto: { body: { ID: 'PATH_ID', Name: 'Fiscal year 2027', StartDate: date('2027-01-01'), EndDate: '2027-12-31T23:59:59.999+00:00' } },
  CreateOrganizationDto: { body: { Name: 'Sales', Description: 'New business and renewals', RowType: 56, Rank: 1 } },
  UpdateOrganizationDto: { body: { ID: 'PATH_ID', Name: 'Sales and Marketing', Description: 'New business, renewals and campaigns', Rank: 1 } },
  CreateIndividualDto: {
    body: {
      FirstName: 'Jane',
      LastName: 'Doe',
      UserName: 'jane.doe',
      Password: 'choose-a-good-password',
      Email: 'jane.doe@example.com',
      UserEmail: 'jane.doe@example.com',
      PrimaryOrganizationID: 'ORGANIZATION_ID',
      PrimaryTitle: 'Account Executive',
      PrimaryReportsTo: null,
      HireDate: date('2026-03-01'),
      IsAdmin: false,
    },
  },
  UpdateIndividualDto: { body: { ID: 'PATH_ID', FirstName: 'Jane', LastName: 'Doe-Smith', UserName: 'USER_NAME', PrimaryTitle: 'Senior Account Executive' } },
  CreateOrganizationMemberDto: { body: { IndividualID: 'INDIVIDUAL_ID', OrganizationID: 'DEPARTMENT_ID', Title: 'Project lead' } },
  CreatePairMemberDto: { body: { Title: 'Project lead' } },
  UpdateOrganizationMemberDto: { body: { Title: 'Senior project lead' } },
  CreateListItemDto: { body: { AncestorID: 'ANCESTOR_ID', Rank: 1, Name: 'Customer satisfaction', Description: 'Keep the yearly CSAT above 4.5' } },
  UpdateListItemDto: { body: { ID: 'PATH_ID', Rank: 2, Name: 'Customer satisfaction', Description: 'Keep the yearly CSAT above 4.6' } },
  CreateProjectDto: {
    body: { Name: 'Website relaunch', Description: 'New site and shop', OwnerID: 'INDIVIDUAL_ID', StartDate: date('2027-01-04'), DueDate: date('2027-06-30') },
  },
  UpdateProjectDto: { body: { ID: 'PATH_ID', Name: 'Website relaunch', Description: 'New site, shop and blog', DueDate: date('2027-07-31') } },
  CreateGoalDto: { body: { IndividualID: 'INDIVIDUAL_ID', ...goal() } },
  UpdateGoalDto: { body: { ID: 'PATH_ID', ...goal(), Measure1Completed: true } },
  CreateColorDto: { body: { Name: 'Blue', ColorValue: 255, MinPercent: 100, MaxPercent: 120, Rank: 4 } },
  UpdateColorDto: { body: { ID: 'PATH_ID', Name: 'Blue', ColorValue: 3355647, MinPercent: 100, MaxPercent: 150, Rank: 4 } },
  CreatePermissionDto: {
    body: { RowID: 'INDIVIDUAL_ID', PrincipalID: 'USER_ID', ChildType: null, CreateState: 0, ReadState: 1, UpdateState: 2, DeleteState: 0, DelegateState: 0 },
  },
  UpdatePermissionDto: { body: { ID: 'PATH_ID', CreateState: 0, ReadState: 1, UpdateState: 1, DeleteState: 2, DelegateState: 0 } },
  CreateApiTokenDto: { body: { Name: 'Payroll sync', Scopes: 'individuals:read goals:write' } },
  CreateIdentityProviderDto: {
    body: {
      Name: 'Okta',
      Issuer: 'https://example.okta.com/oauth2/default',
      ClientID: '0oa1b2c3d4e5f6g7h8i9',
      Audiences: 'api://pms',
      UserClaim: 'email',
      GroupsClaim: 'groups',
    },
  },
  UpdateIdentityProviderDto: {
    body: {
      ID: 'PATH_ID',
      Name: 'Okta (production)',
      Issuer: 'https://example.okta.com/oauth2/default',
      ClientID: '0oa1b2c3d4e5f6g7h8i9',
      JitProvisioning: true,
    },
  },
  CreateSecurityGroupDto: { body: { Name: 'HR partners', Description: 'Read the records of every individual they support.' } },
  UpdateSecurityGroupDto: {
    body: { ID: 'PATH_ID', Name: 'HR business partners', Description: 'Read and update the records of the individuals they support.' },
  },
  CreateCoreValueDto: { body: { Name: 'Integrity', Description: 'We do what we say, and say what we do.', Rank: 1 } },
  UpdateCoreValueDto: { body: { ID: 'PATH_ID', Name: 'Integrity', Description: 'We do what we say.', Rank: 1 } },
  CreateCommentDto: { body: { AncestorID: 'INDIVIDUAL_ID', AncestorType: 'individuals', Body: 'Great progress this quarter, keep it up.' } },
  UpdateCommentDto: { body: { ID: 'PATH_ID', Body: 'Great progress this quarter.' } },
  CreateCommitmentDto: {
    body: {
      Type: 'individual',
      AncestorID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      Name: 'Close the Q1 deals',
      Description: 'All deals in the pipeline',
      DueDate: date('2027-03-31'),
      Completed: false,
      Rank: 1,
    },
  },
  UpdateCommitmentDto: { body: { ID: 'PATH_ID', PeriodID: 'PERIOD_ID', Name: 'Close the Q1 deals', DueDate: date('2027-03-31'), Completed: true, Rank: 1 } },
  CreateMetricDto: {
    body: { Kind: 'individual', AncestorID: 'INDIVIDUAL_ID', Name: 'Net revenue retention (%)', Is8020: true, Target: 110, HigherIsBetter: true },
  },
  UpdateMetricDto: { body: { ID: 'PATH_ID', Name: 'Net revenue retention (%)', Is8020: true, Target: 112.5, HigherIsBetter: true } },
  PutMetricValueDto: { body: { Actual: 104.25 } },
  CreateBasicRoleDto: { body: { IndividualID: 'INDIVIDUAL_ID', Name: 'People leader', Description: 'Leads and grows the team', Rank: 1, DialogsPerPeriod: 2 } },
  UpdateBasicRoleDto: { body: { ID: 'PATH_ID', Name: 'People leader', Description: 'Leads, coaches and grows the team', Rank: 1, DialogsPerPeriod: 2 } },
  UpdateDashboardSettingsDto: {
    body: {
      Threshold1: 75,
      Threshold2: 95,
      Threshold3: 115,
      ShowMetrics: true,
      ShowDialogs: true,
      ShowFollowUps: true,
      ShowProjectLoad: true,
      ShowEvaluationCriteria: true,
      ShowLeaderAssessment: true,
      ShowTeamAssessment: false,
      ShowGoals: true,
      ShowOrgCommitments: true,
      ShowDeptCommitments: true,
      ShowIndCommitments: true,
      Show8020Metrics: true,
    },
  },
  PutBasicRoleDialogDto: { body: { Rating: 4, Comment: 'Coached two new hires to independence' } },
  CreateDialogDto: {
    body: {
      Kind: 'individual',
      AncestorID: 'INDIVIDUAL_ID',
      LeaderID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      ScheduledDate: date('2027-03-15'),
      Notes: 'Mid-year review',
    },
  },
  UpdateDialogDto: {
    body: {
      ID: 'PATH_ID',
      LeaderID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      ScheduledDate: date('2027-03-15'),
      OccurredDate: date('2027-03-16'),
      Notes: 'Held',
    },
  },
  CreateTaskDto: {
    body: { Kind: 'individual', AncestorID: 'INDIVIDUAL_ID', AssignedToID: 'INDIVIDUAL_ID', Name: 'Write the project plan', DueDate: date('2027-04-30') },
  },
  UpdateTaskDto: { body: { ID: 'PATH_ID', Name: 'Write the project plan', DueDate: date('2027-04-30'), Completed: true } },
  CreateAssessmentDto: {
    body: {
      Kind: 'self',
      SubjectID: 'INDIVIDUAL_ID',
      AssessorID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 4 }],
    },
  },
  UpdateAssessmentDto: { body: { ID: 'PATH_ID', Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 5 }] } },
};

/** Operations whose body differs from what the schema alone says (keyed `METHOD /path`). */
export const OPERATION_EXAMPLES: Record<string, BodyExample> = {
  // The membership-by-id route wants the body ID equal to the path id; the pair routes do not.
  'PUT /v4/departmentmembers/{id}': { body: { ID: 'PATH_ID', Title: 'Senior project lead' } },
};

function goal(): Record<string, unknown> {
  return {
    Name: 'Improve customer satisfaction',
    Why: 'Satisfied customers renew',
    Comment: '',
    Completed: false,
    DueDate: date('2027-12-31'),
    PeriodID: 'PERIOD_ID',
    Measure1: 'Run 10 customer interviews',
    Measure1Completed: false,
    Measure1StartDate: date('2027-01-01'),
    Measure1EndDate: date('2027-03-31'),
    Measure2: 'Fix the top 5 pain points',
    Measure2Completed: false,
    Measure2StartDate: date('2027-04-01'),
    Measure2EndDate: date('2027-09-30'),
    Measure3: 'Raise CSAT to 4.5',
    Measure3Completed: false,
    Measure3StartDate: date('2027-10-01'),
    Measure3EndDate: date('2027-12-31'),
    Measure4: '',
    Measure4Completed: false,
    Measure4StartDate: date('2027-01-01'),
    Measure4EndDate: date('2027-12-31'),
    Measure5: '',
    Measure5Completed: false,
    Measure5StartDate: date('2027-01-01'),
    Measure5EndDate: date('2027-12-31'),
  };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The element name of the items of a nested list member, as DataContractSerializer writes it. */
export const LIST_ITEM_ELEMENT: Record<string, string> = { Ratings: 'AssessmentRating', Values: 'MetricValue' };

/**
 * The XML form of a JSON example, as the service reads it and as .NET's DataContractSerializer
 * writes it: root named after the type in the service's namespace, children in ordinal order,
 * nulls as i:nil.
 */
export function xmlExample(root: string, namespace: string, body: Record<string, unknown>): string {
  const nil = JSON.stringify(body).includes(':null');
  return `<${root} xmlns="${namespace}"${nil ? ` xmlns:i="${XSI_NS}"` : ''}>\n${xmlChildren(body, '  ')}\n</${root}>`;
}

/** The members of an object in ordinal order; nested lists one element per item, members likewise. */
function xmlChildren(body: Record<string, unknown>, indent: string): string {
  return Object.keys(body)
    .sort(ordinalCompare)
    .map((k) => {
      const v = body[k];
      if (v === null) return `${indent}<${k} i:nil="true"/>`;
      if (Array.isArray(v)) {
        const item = LIST_ITEM_ELEMENT[k] ?? 'Item';
        const items = v.map((x) => `${indent}  <${item}>\n${xmlChildren(x as Record<string, unknown>, indent + '    ')}\n${indent}  </${item}>`);
        return `${indent}<${k}>\n${items.join('\n')}\n${indent}</${k}>`;
      }
      return `${indent}<${k}>${escapeXml(String(v))}</${k}>`;
    })
    .join('\n');
}
