import 'reflect-metadata';
import { applyDecorators, HttpCode, SetMetadata, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiPropertyOptions, ApiProduces, ApiConsumes, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { IsDefined, IsOptional, ValidateBy, ValidateNested, buildMessage } from 'class-validator';
import { Type as TransformType } from 'class-transformer';
import { INPUT_DATE_PATTERN, parseInputDate } from '../../common/dates.js';

/**
 * The wire model underneath the resource declarations. A resource declares its fields once, with
 * `resource<Entity>()(WireName, { fields })` (resource.ts, docs/adding-a-resource.md), which builds
 * its response class with @WireType/@WireField and its create and update classes with
 * @InputField; the few bodies that are no resource (the token request, query classes) use
 * @InputField directly. From those come: the JSON and XML shapes (XML in ordinal element order,
 * docs/http-and-xml.md), the OpenAPI schema, validation, and the coercion of XML's text values.
 */
export type WireKind = 'string' | 'guid' | 'int' | 'decimal' | 'bool' | 'date' | 'dateTimeOffset' | 'object' | 'array';

/** A field's Access column (docs/adding-a-resource.md). */
export type Access = 'Req' | 'ReqUpd' | 'ReqCre' | 'RO' | '-';

export interface WireFieldMeta {
  name: string;
  kind: WireKind;
  /** For 'object' and 'array': the wire class of the value / of each item. */
  nested?: () => Type<unknown>;
  /** An answer member that can be null (`nullable: true`), or an input member that is not required. */
  nullable?: boolean;
}

const WIRE_FIELDS = Symbol('wire:fields');
const WIRE_TYPE = Symbol('wire:type');
const WIRE_INPUT_OF = Symbol('wire:input-of');
const INPUT_FIELDS = Symbol('wire:input-fields');
const sortedCache = new WeakMap<object, WireFieldMeta[]>();

/**
 * Names a response class on the wire: its XML root element (`ArrayOf{Name}` for collections) and
 * its OpenAPI schema, so Swagger shows the wire's type names (ListItem, Individual, …; docs/openapi.md).
 */
export function WireType(name: string): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(WIRE_TYPE, name, target);
    ApiSchema({ name })(target);
  };
}

export function wireTypeName(cls: Function): string | undefined {
  return Reflect.getMetadata(WIRE_TYPE, cls) as string | undefined;
}

/**
 * Marks an input class as a body of the wire type `name` (what `resource()` declares it for): in
 * XML it is sent with that root, e.g. a PutMetricValueDto as `<MetricValue>` (docs/openapi.md).
 */
export function WireInputOf(name: string): ClassDecorator {
  return (target) => Reflect.defineMetadata(WIRE_INPUT_OF, name, target);
}

export function wireInputOf(cls: Function): string | undefined {
  return Reflect.getMetadata(WIRE_INPUT_OF, cls) as string | undefined;
}

function addField(target: object, meta: WireFieldMeta, key: symbol = WIRE_FIELDS): void {
  const own: WireFieldMeta[] = Reflect.hasOwnMetadata(key, target)
    ? (Reflect.getOwnMetadata(key, target) as WireFieldMeta[])
    : [...((Reflect.getMetadata(key, target) as WireFieldMeta[] | undefined) ?? [])];
  const i = own.findIndex((f) => f.name === meta.name);
  if (i >= 0) own[i] = meta;
  else own.push(meta);
  Reflect.defineMetadata(key, own, target);
}

/** The fields of a wire class in declaration order (JSON order). */
export function wireFields(cls: Function): WireFieldMeta[] {
  return (Reflect.getMetadata(WIRE_FIELDS, cls.prototype) as WireFieldMeta[] | undefined) ?? [];
}

/** The fields of an input class (`@InputField`) in declaration order; `nullable` on those not required. */
export function inputFields(cls: Function): WireFieldMeta[] {
  return (Reflect.getMetadata(INPUT_FIELDS, cls.prototype) as WireFieldMeta[] | undefined) ?? [];
}

