import {
  creates,
  example,
  type FeatureCases,
  type Kind,
  type KindCase,
  on,
  type PatchCase,
  patches,
  type RouteCase,
  samePath,
  text,
  updates,
  usedUp,
} from '../../testing/cases.js';
import './dto/list-item.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's accountability, evaluation criterion and supervisory scope; the project's scope. */
    accountability: string;
    evaluationcriteria: string;
    supervisoryscope: string;
    projectscope: string;
  }
}

/** The four kinds of list item (docs/list-items.md): each a collection of its own under an owner. */
const KINDS = [
  { kind: 'accountability', path: 'accountabilities', owner: 'individual', owners: 'individuals' },
  { kind: 'evaluationcriteria', path: 'evaluationcriteria', owner: 'individual', owners: 'individuals' },
  { kind: 'supervisoryscope', path: 'supervisoryscopes', owner: 'individual', owners: 'individuals' },
  { kind: 'projectscope', path: 'projectscopes', owner: 'project', owners: 'projects' },
] as const satisfies readonly { kind: Kind; path: string; owner: Kind; owners: string }[];

const kindOf = (k: (typeof KINDS)[number]): KindCase => ({
  path: k.path,
  body: (w) => example('CreateListItemDto', { ANCESTOR_ID: w.ids[k.owner] }),
  needs: [k.owner],
});

function routesOf(k: (typeof KINDS)[number]): Record<string, RouteCase> {
  const owner = `${k.owner}id`;
  return {
    [`GET /v4/${k.owners}/:${owner}/${k.path}`]: on(k.owner, owner),
    [`GET /v4/${k.owners}/:${owner}/${k.path}/:${k.kind}id`]: { params: (w) => ({ [owner]: w.ids[k.owner], [`${k.kind}id`]: w.ids[k.kind] }) },
    [`GET /v4/me/${k.path}`]: {},
    [`POST /v4/${k.path}`]: creates(kindOf(k)),
    [`POST /v4/${k.path}/bulk`]: { body: (w) => ({ Items: [{ Op: 'create', Record: kindOf(k).body!(w) }] }) },
    [`GET /v4/${k.path}/:id`]: on(k.kind),
    [`PUT /v4/${k.path}/:id`]: updates(k.kind, 'UpdateListItemDto'),
    [`PATCH /v4/${k.path}/:id`]: patches(k.kind, 'PatchListItemDto'),
    [`DELETE /v4/${k.path}/:id`]: usedUp(k.kind),
    [`PUT /v4/${k.path}/:id/undelete`]: on(k.kind),
  };
}

const patchRow = (k: (typeof KINDS)[number]): PatchCase => ({
  route: `PATCH /v4/${k.path}/:id`,
  root: 'ListItem',
  read: samePath,
  change: ['Description', 'Changed in JSON', 'Changed in XML'],
  required: 'Name',
  concurrent: ['Name', text('Name'), 'Description', text('Description')],
});

export default {
  kinds: Object.fromEntries(KINDS.map((k) => [k.kind, kindOf(k)])),
  routes: Object.assign({}, ...KINDS.map(routesOf)) as Record<string, RouteCase>,
  patches: KINDS.map(patchRow),
} satisfies FeatureCases;
