import { createHash } from 'node:crypto';
import type { RequestContext } from '../../common/context/request-context.js';
import { PreconditionFailedError } from '../../common/errors/errors.js';
import { SCIM_BASE, SCIM_CONTENT_TYPE, SCIM_SCHEMA, ScimError } from './scim-protocol.js';
import { RawBody } from '../../http/pipeline/wire-writer.js';
import type { SelectQueryBuilder } from 'typeorm';
import { compileFilter, type FilterAttributes } from './scim-filter.js';

/**
 * What every SCIM answer shares (docs/identity.md, "SCIM provisioning"): the JSON body with its
 * Content-Type, the weak ETag, paging and the ListResponse, and `attributes` / `excludedAttributes`.
 */
export type Json = Record<string, unknown>;

/** The default and the largest `count` of a page (ServiceProviderConfig says the same). */
export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 1000;

/**
 * The ETag of a resource: `W/"<row version>-<hash>"` — the version every write moves on (what
 * If-Match is compared with) and a hash of the representation, so a change the row's version does
 * not see (a member renamed) changes the tag too. Weak: the JSON is not promised byte for byte.
 */
export function etagOf(resource: Json, version: number): string {
  const hash = createHash('sha256').update(JSON.stringify(resource)).digest('base64url').slice(0, 22);
  return `W/"${version}-${hash}"`;
}

/** 412 unless If-Match names this version (or is absent or `*`). */
export function assertIfMatch(ctx: RequestContext, version: number): void {
  const versions = ctx.ifMatchVersions;
  if (versions && !versions.includes(version)) throw new PreconditionFailedError();
}

/** Sets `meta.version` of a resource to its ETag; answers the ETag. */
export function stamp(resource: Json, version: number): string {
  const etag = etagOf(resource, version);
  (resource.meta as Json).version = etag;
  return etag;
}

/** One resource answered: its JSON with `meta.version` set to its ETag, which is also the header. */
export function resourceAnswer(resource: Json, version: number, opts: { location?: boolean; select?: Projection } = {}): RawBody {
  const etag = stamp(resource, version);
  const body = opts.select ? opts.select(resource) : resource;
  const headers: Record<string, string> = { ETag: etag };
  if (opts.location) headers.Location = String((resource.meta as Json).location);
  return new RawBody(JSON.stringify(body), SCIM_CONTENT_TYPE, headers);
}

/** The answer of a DELETE (204: no body). */
export const NO_CONTENT = new RawBody('', SCIM_CONTENT_TYPE);

/** A JSON answer without ETag (discovery documents, ListResponses). */
export const jsonAnswer = (body: unknown) => new RawBody(JSON.stringify(body), SCIM_CONTENT_TYPE);

/** The meta of a resource: its type, instants and location (path-absolute, under this service's host). */
export function metaOf(resourceType: 'User' | 'Group', id: string, created: Date, updated: Date): Json {
  return {
    resourceType,
    created: created.toISOString(),
    lastModified: updated.toISOString(),
    location: `${SCIM_BASE}/${resourceType}s/${id}`,
  };
}

// ------------------------------------------------------------------ paging

export interface Paging {
  /** 1-based. */
  startIndex: number;
  count: number;
}

/** `startIndex` (1-based; below 1 is 1) and `count` (0 answers only the total; at most MAX_COUNT) of a list request. */
export function pagingOf(q: Record<string, unknown>): Paging {
  const int = (name: string, fallback: number): number => {
    const raw = q[name];
    if (raw === undefined || raw === '') return fallback;
    if (typeof raw !== 'string' || !/^-?\d{1,9}$/.test(raw.trim())) throw new ScimError(400, 'invalidValue', `${name} must be an integer`);
    return Number(raw);
  };
  return { startIndex: Math.max(1, int('startIndex', 1)), count: Math.min(MAX_COUNT, Math.max(0, int('count', DEFAULT_COUNT))) };
}

/** What a list may be filtered on, and the column its pages are ordered by. */
export interface ListOf {
  attributes: FilterAttributes;
  schemaUrns: readonly string[];
  orderBy: string;
}

/**
 * `GET /Users` and `GET /Groups`: `filter` compiled to SQL on `qb` (already scoped to the site),
 * counted, the page read in `orderBy` order — three statements with the rows' own decorations,
 * whatever the page size — and answered as a ListResponse, each resource with its ETag.
 */