/** Ordinal (code-point) comparison: the element order DataContractSerializer writes and expects. */
export function ordinalCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The fields of a wire class in ordinal order (XML order). */
export function wireFieldsOrdinal(cls: Function): WireFieldMeta[] {
  let cached = sortedCache.get(cls);
  if (!cached) {
    cached = [...wireFields(cls)].sort((a, b) => ordinalCompare(a.name, b.name));
    sortedCache.set(cls, cached);
  }
  return cached;
}

const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';

export function isGuid(v: unknown): v is string {
  return typeof v === 'string' && GUID_RE.test(v);
}

function swaggerBase(kind: WireKind, nested?: () => Type<unknown>): ApiPropertyOptions {
  switch (kind) {
    case 'string':
      return { type: String };
    case 'guid':
      return { type: String, format: 'uuid', example: '3f2c4b1e-8a4d-4c1e-9b7a-2d5e6f708192' };
    case 'int':
      return { type: 'integer', format: 'int32' };
    case 'decimal':
      return { type: Number, format: 'double' };
    case 'bool':
      return { type: Boolean };
    case 'date':
      return { type: String, format: 'date-time', example: '2026-11-21T15:00:00.000+00:00' };
    case 'dateTimeOffset':
      return {
        type: String,
        format: 'date-time',
        example: '2026-11-21T10:00:00.000-05:00',
        description:
          'In XML a DataContract DateTimeOffset: children a:DateTime (UTC instant) and a:OffsetMinutes, in the namespace http://schemas.datacontract.org/2004/07/System.',
      };
    // A lazy type for Swagger is a function *named* `type` (that is how it tells one from a class).
    case 'object':
      return { type: lazyType(nested) ?? Object };
    case 'array':
      return { type: lazyType(nested) ?? Object, isArray: true, xml: { wrapped: true } };
  }
}

/**
 * The nested wire class for Swagger, resolved when the document is built. Swagger calls a type
 * function only when it is named `type` (else it takes the function for the class itself and
 * writes an empty $ref).
 */
function lazyType(nested?: () => Type<unknown>): (() => Type<unknown>) | undefined {
  if (!nested) return undefined;
  const type = () => nested();
  return type;
}

/** What a field declares alike for the answer (`@WireField`) and the inputs (`@InputField`). */
interface FieldOptions {
  description?: string;
  /** Max length in characters (strings). */
  max?: number;
  nested?: () => Type<unknown>;
  /** Values the field takes, for the OpenAPI document. */
  enum?: readonly (string | number)[];
}

export interface WireFieldOptions extends FieldOptions {
  access?: Access;
  /** The field can be null in an answer (its TypeScript type includes `| null`); else never null. */
  nullable?: boolean;
}

const ACCESS_TEXT: Record<Access, string> = {
  Req: 'Access Req: required on create and update.',
  ReqUpd: 'Access ReqUpd: required on update (must equal the id in the path).',
  ReqCre: 'Access ReqCre: required on create.',
  RO: 'Access RO: read-only, set by the service; ignored on input.',
  '-': 'Access -: optional.',
};

/** Declares a field of a response (wire) class. */
export function WireField(kind: WireKind, opts: WireFieldOptions = {}): PropertyDecorator {
  return (target, key) => {
    addField(target, { name: String(key), kind, nested: opts.nested, nullable: !!opts.nullable });
    const base = swaggerBase(kind, opts.nested);
    const description = [
      opts.description,
      base.description,
      opts.access ? ACCESS_TEXT[opts.access] : undefined,
      opts.max ? `Max length ${opts.max}.` : undefined,
    ]
      .filter(Boolean)
      .join(' ');
    ApiProperty({
      ...base,
      description,
      nullable: !!opts.nullable,
      required: true,
      readOnly: opts.access === 'RO' ? true : undefined,
      maxLength: opts.max,
      enum: opts.enum as (string | number)[] | undefined,
    } as ApiPropertyOptions)(target, key);
  };
}

// ---------------------------------------------------------------------------------------------
// Input fields
// ---------------------------------------------------------------------------------------------

/** Marker for a value that could not be coerced, so the validator reports it. */
const INVALID = Symbol('invalid');

