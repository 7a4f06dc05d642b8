import { parse } from 'scim2-parse-filter';
import { scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { SCIM_SCHEMA, ScimError, type ScimType } from './scim-protocol.js';

/**
 * SCIM PATCH (RFC 7644 §3.5.2; docs/identity.md, "PATCH"): the PatchOp body read leniently, as
 * Okta and Microsoft Entra ID send it — capitalised op names ("Replace"), booleans as strings
 * ("False"), attribute names in any case, an op without a path whose value holds several
 * attributes (dotted names and the enterprise extension included), and the manager as a bare id,
 * an object or a one-element list — then applied to the resource with scim-patch. The service
 * writes the patched resource as a PUT would, so a PATCH keeps every rule of a PUT.
 */
export type Json = Record<string, unknown>;

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

const ENTERPRISE = SCIM_SCHEMA.enterpriseUser;
const bad = (scimType: ScimType, detail: string) => new ScimError(400, scimType, detail);

/** Attribute names as the service writes them, by their lower-cased form. */
const CANONICAL: Record<string, string> = Object.fromEntries(
  [
    'userName',
    'name',
    'givenName',
    'familyName',
    'formatted',
    'displayName',
    'emails',
    'value',
    'type',
    'primary',
    'display',
    'active',
    'title',
    'externalId',
    'manager',
    'members',
    'id',
  ].map((n) => [n.toLowerCase(), n]),
);
const canonical = (name: string) => CANONICAL[name.toLowerCase()] ?? name;

/**
 * A path in the service's spelling: `Name.GivenName` → `name.givenName`; the core schema URN
 * dropped; `manager` (Entra's short form) and the extension's own paths under the enterprise URN.
 */
export function normalisePath(path: string, coreSchema: string): string {
  let p = path.trim();
  if (p.toLowerCase().startsWith(`${coreSchema.toLowerCase()}:`)) p = p.slice(coreSchema.length + 1);
  let ext = false;
  if (p.toLowerCase().startsWith(`${ENTERPRISE.toLowerCase()}:`)) {
    p = p.slice(ENTERPRISE.length + 1);
    ext = true;
  }
  // Attribute names outside a [filter] only; the filter keeps its quoted values as sent.
  const bracket = p.indexOf('[');
  const head = bracket < 0 ? p : p.slice(0, bracket);
  const tail = bracket < 0 ? '' : p.slice(bracket);
  const close = tail.lastIndexOf(']');
  const sub = close >= 0 ? tail.slice(close + 1) : '';
  const filter = close >= 0 ? tail.slice(0, close + 1) : tail;
  const names = head.split('.').map(canonical);
  const out = names.join('.') + filter + sub.replace(/^\.(\w+)$/, (_m, n: string) => `.${canonical(n)}`);
  if (ext || names[0] === 'manager') return `${ENTERPRISE}:${out}`;
  return out;
}

/** "True" / "False" (any case) as booleans, as Entra sends `active`. */
export function booleanOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : value;
}

/** The operations of a PatchOp body, checked and normalised (400 invalidSyntax / invalidPath otherwise). */
export function readPatch(body: unknown, coreSchema: string): PatchOperation[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('invalidSyntax', 'The body must be a PatchOp object');
  const b = body as Json;
  if (Array.isArray(b.schemas) && !b.schemas.includes(SCIM_SCHEMA.patchOp)) throw bad('invalidSyntax', `schemas must name ${SCIM_SCHEMA.patchOp}`);
  const ops = b.Operations ?? b.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw bad('invalidSyntax', 'Operations must be a non-empty list');
  if (ops.length > 1000) throw bad('invalidSyntax', 'At most 1000 operations per request');
  const out: PatchOperation[] = [];
  ops.forEach((raw: unknown, i) => {
    if (!raw || typeof raw !== 'object') throw bad('invalidSyntax', `Operations[${i}] must be an object`);
    const o = raw as Json;
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw bad('invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    if (o.path !== undefined && (typeof o.path !== 'string' || !o.path.trim())) throw bad('invalidPath', `Operations[${i}].path must be a non-empty string`);
    const path = typeof o.path === 'string' ? normalisePath(o.path, coreSchema) : undefined;
    if (op === 'remove' && !path) throw bad('noTarget', `Operations[${i}]: remove needs a path`);
    if (op !== 'remove' && !('value' in o)) throw bad('invalidValue', `Operations[${i}]: ${op} needs a value`);
    if (path || op === 'remove') {
      out.push({ op, path, value: path === 'active' ? booleanOf(o.value) : o.value });
      return;
    }
    // No path: the value names the attributes, each one an operation of its own.
    if (!o.value || typeof o.value !== 'object' || Array.isArray(o.value))
      throw bad('invalidValue', `Operations[${i}]: without a path the value must be an object`);
    for (const [key, value] of Object.entries(o.value as Json)) {
      if (key.toLowerCase() === ENTERPRISE.toLowerCase() && value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [sub, v] of Object.entries(value as Json)) out.push({ op, path: normalisePath(`${ENTERPRISE}:${sub}`, coreSchema), value: v });
      } else if (key.toLowerCase() !== 'schemas' && key.toLowerCase() !== 'id' && key.toLowerCase() !== 'meta') {
        const path = normalisePath(key, coreSchema);
        out.push({ op, path, value: path === 'active' ? booleanOf(value) : value });
      }
    }
  });
  return out;
}

