import { ArgumentMetadata, Injectable, ValidationPipe, ValidationError as CvError } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { FieldError, ValidationError } from '../../common/errors/errors.js';
import { keepDeclared } from '../wire/declared-input.js';
import { rememberValidationRules } from '../wire/rules-memo.js';
import { quicklyValid } from '../wire/quick-validity.js';
import { hasPrototypeKey, quickInstance } from '../wire/quick-instance.js';

const rank = (constraint: string) => (constraint === 'isDefined' ? 0 : constraint.startsWith('is-') ? 1 : 2);

/** Flattens class-validator errors to `{ field, message }`, nested fields as `A.B[0].C`. */
export function flattenErrors(errors: CvError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = prefix ? (/^\d+$/.test(e.property) ? `${prefix}[${e.property}]` : `${prefix}.${e.property}`) : e.property;
    const c = e.constraints ?? {};
    // One message per field, the most basic failure first: missing, then wrong type, then limits.
    const key = Object.keys(c).sort((a, b) => rank(a) - rank(b))[0];
    if (key) out.push({ field, message: c[key] });
    if (e.children?.length) out.push(...flattenErrors(e.children, field));
  }
  return out;
}

/**
 * The global ValidationPipe (whitelist + transform): unknown and read-only fields are dropped,
 * never rejected; every failing field is listed in one 400. A body that is not an object (a JSON
 * array or scalar where a record is expected) is a 400 too, and a missing body counts as `{}`
 * so each required field is named. The body is cut to its declared fields first (declared-input.ts),
 * so no later step's cost grows with the number of fields sent.
 */
/** Distinct query strings whose validated DTO is kept, per DTO class. */
const MAX_KEPT_QUERIES = 256;

@Injectable()
export class AppValidationPipe extends ValidationPipe {
  /**
   * Validated query DTOs, per DTO class and query (docs/performance.md, "Query validation"):
   * validating costs ~0.1 ms, the result depends on the query alone, and clients send the same
   * few queries again and again. Each is kept frozen and answered as a shallow copy; a query that
   * fails is not kept.
   */
  private readonly queries = new WeakMap<Function, Map<string, object>>();

  constructor() {
    rememberValidationRules();
    super({
      whitelist: true,
      forbidNonWhitelisted: false,
      transform: true,
      transformOptions: { enableImplicitConversion: false, exposeDefaultValues: false },
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
      stopAtFirstError: false,
      exceptionFactory: (errors: CvError[]) => new ValidationError(flattenErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Path parameters are parsed by their own pipes (GuidPipe, IntIdPipe): converting them here
    // first would let "1e3" or "0x10" through as numbers.
    if (metadata.type === 'param') return value;
    const isDto = typeof metadata.metatype === 'function' && ![String, Number, Boolean, Array, Object].includes(metadata.metatype as never);
    if (isDto && (metadata.type === 'body' || metadata.type === 'query')) {
      if (value === undefined || value === null || value === '') value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValidationError([
          { field: metadata.type === 'body' ? '(body)' : '(query)', message: 'must be a single object with the fields of the resource' },
        ]);
      }
      value = keepDeclared(value, metadata.metatype as Function);
      if (metadata.type === 'query') return this.validatedQuery(value as object, metadata);
      const entity = this.quickEntity(metadata.metatype as new () => object, value as Record<string, unknown>);
      if (entity && quicklyValid(entity, this.validatorOptions)) return entity;
    }
    return super.transform(value, metadata);
  }

  /**
   * A body's DTO built in one pass (quickInstance), or null: then, and whenever the DTO is not
   * surely valid, the body takes ValidationPipe's own path (class-transformer, class-validator),
   * whose answer and errors are the answer. For a body it builds that path's other steps change
   * nothing: it has no list whose gaps to close, no binary value, and no `__proto__`,
   * `prototype` or `constructor` key to strip (a body that has one, at its top here or nested in
   * quickInstance, takes that path).
   */
  protected quickEntity(metatype: new () => object, value: Record<string, unknown>): object | null {
    if (hasPrototypeKey(value)) return null;
    return quickInstance(metatype, value, this.transformOptions);
  }

  /**
   * A valid object in one pass (quicklyValid: the same rules and constraints, without the error
   * tree class-validator builds for every property); anything it cannot vouch for goes to
   * class-validator, whose errors are the answer.
   */
  protected override validate(object: object, validatorOptions?: ValidatorOptions): Promise<CvError[]> | CvError[] {
    if (quicklyValid(object, validatorOptions)) return [];
    return super.validate(object, validatorOptions);
  }

  private async validatedQuery(value: object, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype as Function;
    let kept = this.queries.get(type);
    if (!kept) this.queries.set(type, (kept = new Map()));
    const key = JSON.stringify(value);
    let dto = kept.get(key);
    if (!dto) {
      dto = deepFreeze((await super.transform(value, metadata)) as object);
      if (kept.size >= MAX_KEPT_QUERIES) kept.clear();
      kept.set(key, dto);
    }
    return Object.assign(Object.create(Object.getPrototypeOf(dto) as object) as object, dto);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