function coerce(kind: WireKind, value: unknown, zeroIsNull: boolean): unknown {
  if (value === undefined || value === null) return value;
  switch (kind) {
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return INVALID;
    case 'int': {
      let n: number | symbol = INVALID;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) n = Number(value);
      if (typeof n === 'number' && (!Number.isInteger(n) || n > 2147483647 || n < -2147483648)) return INVALID;
      if (zeroIsNull && n === 0) return null;
      return n;
    }
    case 'decimal':
      if (typeof value === 'number') return Number.isFinite(value) ? value : INVALID;
      if (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) return Number(value);
      return INVALID;
    case 'guid':
      if (typeof value !== 'string') return INVALID;
      if (value.trim() === '') return null;
      if (!GUID_RE.test(value.trim())) return INVALID;
      if (value.trim() === ZERO_GUID) return null;
      return value.trim().toLowerCase();
    case 'date': {
      if (value instanceof Date) return value;
      if (typeof value !== 'string') return INVALID;
      if (value.trim() === '') return null;
      const d = parseInputDate(value);
      return d === undefined ? INVALID : d;
    }
    case 'string':
      if (typeof value === 'string') return value;
      return INVALID;
    default:
      return value;
  }
}

/** What the document says of an input date beside its pattern (docs/http-and-xml.md, "Dates"). */
const INPUT_DATE_TEXT =
  'Read leniently: ISO 8601 with an offset or `Z`, or without one (read as UTC, as .NET writes a DateTime: `2026-11-21T15:00:00.0000000`), a date alone, a space for `T`; empty or `0001-01-01T00:00:00` is null. Answers write `date-time` with the offset.';

const KIND_MESSAGE: Record<WireKind, string> = {
  string: 'must be a string',
  guid: 'must be a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)',
  int: 'must be a whole number (int32)',
  decimal: 'must be a number',
  bool: 'must be true or false',
  date: 'must be an ISO 8601 date-time in the years 1000-9999 (UTC), e.g. 2026-11-21T15:00:00.000+00:00',
  dateTimeOffset: 'must be an ISO 8601 date-time in the years 1000-9999 (UTC), e.g. 2026-11-21T15:00:00.000+00:00',
  object: 'must be an object',
  array: 'must be a list',
};

function IsKind(kind: WireKind): PropertyDecorator {
  return ValidateBy({
    name: `is-${kind}`,
    validator: {
      validate: (value) => {
        if (value === INVALID) return false;
        switch (kind) {
          case 'string':
            return typeof value === 'string';
          case 'guid':
            return isGuid(value);
          case 'int':
            return typeof value === 'number' && Number.isInteger(value);
          case 'decimal':
            return typeof value === 'number' && Number.isFinite(value);
          case 'bool':
            return typeof value === 'boolean';
          case 'date':
          case 'dateTimeOffset':
            return value instanceof Date && !Number.isNaN(value.getTime());
          case 'object':
            return typeof value === 'object' && !Array.isArray(value);
          case 'array':
            return Array.isArray(value);
        }
      },
      defaultMessage: buildMessage((prefix) => `${prefix}$property ${KIND_MESSAGE[kind]}`),
    },
  });
}

function MaxChars(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'max-chars',
    validator: {
      validate: (value) => typeof value !== 'string' || [...value].length <= max,
      defaultMessage: buildMessage((prefix) => `${prefix}$property must be at most ${max} characters`),
    },
  });
}

function MinChars(min: number): PropertyDecorator {
  return ValidateBy({
    name: 'min-chars',
    validator: {
      validate: (value) => typeof value !== 'string' || value.trim().length >= min,
      defaultMessage: buildMessage((prefix) => (min === 1 ? `${prefix}$property must not be empty` : `${prefix}$property must be at least ${min} characters`)),
    },
  });
}

function IntRange(min?: number, max?: number): PropertyDecorator {
  return ValidateBy({
    name: 'int-range',
    validator: {
      validate: (value) => typeof value !== 'number' || ((min === undefined || value >= min) && (max === undefined || value <= max)),
      defaultMessage: buildMessage((prefix) => `${prefix}$property must be between ${min ?? '-∞'} and ${max ?? '∞'}`),
    },
  });
}

