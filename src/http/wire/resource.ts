import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import { RECORD_VERSION } from './etag.js';
import { WireAudit } from './wire-audit.js';
import { type FieldQuery, markPartialAnswers, type Queryable, type QueryableField } from './list-query.js';
import { Access, InputField, InputFieldOptions, WireField, WireFieldOptions, WireInputOf, WireKind, WireType } from './wire.js';

/**
 * One declaration per resource field (docs/adding-a-resource.md). A field is declared once, with
 * its wire name, kind, Access and limits; from that declaration come:
 * - the response class (JSON and XML shape, OpenAPI schema) — `Response`;
 * - the create and update input classes (validation, XML coercion, OpenAPI) — `Create`, `Update`,
 *   whose required fields follow the Access column: `Req` both, `ReqCre` create, `ReqUpd`
 *   update, `-` neither, `RO` not an input at all;
 * - the entity → wire mapping (`toWire`), by name where names correspond (`ColorValue` ↔
 *   `colorValue`, `SiteID` ↔ `siteId`) or through an explicit `from` converter;
 * - the wire → entity mapping of writes (`toColumns`): only the fields the request carries.
 */

/** The TypeScript type of a wire kind. */
export type TsOf<K extends WireKind> = K extends 'string' | 'guid'
  ? string
  : K extends 'int' | 'decimal'
    ? number
    : K extends 'bool'
      ? boolean
      : K extends 'date' | 'dateTimeOffset'
        ? Date
        : unknown;

/** Input options of one direction (create or update), on top of what the field declares. */
export type InputSide = Partial<Omit<InputFieldOptions, 'nested'>> & {
  /** A decorator that replaces the generated input declaration (a rule InputField cannot say). */
  decorator?: PropertyDecorator;
};

/**
 * One field. The limits (`max` length for the response and the inputs; `min` length, `minValue`,
 * `maxValue`, `zeroIsNull` for the inputs; `enum`, `nested`) mean what they mean on `@InputField`.
 */
export interface FieldSpec<K extends WireKind = WireKind, A extends Access = Access, T = TsOf<K>> extends Pick<
  InputFieldOptions,
  'max' | 'min' | 'minValue' | 'maxValue' | 'zeroIsNull' | 'enum' | 'nested' | 'pattern' | 'example'
> {
  kind: K;
  access: A;
  /**
   * The member can be null in an answer. Its TypeScript type (`T | null`) and the OpenAPI schema
   * follow from this one flag; every other member is non-null in both (docs/openapi.md).
   */
  nullable?: boolean;
  /** Description of the response member. */
  description?: string;
  /** The entity property this field maps to by default; `null` for a field with no column. */
  column?: string | null;
  /** Entity (and extras) → wire value, for fields that are not a column of the same name. */
  from?: (entity: never, extras: never) => T | null;
  /** Wire → column value on writes (e.g. trim). Not called for null. */
  write?: (value: T) => unknown;
  /** The column value written for an explicit null (e.g. Rank null → 0). */
  nullAs?: unknown;
  /** The column value written on create when the field is absent or null. */
  createDefault?: unknown;
  /**
   * An explicit null counts as absent: update keeps the column, create writes `createDefault` (or
   * nothing). For not-null columns whose null on the wire means "keep" (a flag, a required link).
   */
  nullIsAbsent?: boolean;
  /**
   * How lists may be queried on it (docs/queries.md): `filter=` and `sort=` name only fields that
   * declare it here, each served by an index that starts with site_id (a migration adds it).
   */
  query?: FieldQuery;
  /** Input options for create; `false` when create does not take the field. */
  create?: InputSide | false;
  /** Input options for update; `false` when update does not take the field. */
  update?: InputSide | false;
}

type Opts<K extends WireKind, T> = Omit<FieldSpec<K, Access, T>, 'kind' | 'access'>;
const make =
  <K extends WireKind>(kind: K) =>
  <A extends Access, T = TsOf<K>, const O extends Opts<K, T> = Opts<K, T>>(access: A, opts?: O): FieldSpec<K, A, T> & O =>
    ({ ...(opts ?? {}), kind, access }) as FieldSpec<K, A, T> & O;

/**
 * A field a record is created with and keeps (`ReqCre`: required on create, ignored on update —
 * the record does not move): `field.fixed.guid(description, createDescription)`.
 */
