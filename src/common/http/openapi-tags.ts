import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * What each tag of the document (a controller's `@ApiTags`) groups: the top-level `tags` list,
 * which Swagger UI shows as the section headings and linters want declared (docs/openapi.md).
 * A tag used by an operation and missing here is declared without a description, which the
 * document test (test/e2e/openapi.e2e-spec.ts) and the linters report.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication:
    'Log in: a user name and password for a bearer token (JWT), sent as `Authorization: Bearer <token>` on every other /v4 call; an identity provider’s token or an API token is sent the same way (docs/identity.md). Logout everywhere ends every earlier token of the account.',
  Site: 'The tenants. Every record belongs to one site; a caller acts in the site of their token, a global administrator in any.',
  Operations: 'For orchestrators and monitoring, outside /v4 and without a token: the liveness and readiness probes and the Prometheus metrics.',
  Period: 'The time spans that goals, commitments, dialogs, assessments and metric values belong to; closing a period archives its figures.',
  Permission:
    'Permission records: Allow or Deny on create, read, update, delete and delegate for a user or security group on a row (and, through ChildType, the rows below it); and the explanation of any decision.',
  ApiToken:
    'Scoped tokens for integrations, acting as a service principal of the site: created and revoked by administrators, the secret shown once (docs/identity.md).',
  IdentityProvider:
    'The site’s OpenID Connect identity providers, whose tokens the service accepts as the site’s people (single sign-on; administrators only).',
  SecurityGroup: 'Named groups of individuals that a Permission record can name as its principal (administrators only).',
  Comment: 'Comments on individuals, organizations, departments, projects, tasks, metrics and dialogs; the author or an administrator changes or deletes them.',
  Individual: 'The people of a site: their user account, their primary organization and title, and whom they report to.',
  Department: 'Organizations and departments (one Organization resource, RowType 4 or 56) as a tree, read and changed through /departments.',
  Organization: 'The organizations of a site (RowType 4), read only here: create and change them through /departments.',
  DepartmentMember: 'The membership of an individual in an organization or department, with its title; reached by id or by the pair of records.',
  Accountability: 'The accountabilities of an individual: ListItems ordered by Rank.',
  EvaluationCriteria: 'The evaluation criteria of an individual: ListItems ordered by Rank, rated in assessments.',
  SupervisoryScope: 'The supervisory scopes of an individual: ListItems ordered by Rank.',
  ProjectScope: 'The scopes of a project: ListItems ordered by Rank.',
  Project: 'Projects with their owner, start and due dates (each change of the due date is counted).',
  Goal: 'The goals of an individual in a period, each with up to five measures.',
  Color: 'The colors a site gives to ranges of percentages in its dashboards, and the three defaults shown while it has none of its own.',
  CoreValue: 'The core values of a site, rated in assessments (performance management).',
  Commitment: 'Commitments of an organization, department or individual in a period (performance management).',
  Metric: 'Metrics of an individual or project with a target and one actual value per period (performance management).',
  Archive: 'What closing a period froze: the figures of its metrics and dashboards, read only (the write operations change nothing).',
  Dialog: 'Performance dialogs in a period, held by a leader about an individual, organization, department or project (performance management).',
  Task: 'Follow-up tasks about an individual, organization, department or project, assigned to an individual (performance management).',
  BasicRole: 'The basic roles of an individual, each with the number of dialogs it calls for per period.',
  BasicRoleDialog: 'The rating of a basic role in a dialog.',
  Assessment: 'Self, leader and team assessments of an individual in a period, with their ratings (performance management).',
  Audit:
    'Who changed what and when: the audit trail of every write (administrators), the history of one record (whoever may read it), and delta sync of a collection since a cursor.',
  Webhook:
    'Endpoints that receive signed events (Standard Webhooks) after each committed change, with their delivery log, redelivery, ping and secret rotation (administrators).',
  SCIM: 'SCIM 2.0 provisioning at /scim/v2 (RFC 7643/7644) for Okta, Microsoft Entra ID and other identity providers: Users (the site’s people) and Groups (its security groups), JSON only, for an API token with the scope scim (docs/identity.md).',
  Dashboard: 'Figures of an organization, department or individual in a period, the site’s dashboard settings, and how each figure is computed.',
};

/** Declares every tag the operations use, in the order they first appear (Swagger UI's section order). */
export function declareTags(document: OpenAPIObject): void {
  const names: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item as Record<string, { tags?: string[] }>)) {
      for (const tag of op?.tags ?? []) if (!names.includes(tag)) names.push(tag);
    }
  }
  document.tags = names.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
}
