import { randomUUID } from 'node:crypto';
import { PLACEHOLDERS, REQUEST_EXAMPLES } from '../../src/common/http/openapi-examples.js';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { bearer, TestApp } from '../e2e/harness.js';
import { createPeriods } from './goals.js';
import { createTeamSite, TeamSite } from './performance.js';

/**
 * A site with one record of every kind, all about one subject (the team site's worker, who reports
 * to its manager), built through the API as the site's administrator. The matrices
 * (test/e2e/tenancy-matrix, roles-matrix) call every route on these records; every name a World
 * writes starts with its `tag`, so another site's answers can be searched for it.
 */
export interface World extends TeamSite {
  tag: string;
  ids: WorldIds;
  /** The secret of an API token of the site with the scope scim (SCIM provisioning). */
  scimToken: string;
}

export interface WorldIds {
  /** The subject of every record: the worker. */
  individual: string;
  /** The root organization. */
  organization: string;
  /** A department managed by the manager, the worker a (non-primary) member. */
  department: string;
  membership: string;
  /** The open period around today, and a closed one (a year ago) with archives. */
  period: number;
  closedPeriod: number;
  accountability: string;
  evaluationcriteria: string;
  supervisoryscope: string;
  project: string;
  projectscope: string;
  goal: number;
  color: number;
  corevalue: string;
  commitment: number;
  /** A comment on the worker (there is one on every kind of ancestor). */
  comment: string;
  dialog: string;
  task: string;
  basicrole: string;
  /** The worker's metric, with values in both periods; and the project's metric. */
  metric: string;
  projectMetric: string;
  assessment: string;
  /** The closed period's archives of the two metrics. */
  archive: string;
  projectArchive: string;
  /** A security group whose only member is the administrator, and a Permission record naming it (so no one else's rights change). */
  securitygroup: string;
  permission: string;
  /** A webhook of the site, and one logged delivery attempt of it (a ping). */
  webhook: string;
  delivery: string;
  apitoken: string;
  identityprovider: string;
}

type Json = Record<string, unknown>;

/** A request-body example of the OpenAPI document (src/common/http/openapi-examples.ts) with its placeholders filled. */
export function example(dto: string, values: Record<string, unknown>): Json {
  const body: Json = structuredClone(REQUEST_EXAMPLES[dto].body);
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string' || !(v in PLACEHOLDERS)) continue;
    if (!(v in values)) throw new Error(`example ${dto}: no value for ${v}`);
    body[k] = values[v];
  }
  return body;
}

let counter = 0;
/** A name no other call of this process uses. */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

/**
 * The records a World makes, each as a POST of the API: the path and a body valid in that world.
 * The matrices' POST cases send the same bodies; `make()` makes fresh ones for calls that use up
 * their record (a DELETE, a close).
 */
