import { OPERATION_EXAMPLES } from '../../src/common/http/openapi-examples.js';
import { CREATES, example, make, MadeKind, makeMembership, unique, World, WorldIds } from '../factories/world.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { bearer, type TestApp } from './harness.js';
import { type AppRoute, fillPath } from './routes.js';

/**
 * How to call each route of the app on the records of a World (test/factories/world.ts): one line
 * per route, keyed `METHOD /path` exactly as test/e2e/routes.ts lists it. The tenancy matrix sends
 * each call with another site's ids, the roles matrix as every kind of caller; both fail naming a
 * route that has no line here, so a new route gets its line when it is added.
 */
export type Params = Record<string, string>;
type Json = Record<string, unknown>;

export interface RouteCase {
  /** The path parameters, naming records of the world (every route with parameters has them). */
  params?: (w: World) => Params;
  /** For a call that uses up its record (DELETE, close, a POST of a pair): parameters of records made for the call, over `params`. */
  fresh?: (t: TestApp, w: World) => Promise<Params>;
  /** The body of a PUT, PATCH or POST, valid in the world for the records of `p` (the path's or, with another site's ids, that site's). */
  body?: (w: World, p: Params) => Json;
  /** The answer with another site's ids when it is not 404 (403 under /sites/{siteid}), and why. */
  foreign?: { status: number; why: string };
  /** The answer on the world's own records when the body names another site's SiteID, when not the usual one, and why. */
  foreignSiteId?: { status: number; why: string };
  /** Query parameters of the call, from its parameters (for routes that name records in the query). */
  query?: (p: Params) => Params;
  /**
   * The call ends every token of the caller's account (logout everywhere): the accounts are put
   * back as they were after it, so the matrices can go on calling as the same people.
   */
  endsCallerTokens?: true;
  /**
   * The credential the tenancy matrix calls the route with when it is not the site
   * administrator's: SCIM routes take only an API token with the scope scim.
   */
  token?: (w: World) => string;
}

type IdKind = keyof WorldIds;
const str = (v: string | number) => String(v);

/** The route names the world's record of `kind` as `:name`. */
const on = (kind: IdKind, name = 'id'): RouteCase => ({ params: (w) => ({ [name]: str(w.ids[kind]) }) });
/** The same, but the call uses its record up: each call gets a new one. */
const usedUp = (kind: IdKind & MadeKind, name = 'id'): RouteCase => ({ ...on(kind, name), fresh: async (t, w) => ({ [name]: await make(t, w, kind) }) });
/** `/sites/:siteid/…` of the world's site. */
const site = (name = 'siteid'): RouteCase => ({ params: (w) => ({ [name]: w.siteId }) });
/** POST of a new record, with the body the world itself is built with. */
const creates = (kind: MadeKind): RouteCase => ({ body: (w) => CREATES[kind].body(w) });
/** PUT of a record: the OpenAPI example of the DTO, its ID the path's, other placeholders from the world. */
const updates = (kind: IdKind, dto: string, values: (w: World) => Json = () => ({})): RouteCase => ({
  ...on(kind),
  body: (w, p) => example(dto, { PATH_ID: typeof w.ids[kind] === 'number' ? Number(p.id) : p.id, ...values(w) }),
});
/** PATCH of a record: the OpenAPI example of its merge patch (it names no record). */
const patches = (kind: IdKind, dto: string): RouteCase => ({ ...on(kind), body: () => example(dto, {}) });
/** The two path forms of a membership: the subject in the world's department. */
const pair: RouteCase = { params: (w) => ({ departmentId: w.ids.department, individualId: w.ids.individual }) };
const period = (w: World) => ({ PERIOD_ID: w.ids.period });
const UNSUPPORTED = { status: 200, why: 'unsupported archive write: answers {} for any id and changes nothing (docs/metrics-archives.md)' };

