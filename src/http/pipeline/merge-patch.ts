import { applyDecorators, Patch, type Type } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiOperation, getSchemaPath, PartialType } from '@nestjs/swagger';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { ValidationError } from '../../common/errors/errors.js';
import { AppValidationPipe } from './app-validation.pipe.js';
import { keepDeclared } from '../wire/declared-input.js';
import { toJsonValue } from '../wire/codec.js';
import { ApiResult } from '../wire/wire.js';
import { IdempotentWrite } from './route-stages.js';
import { UTC } from '../../common/dates.js';
import { MERGE_PATCH_JSON, MERGE_PATCH_XML } from './negotiation.js';

/**
 * PATCH: a partial update as a JSON Merge Patch (RFC 7396) of the record, in JSON or XML
 * (docs/http-and-xml.md, "PATCH"). The patch is merged over the record as it is read, and the
 * merged record is the update input of the resource's PUT — the same input class, the same
 * validation, the same service path — so a PATCH can never store what a PUT would refuse.
 * Here: the media types, the merge, and the route declaration; the transaction that reads,
 * merges and writes is src/database/patch-record.ts.
 */
/** The body types of a PATCH: the merge-patch types first, then the plain JSON and XML types, read the same way. */
export const PATCH_MEDIA_TYPES = [MERGE_PATCH_JSON, 'application/json', 'text/json', MERGE_PATCH_XML, 'application/xml', 'text/xml'] as const;

/** A merge patch of an input: any of its members, each a value or null. */
export type MergePatch<D = Record<string, unknown>> = { [K in keyof D]?: D[K] | null };

type Json = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * A PATCH body as an object: absent counts as `{}` (nothing changes), anything but an object is
 * a 400 — a record is patched member by member, never replaced by a list or a value.
 */
export function patchBody(body: unknown): Json {
  if (body === undefined || body === null || body === '') return {};
  if (!isPlainObject(body)) {
    throw new ValidationError([{ field: '(body)', message: 'must be a single object holding the fields to change (JSON Merge Patch, RFC 7396)' }]);
  }
  return body;
}

/**
 * RFC 7396 over a record: each member of the patch replaces the record's, except that an object
 * member merges into an object member, member by member (a null inside removes that member, as
 * the RFC says). A null member of the record itself stays null — the record keeps every member,
 * so null is what "removed" means for it: a field that may be null is cleared, a required one is
 * refused by the validation that follows. Lists are replaced whole.
 */
export function mergeRecord(record: Json, patch: Json): Json {
  const out: Json = { ...record };
  for (const [key, value] of Object.entries(patch)) out[key] = value === null ? null : mergeValue(record[key], value);
  return out;
}

function mergeValue(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch) || !isPlainObject(target)) return patch;
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergeValue(out[key], value);
  }
  return out;
}

const pipe = new AppValidationPipe();
const requiredCache = new WeakMap<Function, ReadonlySet<string>>();

/** The members an input class requires (`@IsDefined`: Req and ReqUpd on update). */
function requiredMembers(input: Function): ReadonlySet<string> {
  let names = requiredCache.get(input);
  if (!names) {
    const metas = getMetadataStorage().getTargetValidationMetadatas(input, '', true, false);
    names = new Set(metas.filter((m) => m.type === ValidationTypes.IS_DEFINED).map((m) => m.propertyName));
    requiredCache.set(input, names);
  }
  return names;
}

export interface MergeOptions {
  /**
   * The resource's PUT replaces the whole record (an absent member is cleared, not kept): the
   * update gets every member of the merged record. Otherwise it gets the members the patch names
   * and the ones the input requires, so the columns the patch leaves alone are not written.
   */
  replaces?: boolean;
}

/**
 * The update input of a PATCH: `record` (an answer of the resource, as read in the write's
 * transaction; null when there is none yet) in its JSON form, the patch merged over it, then
 * validated by the resource's update input class exactly as a PUT body: unknown and read-only
 * members dropped, every failing field named in one 400. Unless the PUT replaces the record, the
 * optional members the patch does not name are left out again, so the update keeps them (the
 * PUT rule "absent keeps the value") and writes only what the patch changes besides the required
 * members, which it writes back as read (and the ID, which names the record and is never written).
 */
export async function mergedInput<D extends object>(record: object | null, patch: Json, input: Type<D>, opts: MergeOptions = {}): Promise<D> {
  const current = record === null ? {} : (toJsonValue(record, UTC) as Json);
  const merged = mergeRecord(current, patch);
  const dto = (await pipe.transform(merged, { type: 'body', metatype: input, data: '' })) as D & Json;
  if (opts.replaces) return dto;
  const named = new Set(Object.keys(keepDeclared(patch, input) as Json));
  const required = requiredMembers(input);
  for (const key of Object.keys(dto)) if (!named.has(key) && !required.has(key) && key !== 'ID') delete dto[key];
  return dto;
}

// ---------------------------------------------------------------------------------------------
// The route declaration
// ---------------------------------------------------------------------------------------------

const patchSchemas = new Map<Function, Type<unknown>>();

/**
 * The OpenAPI schema of a PATCH body: the update input with every member optional (Patch…Dto).
 * A member keeps its type, so null is allowed exactly where the update takes null.
 */
export function patchSchemaOf(input: Type<unknown>): Type<unknown> {
  let schema = patchSchemas.get(input);
  if (!schema) {
    const name = input.name.replace(/^(?:Update|Put)/, 'Patch');
    const holder = { [name]: class extends PartialType(input) {} };
    schema = holder[name] as Type<unknown>;
    patchSchemas.set(input, schema);
  }
  return schema;
}

/** The rules every PATCH shares, at the head of its description. */
export const MERGE_PATCH_RULES =
  'A partial update: JSON Merge Patch (RFC 7396). The fields sent replace the stored ones, absent fields keep their value, null clears a field that may be null (400 naming a required one); read-only and unknown fields are ignored. ' +
  'Body: application/merge-patch+json (application/json and text/json are read the same way), or application/merge-patch+xml (also application/xml, text/xml) with the record’s root element, where an absent element keeps the value and i:nil="true" sets null. ' +
  'The record as merged must pass every rule of the PUT on this path, in the same transaction with the record locked; the answer is the record, as the PUT answers it. If-Match is honoured (412) and Idempotency-Key works as on PUT.';

/**
 * Declares a PATCH route as `routes.ts` declares the others: the access rule, the
 * method and path, its OpenAPI operation (summary; the shared rules followed by what the route
 * adds), the body media types, the body schema derived from the resource's update input, and
 * what it answers (the record, as the PUT answers it).
 */
export function PatchRoute(
  access: () => MethodDecorator,
  path: string,
  input: Type<unknown>,
  answer: Type<unknown>,
  doc: { summary: string; description?: string },
): MethodDecorator {
  const schema = patchSchemaOf(input);
  // In the order the stacked decorators applied (bottom-up), so the OpenAPI document stays the same.
  return applyDecorators(
    IdempotentWrite(),
    ApiResult(answer),
    access(),
    Patch(path),
    ApiOperation({ summary: doc.summary, description: [MERGE_PATCH_RULES, doc.description].filter(Boolean).join(' ') }),
    ApiConsumes(...PATCH_MEDIA_TYPES),
    ApiExtraModels(schema),
    // Optional: a PATCH without a body answers the record as it is, as an empty patch does.
    ApiBody({ schema: { $ref: getSchemaPath(schema) }, required: false }),
  );
}