export const CREATES = {
  individual: {
    path: 'individuals',
    body: (w: World) => ({ ...example('CreateIndividualDto', { ORGANIZATION_ID: w.orgId }), UserName: unique('u.'), Password: 'password-123' }),
  },
  department: { path: 'departments', body: (w: World) => ({ ...example('CreateOrganizationDto', {}), ParentID: w.orgId, ManagerID: w.manager.individualId }) },
  period: { path: 'periods', body: () => example('CreatePeriodDto', {}) },
  accountability: { path: 'accountabilities', body: (w: World) => example('CreateListItemDto', { ANCESTOR_ID: w.ids.individual }) },
  evaluationcriteria: { path: 'evaluationcriteria', body: (w: World) => example('CreateListItemDto', { ANCESTOR_ID: w.ids.individual }) },
  supervisoryscope: { path: 'supervisoryscopes', body: (w: World) => example('CreateListItemDto', { ANCESTOR_ID: w.ids.individual }) },
  project: { path: 'projects', body: (w: World) => example('CreateProjectDto', { INDIVIDUAL_ID: w.ids.individual }) },
  projectscope: { path: 'projectscopes', body: (w: World) => example('CreateListItemDto', { ANCESTOR_ID: w.ids.project }) },
  goal: { path: 'goals', body: (w: World) => example('CreateGoalDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }) },
  color: { path: 'colors', body: () => example('CreateColorDto', {}) },
  corevalue: { path: 'corevalues', body: () => example('CreateCoreValueDto', {}) },
  commitment: { path: 'commitments', body: (w: World) => example('CreateCommitmentDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }) },
  comment: { path: 'comments', body: (w: World) => example('CreateCommentDto', { INDIVIDUAL_ID: w.ids.individual }) },
  dialog: {
    path: 'dialogs',
    body: (w: World) => ({ ...example('CreateDialogDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }), LeaderID: w.manager.individualId }),
  },
  task: { path: 'tasks', body: (w: World) => ({ ...example('CreateTaskDto', { INDIVIDUAL_ID: w.ids.individual }), DialogID: w.ids.dialog }) },
  basicrole: { path: 'basicroles', body: (w: World) => example('CreateBasicRoleDto', { INDIVIDUAL_ID: w.ids.individual }) },
  metric: { path: 'metrics', body: (w: World) => example('CreateMetricDto', { INDIVIDUAL_ID: w.ids.individual }) },
  projectMetric: { path: 'metrics', body: (w: World) => ({ ...example('CreateMetricDto', { INDIVIDUAL_ID: w.ids.project }), Kind: 'project' }) },
  assessment: {
    path: 'assessments',
    body: (w: World) => ({
      ...example('CreateAssessmentDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }),
      Kind: 'leader',
      AssessorID: w.manager.individualId,
    }),
  },
  securitygroup: { path: 'securitygroups', body: () => example('CreateSecurityGroupDto', {}) },
  permission: { path: 'permissions', body: (w: World) => permissionBody(w) },
  webhook: { path: 'webhooks', body: () => example('CreateWebhookDto', {}) },
  apitoken: { path: 'apitokens', body: () => ({ Name: 'World token', Scopes: '*:read' }) },
  // Issuer and client id are unique across sites: each identity provider of a world gets its own issuer.
  identityprovider: { path: 'identityproviders', body: () => ({ Name: 'World IdP', Issuer: `https://idp.example.com/${randomUUID()}`, ClientID: 'pms' }) },
} satisfies Record<string, { path: string; body: (w: World) => Json }>;

export type MadeKind = keyof typeof CREATES;

/**
 * Each new Permission record of a world needs a (RowID, ChildType) pair of its own for its
 * principal (the world's security group): the rows of the world times the ChildType values.
 */
let permissions = 0;
const CHILD_TYPES = [null, 19, 4, 15, 9, 25, 38, 7, 16, 58];
function permissionBody(w: World): Json {
  const rows = [w.ids.individual, w.ids.organization, w.ids.department, w.ids.project, w.ids.dialog, w.ids.metric, w.ids.projectMetric];
  const k = permissions++;
  return {
    ...example('CreatePermissionDto', { INDIVIDUAL_ID: rows[k % rows.length], USER_ID: w.ids.securitygroup }),
    ChildType: CHILD_TYPES[Math.floor(k / rows.length) % CHILD_TYPES.length],
  };
}

/** Sends a request as the world's administrator; anything but 200 throws. */
async function call(t: TestApp, w: World, method: 'post' | 'put', path: string, body: Json): Promise<Json> {
  const res = await t.http()[method](`/v4/${path}`).set('Authorization', bearer(w.admin.token)).send(body);
  if (res.status !== 200) throw new Error(`${method.toUpperCase()} /v4/${path} in ${w.tag} failed: ${res.status} ${res.text}`);
  return res.body as Json;
}

/** Makes a fresh record of the kind in the world (named with its tag); answers its ID. */
export async function make<K extends MadeKind>(t: TestApp, w: World, kind: K): Promise<string> {
  const body: Json = CREATES[kind].body(w);
  for (const field of ['Name', 'Body']) if (typeof body[field] === 'string') body[field] = `${w.tag} ${kind} ${body[field] as string}`;
  return String((await call(t, w, 'post', CREATES[kind].path, body)).ID);
}

/** A fresh department with the subject as a member: the pair of a membership (`departmentId`, `individualId`) and its `id`. */
export async function makeMembership(t: TestApp, w: World): Promise<{ id: string; departmentId: string; individualId: string }> {
  const departmentId = await make(t, w, 'department');
  const m = await call(
    t,
    w,
    'post',
    'departmentmembers',
    example('CreateOrganizationMemberDto', { INDIVIDUAL_ID: w.ids.individual, DEPARTMENT_ID: departmentId }),
  );
  return { id: String(m.ID), departmentId, individualId: w.ids.individual };
}

/** Builds the world of a new site (PerformanceManagement on; a test may switch it off afterwards). */
export async function buildWorld(t: TestApp, tag: string): Promise<World> {
  const site = await createTeamSite(t, { name: `${tag} site` });
  const periods = await createPeriods(t, site.siteId);
  const w: World = {
    ...site,
    tag,
    scimToken: '',
    ids: { individual: site.worker.individualId, organization: site.orgId, period: periods.current.id, closedPeriod: periods.past.id } as WorldIds,
  };
  const ids = w.ids as unknown as Record<string, string | number>;
  const num = async (kind: MadeKind) => Number(await make(t, w, kind));
  ids.department = await make(t, w, 'department');
  ids.membership = String(
    (
      await call(
        t,
        w,
        'post',
        'departmentmembers',
        example('CreateOrganizationMemberDto', { INDIVIDUAL_ID: w.ids.individual, DEPARTMENT_ID: w.ids.department }),
      )
    ).ID,
  );
  for (const kind of [
    'accountability',
    'evaluationcriteria',
    'supervisoryscope',
    'project',
    'projectscope',
    'corevalue',
    'dialog',
    'task',
    'basicrole',
  ] as const) {
    ids[kind] = await make(t, w, kind);
  }
  for (const kind of ['goal', 'color', 'commitment'] as const) ids[kind] = await num(kind);
  ids.metric = await make(t, w, 'metric');
  ids.projectMetric = await make(t, w, 'projectMetric');
  ids.assessment = await make(t, w, 'assessment');
  await call(t, w, 'put', `basicroles/${w.ids.basicrole}/dialogs/${w.ids.dialog}`, example('PutBasicRoleDialogDto', {}));
  const comments: [string, string][] = [
    ['individuals', w.ids.individual],
    ['organizations', w.ids.organization],
    ['departments', w.ids.department],
    ['projects', w.ids.project],
    ['metrics', w.ids.metric],
    ['tasks', w.ids.task],
    ['dialogs', w.ids.dialog],
  ];
  for (const [kind, id] of comments) {
    const c = await call(t, w, 'post', 'comments', { AncestorType: kind, AncestorID: id, Body: `${tag} comment on ${kind}` });
    if (kind === 'individuals') ids.comment = String(c.ID);
  }
  // Values in both periods, then the older period closed: its archives.
  for (const metric of [w.ids.metric, w.ids.projectMetric]) {
    for (const period of [w.ids.period, w.ids.closedPeriod]) await call(t, w, 'put', `metrics/${metric}/values/${period}`, example('PutMetricValueDto', {}));
  }
  await call(t, w, 'put', `periods/${w.ids.closedPeriod}/close`, {});
  const archives = await t.ds.getRepository(ArchiveEntity).findBy({ siteId: w.siteId, periodId: w.ids.closedPeriod });
  const archiveOf = (metricId: string) => archives.find((a) => a.itemId === metricId)?.id;
  ids.archive = archiveOf(w.ids.metric)!;
  ids.projectArchive = archiveOf(w.ids.projectMetric)!;
  if (!w.ids.archive || !w.ids.projectArchive) throw new Error(`closing period ${w.ids.closedPeriod} of ${tag} wrote no archives of its metrics`);
  ids.securitygroup = await make(t, w, 'securitygroup');
  await call(t, w, 'put', `securitygroups/${w.ids.securitygroup}/members/${w.admin.individualId}`, {});
  ids.permission = await make(t, w, 'permission');
  ids.webhook = await make(t, w, 'webhook');
  ids.delivery = String((await call(t, w, 'post', `webhooks/${w.ids.webhook}/ping`, {})).ID);
  ids.apitoken = await make(t, w, 'apitoken');
  ids.identityprovider = await make(t, w, 'identityprovider');
  w.scimToken = String((await call(t, w, 'post', 'apitokens', { Name: `${tag} SCIM`, Scopes: 'scim' })).Secret);
  return w;
}