/** SCIM provisioning (docs/identity.md): the world's scim token; a create answers 201, a delete 204. */
const scimToken = (w: World) => w.scimToken;
const SCIM_SAME = { status: 200, why: 'names a resource type or schema, the same in every site' };
const SCIM_CASES: Record<string, RouteCase> = {
  'GET /scim/v2/Users': { token: scimToken },
  'POST /scim/v2/Users': {
    token: scimToken,
    body: () => ({ userName: `${unique('scim.')}@example.com`, name: { givenName: 'Sam', familyName: 'Scim' } }),
    foreignSiteId: { status: 201, why: 'SCIM answers a create 201 (the site is the token’s)' },
  },
  'GET /scim/v2/Users/:id': { ...on('individual'), token: scimToken },
  // The subject keeps its manager and title: the matrices' reporting chain must not move.
  'PUT /scim/v2/Users/:id': {
    ...on('individual'),
    token: scimToken,
    body: (w) => ({
      userName: w.worker.userName,
      name: { givenName: 'Wil', familyName: 'Worker' },
      title: 'Tester',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { manager: { value: w.manager.individualId } },
    }),
  },
  'PATCH /scim/v2/Users/:id': {
    ...on('individual'),
    token: scimToken,
    body: () => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'title', value: 'Tester' }] }),
  },
  'DELETE /scim/v2/Users/:id': { ...usedUp('individual'), token: scimToken, foreignSiteId: { status: 204, why: 'SCIM answers a delete 204' } },
  'GET /scim/v2/Groups': { token: scimToken },
  'POST /scim/v2/Groups': {
    token: scimToken,
    body: (w) => ({ displayName: `${w.tag} SCIM group` }),
    foreignSiteId: { status: 201, why: 'SCIM answers a create 201 (the site is the token’s)' },
  },
  'GET /scim/v2/Groups/:id': { ...on('securitygroup'), token: scimToken },
  'PUT /scim/v2/Groups/:id': { ...on('securitygroup'), token: scimToken, body: (w) => ({ displayName: `${w.tag} SCIM group` }) },
  'PATCH /scim/v2/Groups/:id': {
    ...on('securitygroup'),
    token: scimToken,
    body: (w) => ({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: `${w.tag} SCIM group` }],
    }),
  },
  'DELETE /scim/v2/Groups/:id': { ...usedUp('securitygroup'), token: scimToken, foreignSiteId: { status: 204, why: 'SCIM answers a delete 204' } },
  'GET /scim/v2/ServiceProviderConfig': { token: scimToken },
  'GET /scim/v2/ResourceTypes': { token: scimToken },
  'GET /scim/v2/ResourceTypes/:id': { params: () => ({ id: 'User' }), token: scimToken, foreign: SCIM_SAME },
  'GET /scim/v2/Schemas': { token: scimToken },
  'GET /scim/v2/Schemas/:id': { params: () => ({ id: 'urn:ietf:params:scim:schemas:core:2.0:User' }), token: scimToken, foreign: SCIM_SAME },
};