export async function listPage<T extends { version: number }>(
  qb: SelectQueryBuilder<T>,
  q: Record<string, unknown>,
  list: ListOf,
  resources: (rows: T[]) => Promise<Json[]>,
  select?: Projection,
): Promise<RawBody> {
  const paging = pagingOf(q);
  const filter = queryText(q, 'filter');
  if (filter?.trim()) {
    const c = compileFilter(filter, list.attributes, list.schemaUrns);
    qb.andWhere(c.where, c.params);
  }
  const total = await qb.getCount();
  const rows =
    paging.count === 0
      ? []
      : await qb
          .orderBy(list.orderBy, 'ASC')
          .offset(paging.startIndex - 1)
          .limit(paging.count)
          .getMany();
  const out = await resources(rows);
  out.forEach((resource, i) => stamp(resource, rows[i].version));
  return listAnswer(out, total, paging, select);
}

/** The ListResponse of a page (RFC 7644 §3.4.2). */
export function listAnswer(resources: Json[], total: number, paging: Paging, select?: Projection): RawBody {
  return jsonAnswer({
    schemas: [SCIM_SCHEMA.listResponse],
    totalResults: total,
    itemsPerPage: resources.length,
    startIndex: paging.startIndex,
    Resources: select ? resources.map(select) : resources,
  });
}

/** A query parameter given once as text (a repeated one is 400). */
export function queryText(q: Record<string, unknown>, name: string): string | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new ScimError(400, 'invalidValue', `${name} must be given once`);
  return raw;
}

// ------------------------------------------------------------------ attributes / excludedAttributes

/** Narrows a resource to what the request asked for. */
export type Projection = (resource: Json) => Json;

/** Always returned whatever `attributes` says (RFC 7643 §7, returned "always"). */
const ALWAYS = new Set(['schemas', 'id', 'meta']);

/**
 * `attributes` (only these, plus id, schemas and meta) or `excludedAttributes` (all but these) of a
 * request, as a projection of top-level attributes and their sub-attributes (`name.givenName`,
 * the enterprise extension's `manager`); case-insensitive. Undefined when neither is given.
 */
export function projectionOf(q: Record<string, unknown>, extensionUrn?: string): Projection | undefined {
  const list = (name: string) =>
    queryText(q, name)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const only = list('attributes');
  const except = list('excludedAttributes');
  if (!only?.length && !except?.length) return undefined;
  const paths = (names: string[]) =>
    names.map((n) => {
      let p = n;
      if (extensionUrn && p.toLowerCase().startsWith(`${extensionUrn.toLowerCase()}:`)) return [extensionUrn, p.slice(extensionUrn.length + 1).toLowerCase()];
      p = p.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i, '');
      return p.toLowerCase().split('.');
    });
  const keyOf = (obj: Json, lower: string) => Object.keys(obj).find((k) => k.toLowerCase() === lower.toLowerCase());
  if (only?.length) {
    const wanted = paths(only);
    return (r) => {
      const out: Json = {};
      for (const [k, v] of Object.entries(r)) if (ALWAYS.has(k)) out[k] = v;
      for (const [top, sub] of wanted) {
        const k = keyOf(r, top);
        if (!k || ALWAYS.has(k)) continue;
        const v = r[k];
        if (sub === undefined || !v || typeof v !== 'object' || Array.isArray(v)) out[k] = v;
        else {
          const sk = keyOf(v as Json, sub);
          if (sk) out[k] = { ...((out[k] as Json) ?? {}), [sk]: (v as Json)[sk] };
        }
      }
      return out;
    };
  }
  const dropped = paths(except!);
  return (r) => {
    const out: Json = { ...r };
    for (const [top, sub] of dropped) {
      const k = keyOf(out, top);
      if (!k || ALWAYS.has(k)) continue;
      if (sub === undefined) delete out[k];
      else if (out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) {
        const copy = { ...(out[k] as Json) };
        const sk = keyOf(copy, sub);
        if (sk) delete copy[sk];
        out[k] = copy;
      }
    }
    return out;
  };
}

/** Whether a projection leaves `members` out (the one attribute worth not reading at all: a large group's). */
export function excludes(q: Record<string, unknown>, attribute: string): boolean {
  const except =
    queryText(q, 'excludedAttributes')
      ?.toLowerCase()
      .split(',')
      .map((s) => s.trim()) ?? [];
  const only = queryText(q, 'attributes')
    ?.toLowerCase()
    .split(',')
    .map((s) => s.trim().split('.')[0]);
  return except.includes(attribute.toLowerCase()) || (!!only?.length && !only.includes(attribute.toLowerCase()));
}