/**
 * The resource with the operations applied (a copy). Failures of the patch itself are 400 with
 * the scimType scim-patch gives (invalidPath, noTarget, invalidValue, invalidSyntax).
 */
export function applyPatch<T extends Json>(resource: T, ops: readonly PatchOperation[]): T {
  if (ops.length === 0) return structuredClone(resource);
  try {
    const operations = ops.map((o) => (o.value === undefined ? { op: o.op, path: o.path } : o)) as ScimPatchOperation[];
    return scimPatch(structuredClone(resource) as unknown as ScimResource, operations) as unknown as T;
  } catch (e) {
    const code = (e as { scimCode?: string }).scimCode;
    const scimType: ScimType = code === 'invalidPath' || code === 'noTarget' || code === 'invalidValue' ? code : 'invalidSyntax';
    throw bad(scimType, (e as Error).message || 'The patch cannot be applied');
  }
}

/** The enterprise manager of a resource as an id: from `{ value }`, a bare id or a one-element list; null for none. */
export function managerIdOf(resource: Json): string | null | undefined {
  const ext = resource[ENTERPRISE] as Json | undefined;
  if (!ext || typeof ext !== 'object' || !('manager' in ext)) return undefined;
  const { manager } = ext;
  let m: unknown = manager;
  if (Array.isArray(m)) m = m[0];
  if (m && typeof m === 'object') m = (m as Json).value;
  if (m === null || m === undefined || m === '') return null;
  if (typeof m !== 'string') throw bad('invalidValue', 'manager.value must be the id of a User');
  return m.trim();
}

// ------------------------------------------------------------------ group members

/**
 * What the operations on `members` of a group do, as a change of the stored memberships rather
 * than of a list read in full: `replace` (the new whole set, or empty to remove all) and the ids
 * to add and remove after it. Operations apply in order: a later add undoes an earlier remove.
 */
export interface MemberChange {
  replace: Set<string> | null;
  add: Set<string>;
  remove: Set<string>;
}

const memberIds = (value: unknown, i: number): string[] => {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => {
    const v = m && typeof m === 'object' ? (m as Json).value : m;
    if (typeof v !== 'string' || !v.trim()) throw bad('invalidValue', `Operations[${i}]: each member must be { "value": "<User id>" }`);
    return v.trim().toLowerCase();
  });
};

/** The ids a `members[value eq "…" or value eq "…"]` filter names (the only member filters clients send). */
function idsOfMemberFilter(filter: string, i: number): string[] {
  let ast;
  try {
    ast = parse(filter);
  } catch (e) {
    throw bad('invalidPath', `Operations[${i}]: ${(e as Error).message}`);
  }
  const out: string[] = [];
  const walk = (n: typeof ast): void => {
    if (n.op === 'or') n.filters.forEach(walk);
    else if (n.op === 'eq' && n.attrPath.toLowerCase() === 'value' && typeof n.compValue === 'string') out.push(n.compValue.trim().toLowerCase());
    else throw bad('invalidPath', `Operations[${i}]: a member filter takes value eq "<User id>" (joined with or)`);
  };
  walk(ast);
  return out;
}

/**
 * Splits a group's operations: those on `members` become a MemberChange, the others are left to
 * applyPatch (displayName, externalId). Okta's `members[value eq "…"]` and Entra's remove with a
 * value list are both read.
 */
export function splitMemberOperations(ops: readonly PatchOperation[]): { others: PatchOperation[]; members: MemberChange | null } {
  const others: PatchOperation[] = [];
  let change: MemberChange | null = null;
  const get = () => (change ??= { replace: null, add: new Set(), remove: new Set() });
  ops.forEach((o, i) => {
    const path = o.path ?? '';
    const m = /^members(?:\[(.*)\])?(?:\.value)?$/i.exec(path);
    if (!m) return others.push(o);
    const c = get();
    const filtered = m[1] !== undefined ? idsOfMemberFilter(m[1], i) : null;
    if (o.op === 'remove') {
      const ids = filtered ?? (o.value === undefined || o.value === null ? null : memberIds(o.value, i));
      if (ids === null) {
        c.replace = new Set();
        c.add.clear();
        c.remove.clear();
      } else
        for (const id of ids) {
          c.add.delete(id);
          c.replace?.delete(id);
          c.remove.add(id);
        }
    } else if (o.op === 'replace' && filtered === null) {
      c.replace = new Set(o.value === null ? [] : memberIds(o.value, i));
      c.add.clear();
      c.remove.clear();
    } else {
      for (const id of filtered ?? memberIds(o.value, i)) {
        c.remove.delete(id);
        c.add.add(id);
      }
    }
  });
  return { others, members: change };
}