/**
 * A list member as an XML body carries it: `<Ratings/>` (no items) parses to "", one item to
 * `{ Item: {…} }`, several to `{ Item: [{…}, …] }` (the element name of the items does not
 * matter). Those become the list of items as instances of `nested`; a JSON array (already
 * converted) and null pass through, anything else is left as sent for the type check to refuse.
 */
function xmlList(raw: unknown, converted: unknown, nested: () => Type<unknown>): unknown {
  if (raw === '') return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return converted;
  // Not a list in either form: left as sent, so the one error is "must be a list".
  const keys = Object.keys(raw);
  if (keys.length !== 1) return raw;
  const inner = (raw as Record<string, unknown>)[keys[0]];
  if (typeof inner !== 'object' || inner === null) return raw;
  const items = Array.isArray(inner) ? inner : [inner];
  return items.map((item) => (typeof item === 'object' && item !== null ? plainToInstance(nested(), item) : item));
}

export interface InputFieldOptions extends FieldOptions {
  /** Must be present and not null. */
  required?: boolean;
  /** Min length after trimming (strings); 1 means "not empty". */
  min?: number;
  /** Numeric range (int, decimal). */
  minValue?: number;
  maxValue?: number;
  /** For int ids: 0 means "not supplied" (a .NET client's default int). */
  zeroIsNull?: boolean;
  example?: unknown;
  /**
   * An object the handler validates itself (a bulk item's Record: docs/bulk.md): only "is an
   * object", its members kept as sent (no nested validation, which would strip them all).
   */
  opaque?: true;
  /**
   * The OpenAPI `pattern` of a string input: what the document says the field admits, which must
   * admit everything the service accepts (the service's own check may be narrower, and answers 400).
   */
  pattern?: string;
}

/**
 * Declares a field of an input DTO: coercion of XML text (and lenient JSON), type and limit
 * validation, required-ness and the OpenAPI property, in one decorator.
 */
/** Property → nested input class, of each input class (read by the validation pipe's declared-field pass). */
const INPUT_NESTED = Symbol('pms:input-nested');

/** The nested input class of a declared object or array input field, if it has one. */
export function inputNestedClass(cls: Function, property: string): Function | undefined {
  const map = Reflect.getMetadata(INPUT_NESTED, cls.prototype) as Map<string, () => Function> | undefined;
  return map?.get(property)?.();
}

export function InputField(kind: WireKind, opts: InputFieldOptions = {}): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    (target, key) => addField(target, { name: String(key), kind, nested: opts.nested, nullable: !opts.required }, INPUT_FIELDS),
  ];
  if (opts.nested) {
    const nestedOf = opts.nested as () => Function;
    decorators.push((target, key) => {
      const own = Reflect.getOwnMetadata(INPUT_NESTED, target) as Map<string, () => Function> | undefined;
      const map = own ?? new Map(Reflect.getMetadata(INPUT_NESTED, target) as Map<string, () => Function> | undefined);
      map.set(String(key), nestedOf);
      if (!own) Reflect.defineMetadata(INPUT_NESTED, map, target);
    });
  }
  decorators.push(opts.required ? IsDefined({ message: '$property is required' }) : IsOptional());
  if (kind === 'object' || kind === 'array') {
    decorators.push(IsKind(kind));
    if (!opts.opaque) decorators.push(ValidateNested({ each: kind === 'array' }));
    if (opts.nested) {
      const nested = opts.nested;
      decorators.push(TransformType(() => nested()));
      if (kind === 'array') decorators.push(Transform(({ value, obj, key }) => xmlList((obj as Record<string, unknown>)[key], value, nested)));
    }
  } else {
    decorators.push(Transform(({ value }) => coerce(kind, value, !!opts.zeroIsNull)));
    decorators.push(IsKind(kind));
  }
  if (opts.max) decorators.push(MaxChars(opts.max));
  if (opts.min) decorators.push(MinChars(opts.min));
  if (opts.minValue !== undefined || opts.maxValue !== undefined) decorators.push(IntRange(opts.minValue, opts.maxValue));
  if (opts.enum) {
    const allowed = opts.enum;
    decorators.push(
      ValidateBy({
        name: 'one-of',
        validator: {
          validate: (value) => value === undefined || value === null || allowed.includes(value as string | number),
          defaultMessage: buildMessage((prefix) => `${prefix}$property must be one of ${allowed.join(', ')}`),
        },
      }),
    );
  }
  const base = swaggerBase(kind, opts.nested);
  // An input date is described by the lenient forms the service reads (a pattern); answers keep `format: date-time`.
  const date = kind === 'date' || kind === 'dateTimeOffset';
  decorators.push(
    ApiProperty({
      ...base,
      ...(date ? { format: undefined, pattern: INPUT_DATE_PATTERN } : {}),
      ...(opts.pattern ? { pattern: opts.pattern } : {}),
      description: [opts.description, base.description, date ? INPUT_DATE_TEXT : undefined].filter(Boolean).join(' ') || undefined,
      required: !!opts.required,
      nullable: !opts.required,
      maxLength: opts.max,
      minLength: opts.min,
      minimum: opts.minValue,
      maximum: opts.maxValue,
      enum: opts.enum as (string | number)[] | undefined,
      example: opts.example ?? base.example,
    } as ApiPropertyOptions),
  );
  return applyDecorators(...decorators) as PropertyDecorator;
}

