import {
  creates,
  example,
  type FeatureCases,
  type Json,
  type KindCase,
  on,
  patches,
  type RouteCase,
  samePath,
  updates,
  usedUp,
  type World,
} from '../../testing/cases.js';
import './dto/permission.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** A Permission record naming the World's security group (whose only member is the administrator). */
    permission: string;
  }
}

/** The kinds of row a Permission record names (docs/authorization.md), by their collection path. */
const ROWS = [
  ['individuals', 'individual'],
  ['organizations', 'organization'],
  ['departments', 'department'],
  ['projects', 'project'],
  ['dialogs', 'dialog'],
  ['metrics', 'metric'],
] as const;

/**
 * Each new Permission record of a world needs a (RowID, ChildType) pair of its own for its
 * principal (the world's security group): the rows of the world times the ChildType values.
 */
let made = 0;
const CHILD_TYPES = [null, 19, 4, 15, 9, 25, 38, 7, 16, 58];
function permissionBody(w: World): Json {
  const rows = [...ROWS.map(([, kind]) => w.ids[kind]), w.ids.projectMetric];
  const k = made++;
  return {
    ...example('CreatePermissionDto', { INDIVIDUAL_ID: rows[k % rows.length], USER_ID: w.ids.securitygroup }),
    ChildType: CHILD_TYPES[Math.floor(k / rows.length) % CHILD_TYPES.length],
  };
}

const permission: KindCase = { path: 'permissions', body: permissionBody, needs: [...ROWS.map(([, kind]) => kind), 'projectMetric', 'securitygroup'] };

/** Permission records (docs/authorization.md). */
export default {
  kinds: { permission },
  routes: {
    'GET /v4/permissions': {},
    'POST /v4/permissions': creates(permission),
    'POST /v4/permissions/bulk': { body: (w) => ({ Items: [{ Op: 'upsert', Record: permissionBody(w) }] }) },
    'GET /v4/permissions/effective': { params: (w) => ({ rowid: w.ids.individual }), query: (p) => ({ rowid: p.rowid }) },
    'GET /v4/permissions/:id': on('permission'),
    'PUT /v4/permissions/:id': updates('permission', 'UpdatePermissionDto'),
    'PATCH /v4/permissions/:id': patches('permission', 'PatchPermissionDto'),
    'DELETE /v4/permissions/:id': usedUp('permission'),
    ...Object.fromEntries(ROWS.map(([path, kind]): [string, RouteCase] => [`GET /v4/${path}/:rowid/permissions`, on(kind, 'rowid')])),
  },
  patches: [
    {
      route: 'PATCH /v4/permissions/:id',
      root: 'Permission',
      read: samePath,
      change: ['ReadState', 2, 1],
      derived: ['ReadText'],
      required: 'CreateState',
      concurrent: ['ReadState', (round) => round % 3, 'DeleteState', (round) => (round + 1) % 3],
    },
  ],
} satisfies FeatureCases;
