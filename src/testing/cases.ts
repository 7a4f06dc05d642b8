import { PLACEHOLDERS, requestExample } from '../http/wire/examples.js';

/**
 * What a feature declares about itself for the tests (docs/adding-a-resource.md, "Test cases"):
 * `src/modules/<feature>/<feature>.cases.ts` default-exports its FeatureCases — how each route of
 * its controllers is called on the records of a test World, how the World gets one record of each
 * of its kinds, and the rows of its PATCH routes. The tests find every such file at start-up
 * (test/factories/features.ts); the roles, tenancy and token matrices, delta lists and the PATCH
 * test run from them and fail naming a route that has no case. Types and pure functions only:
 * what a case needs at run time (a fresh record, a request) it asks of the CaseHarness the tests
 * pass in. Neither this folder nor a cases file is part of the build (tsconfig.build.json), and
 * nothing of the app imports them (.dependency-cruiser.cjs).
 */
export type Json = Record<string, unknown>;
/** The path parameters of a call, by name. */
export type Params = Record<string, string>;
export type Id = string | number;

/** A person of the World's site: an individual with a login account and a bearer token. */
export interface Person {
  individualId: string;
  userId: string;
  userName: string;
  password: string;
  token: string;
}

/**
 * A site with one record of every declared kind, all about one subject (the worker, who reports to
 * the manager, who reports to the boss; the peer reports to nobody), built through the API as the
 * site's administrator. Every name a World writes starts with its `tag`, so another site's answers
 * can be searched for it.
 */
export interface World {
  tag: string;
  siteId: string;
  /** The site's root organization. */
  orgId: string;
  /** The site's administrator (not a global one). */
  admin: Person;
  boss: Person;
  manager: Person;
  worker: Person;
  peer: Person;
  ids: WorldIds;
}

/**
 * The World's record of each kind, by the name its feature declares it with. Empty here: each
 * cases file adds its kinds (`declare module '../../testing/cases.js' { interface WorldIds { goal: number } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' declaration merging
export interface WorldIds {}
export type Kind = keyof WorldIds & string;

/** What the cases ask of the test harness at run time (test/factories/world.ts implements it). */
export interface CaseHarness {
  /** Makes a fresh record of a declared kind in the world (its POST, names prefixed with the world's tag); answers its ID. */
  make(w: World, kind: Kind): Promise<string>;
  /** Sends a request under /v4 as the world's administrator and answers the body; anything but 200 (or an import's 202) throws. */
  send<T = Json>(w: World, method: 'get' | 'post' | 'put', path: string, body?: Json | Json[]): Promise<T>;
  /** The token of the bootstrap global administrator. */
  readonly globalAdminToken: string;
}

/** A kind of record of a feature: how a fresh one is made, and how the World gets its own. */
export interface KindCase {
  /** `POST /v4/{path}` with `body` makes one (a fresh one for each call that uses its record up). */
  path?: string;
  /** A body valid in the world (the records it names are in `needs`). */
  body?: (w: World) => Json;
  /** Integer ids (periods, goals…): the World keeps its record's id as a number. */
  intId?: true;
  /** What the World makes first: the kinds (and steps) this one's body or `world` names. */
  needs?: readonly string[];
  /** How the World gets its own record when not by a POST of `body`: one the site has already, or one made another way. */
  world?: (h: CaseHarness, w: World) => Id | Promise<Id>;
  /** Made only when nothing else is left to make (a webhook, so that its log holds only what the World sends it). */
  last?: true;
}

/** A step of building the World that is not one record of a kind: values of a metric, a member put in a group… */
export interface SetupStep {
  /** What other steps name it by in `needs`: the kinds whose ids it answers, or what it does. */
  makes: readonly string[];
  needs: readonly string[];
  last?: true;
  run(h: CaseHarness, w: World): Promise<Partial<WorldIds> | void>;
}

/** How the matrices call one route, keyed `METHOD /path` exactly as the app lists it (test/e2e/routes.ts). */
export interface RouteCase {
  /** The path parameters, naming records of the world (every route with parameters has them). */
  params?: (w: World) => Params;
  /** For a call that uses up its record (DELETE, close, a POST of a pair): parameters of records made for the call, over `params`. */
  fresh?: (h: CaseHarness, w: World) => Promise<Params>;
  /** The body of a PUT, PATCH or POST, valid in the world for the records of `p` (the path's or, with another site's ids, that site's). */
  body?: (w: World, p: Params) => Json;
  /** The answer with another site's ids when it is not 404 (403 under /sites/{siteid}), and why. */
  foreign?: { status: number; why: string };
  /** The answer on the world's own records when the body names another site's SiteID, when not the usual one, and why. */
  foreignSiteId?: { status: number; why: string };
  /** Query parameters of the call, from its parameters (for routes that name records in the query). */
  query?: (p: Params) => Params;
  /** The media type its body is sent as, when neither JSON nor (for a PATCH) a merge patch: SCIM's application/scim+json. */
  contentType?: string;
  /** The call ends every token of the caller's account (logout everywhere): the harness puts the accounts back after it. */
  endsCallerTokens?: true;
  /** The credential the tenancy matrix calls the route with when it is not the site administrator's (SCIM: a token with the scope scim). */
  token?: (w: World) => string;
}