const fixedAs =
  <K extends WireKind>(kind: K) =>
  <T = TsOf<K>, const O extends Opts<K, T> = Opts<K, T>>(description: string, create: string, opts?: O): FieldSpec<K, 'ReqCre', T> & O =>
    ({ ...(opts ?? {}), kind, access: 'ReqCre', description, create: { description: create }, update: false }) as FieldSpec<K, 'ReqCre', T> & O;

/** The update rule of an optional member: absent keeps the value, null clears it. */
export const KEEP_OR_CLEAR = 'Absent keeps the current value; null clears it.';

/**
 * An optional member (`-`, nullable) whose update keeps it when absent and clears it on null:
 * `field.optional.date()`, `field.optional.string({ max: 4000 })`.
 */
const optionalAs =
  <K extends WireKind>(kind: K) =>
  <T = TsOf<K>, const O extends Opts<K, T> = Opts<K, T>>(opts?: O): FieldSpec<K, '-', T> & O & { nullable: true } =>
    ({ ...(opts ?? {}), kind, access: '-', nullable: true, update: { description: KEEP_OR_CLEAR } }) as FieldSpec<K, '-', T> & O & { nullable: true };

/**
 * An optional display order: absent on create is 0, an explicit null sets 0, absent on update
 * keeps the value (the shared rule of every `Rank` that is not required).
 */
function rank(description: string, inputs: { create?: string; update?: string } = {}): FieldSpec<'int', '-', number> {
  return {
    kind: 'int',
    access: '-',
    description,
    nullAs: 0,
    createDefault: 0,
    create: { description: inputs.create ?? 'Default 0.' },
    update: { description: inputs.update ?? 'Absent keeps the current value; null sets 0.' },
  };
}

/**
 * An optional flag with a default: absent on create is `value`; on update, absent keeps the value
 * and an explicit null either keeps it too (`null: 'keeps'`) or sets the default (`null: 'default'`).
 */
function flag(value: boolean, description: string, inputs: { null: 'keeps' | 'default'; update?: string }): FieldSpec<'bool', '-', boolean> {
  const keeps = inputs.null === 'keeps';
  return {
    kind: 'bool',
    access: '-',
    description,
    createDefault: value,
    ...(keeps ? { nullIsAbsent: true } : { nullAs: value }),
    create: { description: `Default ${value}.` },
    update: { description: inputs.update ?? (keeps ? 'Absent or null keeps the current value.' : `Absent keeps the current value; null sets ${value}.`) },
  };
}

/**
 * The guid ID of a record the client may choose: optional on create (generated when absent, 409
 * id-taken when used), equal to the path id on update (ID_DOC).
 */
const id = () => make('guid')('ReqUpd', { create: { description: ID_DOC.create }, update: { description: ID_DOC.update } });

/**
 * The integer ID the service generates (Goal, Color, Commitment, Period): no input on create (one
 * sent is ignored), equal to the path id on update (ID_DOC); `zeroIsNull` where an ID of 0 counts as none.
 */
const intId = (description: string, update: Pick<InputSide, 'zeroIsNull'> = {}) =>
  make('int')('ReqUpd', { description, create: false, update: { ...update, description: ID_DOC.update } });