// ---------------------------------------------------------------------------------------------
// Handler result metadata
// ---------------------------------------------------------------------------------------------

export const WIRE_RESULT = 'wire:result';

/**
 * Where the AuthGuard leaves the controller method a request runs: the adapter's reply
 * (route-table.ts) renders the method's answer under the WIRE_RESULT it declares.
 */
export const ROUTE_HANDLER_KEY = '__pmsRouteHandler';

/** The answer a route handler declares (undefined for one that declares none). */
export function wireResultOf(handler: Function): WireResultMeta | undefined {
  return Reflect.getMetadata(WIRE_RESULT, handler) as WireResultMeta | undefined;
}

export interface WireResultMeta {
  type: Type<unknown> | null;
  collection: boolean;
  /** XML root of a collection: `ArrayOf{Type}` unless the route names another (List, Dashboards; docs/http-and-xml.md). */
  root: string;
  /** The handler answers `Accept: text/csv` itself (a bounded collection rendered whole, an import's failed rows): the export stage leaves it to it. */
  ownCsv?: boolean;
}

/**
 * Declares what a handler answers: its wire type, single or collection, and the XML root. Sets
 * the OpenAPI 200 response for both media types at the same time.
 */
export function ApiResult(
  type: Type<unknown> | null,
  opts: { collection?: boolean; root?: string; description?: string; ownCsv?: boolean } = {},
): MethodDecorator {
  const typeName = type ? (wireTypeName(type) ?? type.name) : 'Object';
  const collection = !!opts.collection;
  const root = opts.root ?? (collection ? `ArrayOf${typeName}` : typeName);
  const meta: WireResultMeta = { type, collection, root, ...(opts.ownCsv ? { ownCsv: true } : {}) };
  const arrayOf = (of: Type<unknown>, xml: string) => ({ type: 'array', items: { $ref: getSchemaPath(of) }, xml: { name: xml, wrapped: true } });
  const schema = type
    ? collection
      ? arrayOf(type, root)
      : { $ref: getSchemaPath(type) }
    : { type: 'object', xml: { name: 'Object' }, description: 'An empty object: {} in JSON, <Object/> in XML.' };
  const decorators = [
    SetMetadata(WIRE_RESULT, meta),
    // Every documented operation answers 200, creates included (spec: General rules 5).
    HttpCode(200),
    ApiProduces('application/json', 'text/json', 'application/xml', 'text/xml'),
    ApiOkResponse({
      description: opts.description ?? (collection ? `A collection of ${typeName} (XML root ${root})` : typeName === 'Object' ? 'An empty object' : typeName),
      schema,
    }),
  ];
  if (type) decorators.unshift(ApiExtraModels(type));
  return applyDecorators(...decorators);
}

/** Declares that a handler takes a body in any of the four media types. */
export function ApiBodyTypes(): MethodDecorator {
  return applyDecorators(ApiConsumes('application/json', 'text/json', 'application/xml', 'text/xml'));
}