export const ROUTE_CASES: Record<string, RouteCase> = {
  'GET /health/live': {},
  'GET /health/ready': {},
  'GET /v4/metrics': {},
  'POST /v4/auth/token': {
    body: (w) => ({ UserName: w.worker.userName, Password: w.worker.password }),
    foreignSiteId: { status: 403, why: 'SiteID of a login names the site to act in: only a global administrator may name another' },
  },

  'GET /v4/sites': {},
  'POST /v4/sites': { body: () => example('CreateSiteDto', {}) },
  'GET /v4/sites/:siteid': site(),
  'PUT /v4/sites/:siteid': { ...site(), body: (w, p) => ({ ...example('UpdateSiteDto', { PATH_ID: p.siteid }), Name: `${w.tag} site` }) },
  'PATCH /v4/sites/:siteid': { ...site(), body: (w) => ({ Name: `${w.tag} site` }) },
  'GET /v4/sites/:siteid/colors': site(),
  'GET /v4/sites/:siteid/colors/defaults': site(),
  'GET /v4/sites/:siteId/corevalues': site('siteId'),
  'GET /v4/sites/:siteid/departments': site(),
  'GET /v4/sites/:siteid/individuals': site(),
  'GET /v4/sites/:siteid/individuals/basicroles': site(),
  'GET /v4/sites/:siteId/metrics': site('siteId'),

  'GET /v4/me': {},
  'GET /v4/me/accountabilities': {},
  'GET /v4/me/basicroles': {},
  'GET /v4/me/comments': {},
  'GET /v4/me/departments': {},
  'GET /v4/me/evaluationcriteria': {},
  'GET /v4/me/goals': {},
  'GET /v4/me/metrics': {},
  'GET /v4/me/projects': {},
  'GET /v4/me/projectscopes': {},
  'GET /v4/me/supervisoryscopes': {},
  'GET /v4/me/tasks': {},

  'GET /v4/individuals': {},
  'POST /v4/individuals': creates('individual'),
  'GET /v4/individuals/:id': on('individual'),
  'PUT /v4/individuals/:id': updates('individual', 'UpdateIndividualDto', (w) => ({ USER_NAME: w.worker.userName })),
  'PATCH /v4/individuals/:id': patches('individual', 'PatchIndividualDto'),
  'DELETE /v4/individuals/:id': usedUp('individual'),
  'PUT /v4/individuals/:id/undelete': on('individual'),
  'GET /v4/individuals/:id/assessments': on('individual'),
  'GET /v4/individuals/:id/commitments': on('individual'),
  'GET /v4/individuals/:id/departmentmembers': on('individual'),
  'GET /v4/individuals/:id/departments': on('individual'),
  'GET /v4/individuals/:id/dialogs': on('individual'),
  'GET /v4/individuals/:id/goals': on('individual'),
  'GET /v4/individuals/:id/metrics': on('individual'),
  'GET /v4/individuals/:id/projects': on('individual'),
  'GET /v4/individuals/:id/tasks': on('individual'),
  'GET /v4/individuals/:ancestorid/archives': on('individual', 'ancestorid'),
  'GET /v4/individuals/:ancestorid/comments': on('individual', 'ancestorid'),
  'GET /v4/individuals/:individualid/accountabilities': on('individual', 'individualid'),
  'GET /v4/individuals/:individualid/accountabilities/:accountabilityid': {
    params: (w) => ({ individualid: w.ids.individual, accountabilityid: w.ids.accountability }),
  },
  'GET /v4/individuals/:individualid/basicroles': on('individual', 'individualid'),
  'GET /v4/individuals/:individualid/basicroles/:id': { params: (w) => ({ individualid: w.ids.individual, id: w.ids.basicrole }) },
  'GET /v4/individuals/:individualid/evaluationcriteria': on('individual', 'individualid'),
  'GET /v4/individuals/:individualid/evaluationcriteria/:evaluationcriteriaid': {
    params: (w) => ({ individualid: w.ids.individual, evaluationcriteriaid: w.ids.evaluationcriteria }),
  },
  'GET /v4/individuals/:individualid/supervisoryscopes': on('individual', 'individualid'),
  'GET /v4/individuals/:individualid/supervisoryscopes/:supervisoryscopeid': {
    params: (w) => ({ individualid: w.ids.individual, supervisoryscopeid: w.ids.supervisoryscope }),
  },
  'GET /v4/individuals/:individualId/departments/:departmentId/departmentmembers': pair,
  'POST /v4/individuals/:individualId/departments/:departmentId/departmentmembers': {
    ...pair,
    fresh: async (t, w) => ({ departmentId: await make(t, w, 'department') }),
    body: () => example('CreatePairMemberDto', {}),
  },
  'PUT /v4/individuals/:individualId/departments/:departmentId/departmentmembers': { ...pair, body: () => example('UpdateOrganizationMemberDto', {}) },
  'PATCH /v4/individuals/:individualId/departments/:departmentId/departmentmembers': { ...pair, body: () => example('PatchOrganizationMemberDto', {}) },
  'DELETE /v4/individuals/:individualId/departments/:departmentId/departmentmembers': { ...pair, fresh: (t, w) => makeMembership(t, w) },

  'GET /v4/organizations': {},
  'GET /v4/organizations/:id': on('organization'),
  'GET /v4/organizations/:id/commitments': on('organization'),
  'GET /v4/organizations/:ancestorid/archives': on('organization', 'ancestorid'),
  'GET /v4/organizations/:ancestorid/comments': on('organization', 'ancestorid'),

  'GET /v4/departments': {},
  'POST /v4/departments': creates('department'),
  'GET /v4/departments/:id': on('department'),
  'PUT /v4/departments/:id': updates('department', 'UpdateOrganizationDto'),
  'PATCH /v4/departments/:id': patches('department', 'PatchOrganizationDto'),
  'DELETE /v4/departments/:id': usedUp('department'),
  'PUT /v4/departments/:id/undelete': on('department'),
  'GET /v4/departments/:id/commitments': on('department'),
  'GET /v4/departments/:id/departmentmembers': on('department'),
  'GET /v4/departments/:ancestorid/comments': on('department', 'ancestorid'),
  'GET /v4/departments/:departmentId/individuals/:individualId/departmentmembers': pair,
  'POST /v4/departments/:departmentId/individuals/:individualId/departmentmembers': {
    ...pair,
    fresh: async (t, w) => ({ departmentId: await make(t, w, 'department') }),
    body: () => example('CreatePairMemberDto', {}),
  },
  'PUT /v4/departments/:departmentId/individuals/:individualId/departmentmembers': { ...pair, body: () => example('UpdateOrganizationMemberDto', {}) },
  'PATCH /v4/departments/:departmentId/individuals/:individualId/departmentmembers': { ...pair, body: () => example('PatchOrganizationMemberDto', {}) },
  'DELETE /v4/departments/:departmentId/individuals/:individualId/departmentmembers': { ...pair, fresh: (t, w) => makeMembership(t, w) },

  'POST /v4/departmentmembers': {
    fresh: async (t, w) => ({ departmentId: await make(t, w, 'department') }),
    body: (w, p) => example('CreateOrganizationMemberDto', { INDIVIDUAL_ID: w.ids.individual, DEPARTMENT_ID: p.departmentId }),
  },
  'PUT /v4/departmentmembers/:id': { ...on('membership'), body: (w, p) => ({ ...OPERATION_EXAMPLES['PUT /v4/departmentmembers/{id}'].body, ID: p.id }) },
  'PATCH /v4/departmentmembers/:id': patches('membership', 'PatchOrganizationMemberDto'),
  'DELETE /v4/departmentmembers/:id': { ...on('membership'), fresh: async (t, w) => ({ id: (await makeMembership(t, w)).id }) },

  'GET /v4/periods': {},
  'POST /v4/periods': creates('period'),
  'GET /v4/periods/:id': on('period'),
  'PUT /v4/periods/:id': { ...updates('period', 'UpdatePeriodDto'), fresh: async (t, w) => ({ id: await make(t, w, 'period') }) },
  'PATCH /v4/periods/:id': { ...patches('period', 'PatchPeriodDto'), fresh: async (t, w) => ({ id: await make(t, w, 'period') }) },
  'DELETE /v4/periods/:id': usedUp('period'),
  'PUT /v4/periods/:id/close': usedUp('period'),

  'POST /v4/accountabilities': creates('accountability'),
  'GET /v4/accountabilities/:id': on('accountability'),
  'PUT /v4/accountabilities/:id': updates('accountability', 'UpdateListItemDto'),
  'PATCH /v4/accountabilities/:id': patches('accountability', 'PatchListItemDto'),
  'DELETE /v4/accountabilities/:id': usedUp('accountability'),
  'PUT /v4/accountabilities/:id/undelete': on('accountability'),
  'POST /v4/evaluationcriteria': creates('evaluationcriteria'),
  'GET /v4/evaluationcriteria/:id': on('evaluationcriteria'),
  'PUT /v4/evaluationcriteria/:id': updates('evaluationcriteria', 'UpdateListItemDto'),
  'PATCH /v4/evaluationcriteria/:id': patches('evaluationcriteria', 'PatchListItemDto'),
  'DELETE /v4/evaluationcriteria/:id': usedUp('evaluationcriteria'),
  'PUT /v4/evaluationcriteria/:id/undelete': on('evaluationcriteria'),
  'POST /v4/supervisoryscopes': creates('supervisoryscope'),
  'GET /v4/supervisoryscopes/:id': on('supervisoryscope'),
  'PUT /v4/supervisoryscopes/:id': updates('supervisoryscope', 'UpdateListItemDto'),
  'PATCH /v4/supervisoryscopes/:id': patches('supervisoryscope', 'PatchListItemDto'),
  'DELETE /v4/supervisoryscopes/:id': usedUp('supervisoryscope'),
  'PUT /v4/supervisoryscopes/:id/undelete': on('supervisoryscope'),
  'POST /v4/projectscopes': creates('projectscope'),
  'GET /v4/projectscopes/:id': on('projectscope'),
  'PUT /v4/projectscopes/:id': updates('projectscope', 'UpdateListItemDto'),
  'PATCH /v4/projectscopes/:id': patches('projectscope', 'PatchListItemDto'),
  'DELETE /v4/projectscopes/:id': usedUp('projectscope'),
  'PUT /v4/projectscopes/:id/undelete': on('projectscope'),

  'GET /v4/projects': {},
  'POST /v4/projects': creates('project'),
  'GET /v4/projects/:id': on('project'),
  'PUT /v4/projects/:id': updates('project', 'UpdateProjectDto'),
  'PATCH /v4/projects/:id': patches('project', 'PatchProjectDto'),
  'DELETE /v4/projects/:id': usedUp('project'),
  'PUT /v4/projects/:id/undelete': on('project'),
  'GET /v4/projects/:id/metrics': on('project'),
  'GET /v4/projects/:ancestorid/comments': on('project', 'ancestorid'),
  'GET /v4/projects/:ancestorid/metricArchives': on('project', 'ancestorid'),
  'GET /v4/projects/:itemid/archives/:id': { params: (w) => ({ itemid: w.ids.project, id: w.ids.projectArchive }) },
  'GET /v4/projects/:projectid/projectscopes': on('project', 'projectid'),
  'GET /v4/projects/:projectid/projectscopes/:projectscopeid': { params: (w) => ({ projectid: w.ids.project, projectscopeid: w.ids.projectscope }) },

  'POST /v4/goals': creates('goal'),
  'GET /v4/goals/:id': on('goal'),
  'PUT /v4/goals/:id': updates('goal', 'UpdateGoalDto', period),
  'PATCH /v4/goals/:id': patches('goal', 'PatchGoalDto'),
  'DELETE /v4/goals/:id': usedUp('goal'),

  'GET /v4/audit': {},
  'GET /v4/:kind/:id/history': { params: (w) => ({ kind: 'individuals', id: w.ids.individual }) },
  'GET /v4/sync/:kind': {
    params: () => ({ kind: 'colors' }),
    query: () => ({ updatedSince: 'seq-0' }),
    foreign: { status: 200, why: 'names a collection, not a record: answers the changes of the caller’s own site' },
  },
  'GET /v4/webhooks': {},
  'POST /v4/webhooks': creates('webhook'),
  'GET /v4/webhooks/:id': on('webhook'),
  'PUT /v4/webhooks/:id': updates('webhook', 'UpdateWebhookDto'),
  'PATCH /v4/webhooks/:id': patches('webhook', 'PatchWebhookDto'),
  'DELETE /v4/webhooks/:id': usedUp('webhook'),
  'GET /v4/webhooks/:id/deliveries': on('webhook'),
  'POST /v4/webhooks/:id/deliveries/:deliveryid/redeliver': { params: (w) => ({ id: w.ids.webhook, deliveryid: w.ids.delivery }) },
  'POST /v4/webhooks/:id/ping': on('webhook'),
  'POST /v4/webhooks/:id/rotate-secret': on('webhook'),
  'GET /v4/colors': {},
  'GET /v4/colors/defaults': {},
  'POST /v4/colors': creates('color'),
  'GET /v4/colors/:id': on('color'),
  'PUT /v4/colors/:id': updates('color', 'UpdateColorDto'),
  'PATCH /v4/colors/:id': patches('color', 'PatchColorDto'),
  'DELETE /v4/colors/:id': usedUp('color'),

  'GET /v4/corevalues': {},
  'POST /v4/corevalues': creates('corevalue'),
  'PUT /v4/corevalues/:id': updates('corevalue', 'UpdateCoreValueDto'),
  'PATCH /v4/corevalues/:id': patches('corevalue', 'PatchCoreValueDto'),
  'DELETE /v4/corevalues/:id': usedUp('corevalue'),
  'PUT /v4/corevalues/:id/undelete': on('corevalue'),

  'POST /v4/commitments': creates('commitment'),
  'PUT /v4/commitments/:id': updates('commitment', 'UpdateCommitmentDto', period),
  'PATCH /v4/commitments/:id': patches('commitment', 'PatchCommitmentDto'),
  'DELETE /v4/commitments/:id': usedUp('commitment'),
  'GET /v4/dashboards/:ancestorId/commitments/:type': { params: (w) => ({ ancestorId: w.ids.individual, type: 'individual' }) },

  'POST /v4/comments': creates('comment'),
  'PUT /v4/comments/:id': updates('comment', 'UpdateCommentDto'),
  'PATCH /v4/comments/:id': patches('comment', 'PatchCommentDto'),
  'DELETE /v4/comments/:id': usedUp('comment'),
  'PUT /v4/comments/:id/undelete': on('comment'),

  'GET /v4/dialogs': {},
  'POST /v4/dialogs': creates('dialog'),
  'GET /v4/dialogs/:id': on('dialog'),
  'PUT /v4/dialogs/:id': updates('dialog', 'UpdateDialogDto', (w) => ({ INDIVIDUAL_ID: w.manager.individualId, ...period(w) })),
  'PATCH /v4/dialogs/:id': patches('dialog', 'PatchDialogDto'),
  'DELETE /v4/dialogs/:id': usedUp('dialog'),
  'PUT /v4/dialogs/:id/undelete': on('dialog'),
  'GET /v4/dialogs/:ancestorid/comments': on('dialog', 'ancestorid'),
  'GET /v4/dialogs/:dialogid/basicroledialogs': on('dialog', 'dialogid'),

  'GET /v4/tasks': {},
  'POST /v4/tasks': creates('task'),
  'GET /v4/tasks/:id': on('task'),
  'PUT /v4/tasks/:id': updates('task', 'UpdateTaskDto'),
  'PATCH /v4/tasks/:id': patches('task', 'PatchTaskDto'),
  'DELETE /v4/tasks/:id': usedUp('task'),
  'PUT /v4/tasks/:id/undelete': on('task'),
  'GET /v4/tasks/:ancestorid/comments': on('task', 'ancestorid'),

  'POST /v4/basicroles': creates('basicrole'),
  'GET /v4/basicroles/:id': on('basicrole'),
  'PUT /v4/basicroles/:id': updates('basicrole', 'UpdateBasicRoleDto'),
  'PATCH /v4/basicroles/:id': patches('basicrole', 'PatchBasicRoleDto'),
  'DELETE /v4/basicroles/:id': usedUp('basicrole'),
  'PUT /v4/basicroles/:id/undelete': on('basicrole'),
  'GET /v4/basicroles/:basicRoleid/dialogs/:dialogid': { params: (w) => ({ basicRoleid: w.ids.basicrole, dialogid: w.ids.dialog }) },
  'PUT /v4/basicroles/:basicRoleid/dialogs/:dialogid': {
    params: (w) => ({ basicRoleid: w.ids.basicrole, dialogid: w.ids.dialog }),
    body: () => example('PutBasicRoleDialogDto', {}),
  },
  'PATCH /v4/basicroles/:basicRoleid/dialogs/:dialogid': {
    params: (w) => ({ basicRoleid: w.ids.basicrole, dialogid: w.ids.dialog }),
    body: () => example('PatchBasicRoleDialogDto', {}),
  },

  'GET /v4/assessments': {},
  'POST /v4/assessments': creates('assessment'),
  'GET /v4/assessments/:id': on('assessment'),
  'PUT /v4/assessments/:id': updates('assessment', 'UpdateAssessmentDto'),
  'PATCH /v4/assessments/:id': patches('assessment', 'PatchAssessmentDto'),
  'DELETE /v4/assessments/:id': usedUp('assessment'),

  'POST /v4/metrics': creates('metric'),
  'GET /v4/metrics/:id': on('metric'),
  'PUT /v4/metrics/:id': updates('metric', 'UpdateMetricDto'),
  'PATCH /v4/metrics/:id': patches('metric', 'PatchMetricDto'),
  'DELETE /v4/metrics/:id': usedUp('metric'),
  'PUT /v4/metrics/:id/undelete': on('metric'),
  'GET /v4/metrics/:ancestorid/comments': on('metric', 'ancestorid'),
  'PUT /v4/metrics/:id/values/:periodid': {
    params: (w) => ({ id: w.ids.metric, periodid: str(w.ids.period) }),
    body: () => example('PutMetricValueDto', {}),
  },
  'DELETE /v4/metrics/:id/values/:periodid': {
    params: (w) => ({ id: w.ids.metric, periodid: str(w.ids.period) }),
    fresh: async (t, w) => ({ id: await make(t, w, 'metric') }),
  },

  'POST /v4/archives': { body: () => ({}) },
  'GET /v4/archives/:id': on('archive'),
  'PUT /v4/archives/:id': { ...on('archive'), body: () => ({}), foreign: UNSUPPORTED },
  'DELETE /v4/archives/:id': { ...on('archive'), foreign: UNSUPPORTED },
  'GET /v4/metric/:itemid/archives/:id': { params: (w) => ({ itemid: w.ids.metric, id: w.ids.archive }) },

  'GET /v4/dashboards': {},
  'GET /v4/dashboards/sample': {},
  'GET /v4/dashboards/settings': {},
  'PUT /v4/dashboards/settings': { body: () => example('UpdateDashboardSettingsDto', {}) },
  'PATCH /v4/dashboards/settings': { body: () => example('PatchDashboardSettingsDto', {}) },
  'GET /v4/individuals/:id/dashboards': on('individual'),
  'GET /v4/individuals/:id/dashboards/explain': on('individual'),
  'GET /v4/departments/:id/dashboards': on('department'),
  'GET /v4/departments/:id/dashboards/explain': on('department'),
  'GET /v4/organizations/:id/dashboards': on('organization'),
  'GET /v4/organizations/:id/dashboards/explain': on('organization'),

  'POST /v4/auth/logout-everywhere': { endsCallerTokens: true },
  'GET /v4/apitokens': {},
  'POST /v4/apitokens': { body: () => ({ Name: 'Matrix token', Scopes: '*:read' }) },
  'GET /v4/apitokens/:id': on('apitoken'),
  'DELETE /v4/apitokens/:id': usedUp('apitoken'),
  'GET /v4/identityproviders': {},
  'POST /v4/identityproviders': creates('identityprovider'),
  'GET /v4/identityproviders/:id': on('identityprovider'),
  'PUT /v4/identityproviders/:id': {
    ...on('identityprovider'),
    body: (_w, p) => ({ ID: p.id, Name: 'Renamed IdP', Issuer: `https://idp.example.com/${p.id}`, ClientID: 'pms' }),
  },
  'PATCH /v4/identityproviders/:id': { ...on('identityprovider'), body: () => ({ Name: 'Patched IdP' }) },
  'DELETE /v4/identityproviders/:id': usedUp('identityprovider'),
  'GET /v4/permissions': {},
  'POST /v4/permissions': creates('permission'),
  'GET /v4/permissions/effective': { params: (w) => ({ rowid: w.ids.individual }), query: (p) => ({ rowid: p.rowid }) },
  'GET /v4/permissions/:id': on('permission'),
  'PUT /v4/permissions/:id': updates('permission', 'UpdatePermissionDto'),
  'PATCH /v4/permissions/:id': patches('permission', 'PatchPermissionDto'),
  'DELETE /v4/permissions/:id': usedUp('permission'),
  'GET /v4/individuals/:rowid/permissions': on('individual', 'rowid'),
  'GET /v4/organizations/:rowid/permissions': on('organization', 'rowid'),
  'GET /v4/departments/:rowid/permissions': on('department', 'rowid'),
  'GET /v4/projects/:rowid/permissions': on('project', 'rowid'),
  'GET /v4/dialogs/:rowid/permissions': on('dialog', 'rowid'),
  'GET /v4/metrics/:rowid/permissions': on('metric', 'rowid'),

  ...SCIM_CASES,

  'GET /v4/securitygroups': {},
  'POST /v4/securitygroups': creates('securitygroup'),
  'GET /v4/securitygroups/:id': on('securitygroup'),
  'PUT /v4/securitygroups/:id': updates('securitygroup', 'UpdateSecurityGroupDto'),
  'PATCH /v4/securitygroups/:id': patches('securitygroup', 'PatchSecurityGroupDto'),
  'DELETE /v4/securitygroups/:id': usedUp('securitygroup'),
  // The member is the administrator: no one else's rights change while the matrices run.
  'PUT /v4/securitygroups/:id/members/:individualid': { params: (w) => ({ id: w.ids.securitygroup, individualid: w.admin.individualId }) },
  'DELETE /v4/securitygroups/:id/members/:individualid': { params: (w) => ({ id: w.ids.securitygroup, individualid: w.admin.individualId }) },
};