/** What a PATCH row's `read` gets: the world, the route's path with that world's parameters, and a GET as the row's caller. */
export interface Reader {
  w: World;
  p: Params;
  path: string;
  get: (path: string) => Promise<unknown>;
}

/** One PATCH route, as test/e2e/patch.e2e-spec.ts runs every row (docs/http-and-xml.md, "PATCH"). */
export interface PatchCase {
  /** The route, as its route case is keyed; its path parameters come from there. */
  route: string;
  /** The XML root of the record (the type the route answers). */
  root: string;
  /** The record as a client reads it: a GET of the same path, or found in a list. */
  read: (r: Reader) => Promise<Json>;
  /** A field, the value JSON sets, the value XML sets. */
  change: [field: string, json: unknown, xml: unknown];
  /** Members derived from the changed field (they change with it). */
  derived?: string[];
  /** A field null clears: a value to set first, and what the cleared field reads (null unless said). */
  clears?: [field: string, value: unknown, cleared?: unknown];
  /** A field on which null is 400 (required on PUT, or one the PUT says cannot be cleared). */
  required?: string;
  /** Two fields changed by concurrent writers, each with its value of a round in the world. */
  concurrent?: [field: string, value: (round: number, w: World) => unknown, field: string, value: (round: number, w: World) => unknown];
  /** The caller with the right to change the record (default: the world's site administrator). */
  caller?: (h: CaseHarness, w: World) => string;
  /** The answer to the site administrator of another site naming this site's record (default 404). */
  foreign?: number;
}

/** Everything one feature declares: `export default { … } satisfies FeatureCases` in its cases file. */
export interface FeatureCases {
  kinds?: { [K in Kind]?: KindCase };
  steps?: SetupStep[];
  routes: Record<string, RouteCase>;
  patches?: PatchCase[];
}

/** A request-body example of the OpenAPI document (declared by the feature's dto file) with its placeholders filled. */
export function example(dto: string, values: Record<string, unknown>): Json {
  const declared = requestExample(dto);
  if (!declared) throw new Error(`no request example is declared for ${dto}`);
  const body: Json = structuredClone(declared.body);
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

/** The route names the world's record of `kind` as `:name`. */
export const on = (kind: Kind, name = 'id'): RouteCase => ({ params: (w) => ({ [name]: String(w.ids[kind]) }) });
/** The same, but the call uses its record up: each call gets a new one. */
export const usedUp = (kind: Kind, name = 'id'): RouteCase => ({ ...on(kind, name), fresh: async (h, w) => ({ [name]: await h.make(w, kind) }) });
/** `/sites/:siteid/…` of the world's site. */
export const site = (name = 'siteid'): RouteCase => ({ params: (w) => ({ [name]: w.siteId }) });
/** POST of a new record, with the body the world itself is built with. */
export const creates = (kind: KindCase): RouteCase => ({ body: (w) => kind.body!(w) });
/** PUT of a record: the OpenAPI example of the DTO, its ID the path's, other placeholders from the world. */
export const updates = (kind: Kind, dto: string, values: (w: World) => Json = () => ({})): RouteCase => ({
  ...on(kind),
  body: (w, p) => example(dto, { PATH_ID: typeof w.ids[kind] === 'number' ? Number(p.id) : p.id, ...values(w) }),
});
/** PATCH of a record: the OpenAPI example of its merge patch (it names no record). */
export const patches = (kind: Kind, dto: string): RouteCase => ({ ...on(kind), body: () => example(dto, {}) });

/** `2027-03-16T00:00:00.000+00:00`: a date as the service writes it. */
export const d = (iso: string) => `${iso}T00:00:00.000+00:00`;
/** A text value of a round of concurrent writes. */
export const text = (prefix: string) => (round: number) => `${prefix} ${round}`;
/** A record of an answer: a List of one is unwrapped. */
export const one = (body: unknown) => (Array.isArray(body) ? body[0] : body) as Json;
/** A PATCH row's read: GET of the route's own path. */
export const samePath = async (r: Reader) => one(await r.get(r.path));
/** A PATCH row's read: GET of another path. */
export const at = (path: (w: World) => string) => async (r: Reader) => one(await r.get(path(r.w)));
/** A PATCH row's read: the record of id `p.id` in a list. */
export const inList = (path: (w: World) => string) => async (r: Reader) => {
  const list = (await r.get(path(r.w))) as Json[];
  const found = list.find((record) => String(record.ID) === String(r.p.id));
  if (!found) throw new Error(`${r.p.id} is not in ${path(r.w)}`);
  return found;
};
