import { operationExample } from '../../http/wire/examples.js';
import {
  at,
  type CaseHarness,
  creates,
  example,
  type FeatureCases,
  type KindCase,
  on,
  type PatchCase,
  patches,
  type RouteCase,
  samePath,
  site,
  text,
  updates,
  usedUp,
  type World,
} from '../../testing/cases.js';
import './dto/organization.dto.js';
import './dto/organization-member.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The site's root organization. */
    organization: string;
    /** A department managed by the manager, the worker a (non-primary) member of it. */
    department: string;
    /** The worker's membership of the department. */
    membership: string;
  }
}

const department: KindCase = {
  path: 'departments',
  body: ({ orgId, manager }) => ({ ...example('CreateOrganizationDto', {}), ParentID: orgId, ManagerID: manager.individualId }),
};
/** The worker a member of a department (the World's, or a fresh one). */
const memberBody = (w: World, departmentId: string) => example('CreateOrganizationMemberDto', { INDIVIDUAL_ID: w.ids.individual, DEPARTMENT_ID: departmentId });

/** A fresh department with the subject as a member: the pair of a membership (`departmentId`, `individualId`) and its `id`. */
async function makeMembership(h: CaseHarness, w: World): Promise<{ id: string; departmentId: string; individualId: string }> {
  const departmentId = await h.make(w, 'department');
  const m = await h.send(w, 'post', 'departmentmembers', memberBody(w, departmentId));
  return { id: String(m.ID), departmentId, individualId: w.ids.individual };
}

/** The two path forms of a membership: the subject in the world's department. */
const pair: RouteCase = { params: (w) => ({ departmentId: w.ids.department, individualId: w.ids.individual }) };
/** The membership routes of one path form. */
const pairRoutes = (path: string): Record<string, RouteCase> => ({
  [`GET ${path}`]: pair,
  [`POST ${path}`]: { ...pair, fresh: async (h, w) => ({ departmentId: await h.make(w, 'department') }), body: () => example('CreatePairMemberDto', {}) },
  [`PUT ${path}`]: { ...pair, body: () => example('UpdateOrganizationMemberDto', {}) },
  [`PATCH ${path}`]: { ...pair, body: () => example('PatchOrganizationMemberDto', {}) },
  [`DELETE ${path}`]: { ...pair, fresh: (h, w) => makeMembership(h, w) },
});
const INDIVIDUAL_FORM = '/v4/individuals/:individualId/departments/:departmentId/departmentmembers';
const DEPARTMENT_FORM = '/v4/departments/:departmentId/individuals/:individualId/departmentmembers';

const member = (route: string): PatchCase => ({
  route,
  root: 'OrganizationMember',
  read: at((w) => `/v4/individuals/${w.ids.individual}/departments/${w.ids.department}/departmentmembers`),
  change: ['Title', 'Title in JSON', 'Title in XML'],
  clears: ['Title', 'A title'],
});

/** Organizations, departments and their members (docs/organizations.md). */
export default {
  kinds: {
    organization: { world: (_h, w) => w.orgId },
    department,
    membership: {
      needs: ['individual', 'department'],
      world: async (h, w) => String((await h.send(w, 'post', 'departmentmembers', memberBody(w, w.ids.department))).ID),
    },
  },
  routes: {
    'GET /v4/organizations': {},
    'GET /v4/organizations/:id': on('organization'),
    'GET /v4/departments': {},
    'GET /v4/sites/:siteid/departments': site(),
    'GET /v4/me/departments': {},
    'GET /v4/individuals/:id/departments': on('individual'),
    'POST /v4/departments': creates(department),
    'POST /v4/departments/bulk': { body: (w) => ({ Items: [{ Op: 'create', Record: department.body!(w) }] }) },
    'GET /v4/departments/:id': on('department'),
    'PUT /v4/departments/:id': updates('department', 'UpdateOrganizationDto'),
    'PATCH /v4/departments/:id': patches('department', 'PatchOrganizationDto'),
    'DELETE /v4/departments/:id': usedUp('department'),
    'PUT /v4/departments/:id/undelete': on('department'),
    'GET /v4/departments/:id/departmentmembers': on('department'),
    'GET /v4/individuals/:id/departmentmembers': on('individual'),
    ...pairRoutes(INDIVIDUAL_FORM),
    ...pairRoutes(DEPARTMENT_FORM),
    'POST /v4/departmentmembers': {
      fresh: async (h, w) => ({ departmentId: await h.make(w, 'department') }),
      body: (w, p) => memberBody(w, p.departmentId),
    },
    'POST /v4/departmentmembers/bulk': {
      fresh: async (h, w) => ({ departmentId: await h.make(w, 'department') }),
      body: (w, p) => ({ Items: [{ Op: 'upsert', Record: memberBody(w, p.departmentId) }] }),
    },
    'PUT /v4/departmentmembers/:id': { ...on('membership'), body: (_w, p) => ({ ...operationExample('PUT /v4/departmentmembers/{id}')!.body, ID: p.id }) },
    'PATCH /v4/departmentmembers/:id': patches('membership', 'PatchOrganizationMemberDto'),
    'DELETE /v4/departmentmembers/:id': { ...on('membership'), fresh: async (h, w) => ({ id: (await makeMembership(h, w)).id }) },
  },
  patches: [
    member(`PATCH ${INDIVIDUAL_FORM}`),
    member(`PATCH ${DEPARTMENT_FORM}`),
    member('PATCH /v4/departmentmembers/:id'),
    {
      route: 'PATCH /v4/departments/:id',
      root: 'Organization',
      read: samePath,
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['Description', 'To be cleared'],
      required: 'Name',
      concurrent: ['Name', text('Department'), 'Rank', (round) => round + 10],
    },
  ],
} satisfies FeatureCases;