/** Field builders: `field.string('Req', { max: LIMITS.name, min: 1 })`; `field.rank(description)`; `field.flag(false, description, …)`; `field.id()`, `field.intId(description)`. */
export const field = {
  id,
  intId,
  rank,
  flag,
  fixed: { string: fixedAs('string'), guid: fixedAs('guid'), int: fixedAs('int') },
  optional: { string: optionalAs('string'), guid: optionalAs('guid'), date: optionalAs('date') },
  string: make('string'),
  guid: make('guid'),
  int: make('int'),
  decimal: make('decimal'),
  bool: make('bool'),
  date: make('date'),
  dateTimeOffset: make('dateTimeOffset'),
  object: make('object'),
  array: make('array'),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field, whatever its value type (variance of write/from)
type AnyField = FieldSpec<WireKind, Access, any>;
type Fields = Record<string, AnyField>;
type ValueOf<F> = F extends { kind: WireKind; write?: (value: infer T) => unknown } ? T : never;
type AccessOf<F> = F extends { access: infer A } ? A : never;
type NullOf<F> = F extends { nullable: true } ? null : never;

/** The response type: every member; `| null` only on the members declared `nullable`. */
export type WireOf<Fs extends Fields> = { [P in keyof Fs]: ValueOf<Fs[P]> | NullOf<Fs[P]> };
/** The create input: Req and ReqCre fields required, the others optional. RO fields are absent. */
export type CreateOf<Fs extends Fields> = { [P in keyof Fs as AccessOf<Fs[P]> extends 'Req' | 'ReqCre' ? P : never]: ValueOf<Fs[P]> } & {
  [P in keyof Fs as AccessOf<Fs[P]> extends '-' | 'ReqUpd' ? P : never]?: ValueOf<Fs[P]> | null;
};
/** The update input: Req and ReqUpd fields required, the others optional (absent keeps the value). */
export type UpdateOf<Fs extends Fields> = { [P in keyof Fs as AccessOf<Fs[P]> extends 'Req' | 'ReqUpd' ? P : never]: ValueOf<Fs[P]> } & {
  [P in keyof Fs as AccessOf<Fs[P]> extends '-' | 'ReqCre' ? P : never]?: ValueOf<Fs[P]> | null;
};

export type Audit = 'audit' | 'softDelete' | 'none';

export interface ResourceOptions<Fs extends Fields> {
  fields: Fs;
  /** Audit members appended after the fields: Created…UpdatedBy, preceded by Deleted/DeletedByRef with 'softDelete'. */
  audit?: Audit;
  /** Class names of the input types (their OpenAPI schema names); default Create{Name}Dto / Update{Name}Dto. */
  createName?: string;
  updateName?: string;
  /** The response class's name in code and logs; its OpenAPI/XML name is the wire name. */
  responseName?: string;
  /** How lists may be queried on the audit members (docs/queries.md), as `query` on a field. */
  auditQuery?: Partial<Record<'Deleted' | 'Created' | 'Updated', FieldQuery>>;
}

type AuditWire = { Created: Date; CreatedBy: string | null; Updated: Date; UpdatedBy: string | null };
type SoftDeleteWire = AuditWire & { Deleted: boolean; DeletedByRef: boolean };
export type AuditOf<A extends Audit | undefined> = A extends 'softDelete' ? SoftDeleteWire : A extends 'audit' ? AuditWire : unknown;

export interface Resource<Fs extends Fields, A extends Audit | undefined, E, X> {
  readonly name: string;
  readonly fields: Fs;
  /** The fields lists may be queried on (`query` of the fields and `auditQuery`), by lower-cased wire name. */
  readonly queryable: Queryable;
  /** The response class: `@ApiResult(X.Response)`. */
  readonly Response: Type<WireOf<Fs> & AuditOf<A>>;
  /** The create input class: `@Body() dto: CreateOf<…>` typed through `X.Create`. */
  readonly Create: Type<CreateOf<Fs>>;
  readonly Update: Type<UpdateOf<Fs>>;
  /** The wire form of a row (extras: what derived fields need, loaded in batches by the service). */
  toWire(entity: E, extras?: X): WireOf<Fs> & AuditOf<A>;
  /** The columns a create or update writes: only the fields the request carries (absent → not written). */
  toColumns(input: Partial<Record<keyof Fs, unknown>>, mode: 'create' | 'update'): Partial<E>;
}

/** `ColorValue` → `colorValue`, `SiteID` → `siteId`, `ID` → `id`. */
export function columnOf(wireName: string): string {
  const name = wireName === 'ID' ? 'id' : wireName.replace(/ID$/, 'Id');
  return name.charAt(0).toLowerCase() + name.slice(1);
}

const sideOf = (f: AnyField, mode: 'create' | 'update'): InputSide | false => {
  if (f.access === 'RO') return false;
  const side = mode === 'create' ? f.create : f.update;
  return side === false ? false : (side ?? {});
};

const requiredBy = (access: Access, mode: 'create' | 'update') =>
  access === 'Req' || (mode === 'create' && access === 'ReqCre') || (mode === 'update' && access === 'ReqUpd');

function namedClass(name: string): Type<object> {
  // A named class per resource: Swagger takes schema names from class names.
  const holder = { [name]: class {} };
  return holder[name] as Type<object>;
}

function inputClass(name: string, fields: Fields, mode: 'create' | 'update'): Type<object> {
  const cls = namedClass(name);
  for (const [wireName, f] of Object.entries(fields)) {
    const side = sideOf(f, mode);
    if (side === false) continue;
    const { decorator, ...overrides } = side;
    if (decorator) {
      decorator(cls.prototype, wireName);
      continue;
    }
    const opts: InputFieldOptions = {
      required: requiredBy(f.access, mode),
      max: f.max,
      min: f.min,
      minValue: f.minValue,
      maxValue: f.maxValue,
      zeroIsNull: f.zeroIsNull,
      enum: f.enum,
      nested: f.nested,
      pattern: f.pattern,
      example: f.example,
      ...overrides,
    };
    InputField(f.kind, stripUndefined(opts))(cls.prototype, wireName);
  }
  return cls;
}

function responseClass(wireName: string, className: string, fields: Fields, audit: Audit): Type<object> {
  const cls = namedClass(className);
  for (const [name, f] of Object.entries(fields)) {
    const opts: WireFieldOptions = { access: f.access, nullable: f.nullable, description: f.description, max: f.max, nested: f.nested, enum: f.enum };
    WireField(f.kind, stripUndefined(opts))(cls.prototype, name);
  }
  if (audit !== 'none') WireAudit({ softDelete: audit === 'softDelete' })(cls);
  WireType(wireName)(cls);
  return cls;
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The entity → wire mapping of a resource, compiled once from its declaration (docs/performance.md):
 * a function that sets each member with a constant key — the column by name, `null` for a field
 * without one, or the field's `from` converter — then the audit members. Hot pages map hundreds of
 * rows per request; a generic loop of keyed stores cost more than the rest of the mapping. The
 * generated source holds only declared names (JSON-quoted) and indexes into `froms`.
 *
 * The members are set in a constructor of their own whose prototype is the response class's (so
 * the answer is an instance of it, its `constructor` the class): V8 then lays every member out
 * inside the object when it is made. Set one by one on `new Response()` (an empty class), the
 * members went to a side array that was copied again every few members: about 2 KB of garbage per
 * record, the largest share of what an export of 1,000,000 records allocates (docs/exports.md).
 */
function compileToWire(
  Response: Type<object>,
  entries: { wireName: string; f: AnyField; column: string | null }[],
  audit: Audit,
): (entity: unknown, extras?: unknown) => object {
  const froms = entries.map((e) => e.f.from as ((e: unknown, x: unknown) => unknown) | undefined);
  const q = (name: string) => JSON.stringify(name);
  const lines = entries.map(({ wireName, f, column }, i) =>
    f.from
      ? `this[${q(wireName)}] = froms[${i}](row, extras) ?? null;`
      : column === null
        ? `this[${q(wireName)}] = null;`
        : `this[${q(wireName)}] = row[${q(column)}] ?? null;`,
  );
  if (audit === 'softDelete') lines.push('this.Deleted = row.deleted;', 'this.DeletedByRef = row.deletedByRef;');
  if (audit !== 'none')
    lines.push('this.Created = row.created;', 'this.CreatedBy = row.createdBy;', 'this.Updated = row.updated;', 'this.UpdatedBy = row.updatedBy;');
  const source =
    'function Shape(row, extras) {\n  ' +
    lines.join('\n  ') +
    '\n}\n' +
    'Shape.prototype = Response.prototype;\n' +
    'return function toWire(row, extras) {\n' +
    '  const out = new Shape(row, extras);\n' +
    "  if (typeof row.version === 'number') out[RECORD_VERSION] = row.version;\n" +
    '  return out;\n};';
  return new Function('Response', 'RECORD_VERSION', 'froms', source)(Response, RECORD_VERSION, froms) as (entity: unknown, extras?: unknown) => object;
}

/**
 * Declares a resource's wire fields once: `resource<ColorEntity>()('Color', { fields: {…} })`.
 * `E` is the entity type, `X` what derived fields need beyond the row (e.g. names of related
 * records), passed to their `from` converters. (Two calls, so the field types are inferred while
 * the entity type is named.)
 */
export function resource<E, X = undefined>() {
  return <const Fs extends Fields, const A extends Audit = 'none'>(name: string, options: ResourceOptions<Fs> & { audit?: A }): Resource<Fs, A, E, X> =>
    defineResource<E, X, Fs, A>(name, options);
}

function defineResource<E, X, Fs extends Fields, A extends Audit>(name: string, options: ResourceOptions<Fs> & { audit?: A }): Resource<Fs, A, E, X> {
  const fields = options.fields;
  const audit: Audit = options.audit ?? 'none';
  const Response = responseClass(name, options.responseName ?? `${name}Dto`, fields, audit);
  const Create = inputClass(options.createName ?? `Create${name}Dto`, fields, 'create');
  const Update = inputClass(options.updateName ?? `Update${name}Dto`, fields, 'update');
  WireInputOf(name)(Create);
  WireInputOf(name)(Update);
  // Each field's column resolved once here, not for every row written or answered.
  const entries = Object.entries(fields).map(([wireName, f]) => ({ wireName, f, column: f.column === undefined ? columnOf(wireName) : f.column }));

  const toWire = compileToWire(Response, entries, audit) as (entity: E, extras?: X) => WireOf<Fs> & AuditOf<A>;

  function toColumns(input: Partial<Record<keyof Fs, unknown>>, mode: 'create' | 'update'): Partial<E> {
    const out: Record<string, unknown> = {};
    for (const { wireName, f, column } of entries) {
      if (column === null || sideOf(f, mode) === false) continue;
      let v = (input as Record<string, unknown>)[wireName];
      if (v === null && f.nullIsAbsent) v = undefined;
      if ((v === undefined || v === null) && mode === 'create' && f.createDefault !== undefined) v = f.createDefault;
      if (v === undefined) continue;
      if (v === null && f.nullAs !== undefined) v = f.nullAs;
      if (v !== null && f.write) v = (f.write as (x: unknown) => unknown)(v);
      out[column] = v;
    }
    return out as Partial<E>;
  }

  const queryable = queryableOf(entries, options.auditQuery ?? {});
  if (queryable.size) markPartialAnswers(Response);
  return {
    name,
    fields,
    queryable,
    Response: Response as unknown as Type<WireOf<Fs> & AuditOf<A>>,
    Create: Create as unknown as Type<CreateOf<Fs>>,
    Update: Update as unknown as Type<UpdateOf<Fs>>,
    toWire,
    toColumns,
  };
}

/** The queryable fields of a declaration: those with `query`, and the audit members `auditQuery` names. */
function queryableOf(
  entries: { wireName: string; f: AnyField; column: string | null }[],
  audit: Partial<Record<'Deleted' | 'Created' | 'Updated', FieldQuery>>,
): Queryable {
  const out = new Map<string, QueryableField>();
  const add = (name: string, kind: AnyField['kind'], property: string, nullable: boolean, q: FieldQuery) =>
    out.set(name.toLowerCase(), { name, kind, property, nullable, filter: !!q.filter, sort: !!q.sort, then: q.then ?? [] });
  for (const { wireName, f, column } of entries) {
    if (!f.query) continue;
    if (column === null) throw new Error(`${wireName}: a field without a column cannot be queried`);
    add(wireName, f.kind, column, !!f.nullable, f.query);
  }
  for (const [name, q] of Object.entries(audit)) {
    if (q) add(name, name === 'Deleted' ? 'bool' : 'date', name.charAt(0).toLowerCase() + name.slice(1), false, q);
  }
  return out;
}

type InputOf<Fs extends Fields, M extends 'create' | 'update'> = M extends 'create' ? CreateOf<Fs> : UpdateOf<Fs>;

/**
 * Another input class from the same declaration, for a second body of one direction (e.g. a POST
 * on a path that already names some of the fields): the `mode` input with per-field changes
 * merged over what the fields declare (`false` leaves a field off). Only what differs is said
 * here; limits and kinds stay in the one declaration. Every member is typed optional.
 */
export function inputVariant<Fs extends Fields, M extends 'create' | 'update'>(
  res: { readonly name: string; readonly fields: Fs },
  className: string,
  mode: M,
  changes: { [P in keyof Fs]?: InputSide | false },
): Type<{ [P in keyof InputOf<Fs, M>]?: InputOf<Fs, M>[P] | null }> {
  const fields = Object.fromEntries(
    Object.entries(res.fields).map(([name, f]) => {
      const change = changes[name];
      if (change === undefined) return [name, f];
      const side = sideOf(f, mode);
      return [name, { ...f, [mode]: change === false ? false : { ...(side || {}), ...change } }];
    }),
  );
  const cls = inputClass(className, fields, mode);
  WireInputOf(res.name)(cls);
  return cls as Type<{ [P in keyof InputOf<Fs, M>]?: InputOf<Fs, M>[P] | null }>;
}

export { LIMITS } from '../../common/limits.js';

/** Trims a string written to a column (names are stored trimmed). */
export const trim = (v: string): string => v.trim();

/** Input descriptions shared by every resource with a guid id. */
export const ID_DOC = {
  create: 'Optional; generated when absent or all zeros; 409 id-taken when already used.',
  update: 'Must equal the id in the path.',
} as const;