/** The parameters of a call on the world's records: a fresh record where the call uses one up. */
export async function paramsFor(t: TestApp, c: RouteCase, w: World): Promise<Params> {
  return { ...(c.params?.(w) ?? {}), ...((await c.fresh?.(t, w)) ?? {}) };
}

/** The body of a call of the route (PUT, PATCH and POST only; `{}` where the case needs none). */
export function bodyFor(r: AppRoute, w: World, p: Params): Json | undefined {
  return r.method === 'PUT' || r.method === 'PATCH' || r.method === 'POST' ? (ROUTE_CASES[r.key].body?.(w, p) ?? {}) : undefined;
}

/** Sends one call of the route: as the holder of `token` (anonymous without), JSON unless `accept` says otherwise; a PATCH body as a merge patch. */
export function callRoute(t: TestApp, r: AppRoute, p: Params, opts: { token?: string; body?: object; accept?: string } = {}) {
  if (ROUTE_CASES[r.key]?.endsCallerTokens) return restoringAccounts(t, () => sendRoute(t, r, p, opts));
  return sendRoute(t, r, p, opts);
}

/** Runs a call that ends the caller's tokens, then puts every account back as it was. */
export async function restoringAccounts<R>(t: TestApp, call: () => PromiseLike<R>): Promise<R> {
  const users = t.ds.getRepository(UserEntity);
  const before = await users.find();
  const res = await call();
  // Through the data layer, so the caller cache forgets the ended generation.
  await users.save(before);
  return res;
}

function sendRoute(t: TestApp, r: AppRoute, p: Params, opts: { token?: string; body?: object; accept?: string }) {
  const agent = t.http();
  const methods = { GET: agent.get, PUT: agent.put, PATCH: agent.patch, POST: agent.post, DELETE: agent.delete };
  const send = methods[r.method as keyof typeof methods].bind(agent);
  let req = send(fillPath(r.path, p)).set('Accept', opts.accept ?? 'application/json');
  const query = ROUTE_CASES[r.key]?.query?.(p);
  if (query) req = req.query(query);
  if (opts.token) req = req.set('Authorization', bearer(opts.token));
  if (opts.body === undefined) return req;
  // SCIM reads JSON only, as application/scim+json (a PatchOp, not a merge patch).
  if (r.path.startsWith('/scim/')) return req.set('Content-Type', 'application/scim+json').send(JSON.stringify(opts.body));
  return r.method === 'PATCH' ? req.set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(opts.body)) : req.send(opts.body);
}
