import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { getMetadataStorage, IsOptional, IsString, validate, ValidatePromise, type ValidatorOptions, ValidationError as CvError } from 'class-validator';
import { AppValidationPipe } from '../../src/http/pipeline/app-validation.pipe.js';
// Every feature, so every input class of the API is declared.
import '../../src/app.module.js';
import { inputFields, type WireKind } from '../../src/http/wire/wire.js';
import { quicklyValid } from '../../src/http/wire/quick-validity.js';
import { clone } from './same-realm-clone.js';

/** The pipe as it was: every object built by class-transformer and validated by class-validator itself. */
/** The pipe as the API runs it, counting the bodies whose DTO its one pass built. */
class CountingPipe extends AppValidationPipe {
  built = 0;
  protected override quickEntity(metatype: new () => object, value: Record<string, unknown>): object | null {
    const entity = super.quickEntity(metatype, value);
    if (entity) this.built++;
    return entity;
  }
}

class ReferencePipe extends AppValidationPipe {
  protected override validate(object: object, options?: ValidatorOptions): Promise<CvError[]> {
    return validate(object, options);
  }
  protected override quickEntity(): object | null {
    return null;
  }
}

/** Values a client may send for a field of `kind`: mostly ones the field takes, then ones it must refuse. */
function valuesOf(kind: WireKind | undefined): { good: unknown[]; bad: unknown[] } {
  const text = { good: ['text', 'Ann-Marie', '  padded  ', 'é 😀 中'], bad: ['', 'x'.repeat(256), 'x'.repeat(4001), 12, true, {}, []] };
  switch (kind) {
    case 'string':
      return text;
    case 'guid':
      return { good: [randomUUID(), randomUUID().toUpperCase()], bad: ['not-a-guid', '', '00000000-0000-0000-0000-000000000000', 7] };
    case 'int':
      return { good: [0, 1, 42, 2147483647, '12'], bad: [-1, 1.5, 2147483648, 'abc', '', true] };
    case 'decimal':
      return { good: [0, 1.25, -3, '1.5'], bad: ['NaN', 'abc', false, Infinity] };
    case 'bool':
      return { good: [true, false, 'true', 'false'], bad: [1, 0, 'yes', ''] };
    case 'date':
    case 'dateTimeOffset':
      return { good: ['2026-11-21T15:00:00.000+00:00', '2026-11-21', '2026-11-21T15:00:00.0000000', ''], bad: ['garbage', 12345, '0999-01-01', '2026-13-40'] };
    case 'object':
      return { good: [{}], bad: ['x', [], 3] };
    case 'array':
      return { good: [[]], bad: ['x', {}, 3] };
    default:
      return { good: [...text.good, 1, true, randomUUID()], bad: text.bad };
  }
}

/** A small deterministic generator, so a failure names an input that can be made again. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every class class-validator holds rules for: the API's input and query classes. */
function validatedClasses(): Function[] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function | string, unknown[]> };
  return [...storage.validationMetadatas.keys()].filter((k): k is Function => typeof k === 'function');
}

function propertiesOf(cls: Function): { name: string; kind: WireKind | undefined }[] {
  const declared = new Map(inputFields(cls).map((f) => [f.name, f.kind]));
  const rules = getMetadataStorage().getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
  const names = new Set([...declared.keys(), ...rules.map((r) => r.propertyName)]);
  return [...names].map((name) => ({ name, kind: declared.get(name) }));
}

/** An object's own entries, nested objects as theirs, with undefined and the class of each object spelled out. */
function entriesOf(value: unknown): unknown {
  if (value === undefined) return '(undefined)';
  if (Array.isArray(value)) return value.map(entriesOf);
  if (typeof value !== 'object' || value === null) return value;
  return [(value as object).constructor?.name ?? '(none)', ...Object.entries(value).map(([k, v]) => [k, entriesOf(v)])];
}

async function outcome(pipe: AppValidationPipe, value: object, metatype: Function, type: 'body' | 'query'): Promise<unknown> {
  try {
    const dto = (await pipe.transform(clone(value), { type, metatype: metatype as never, data: '' })) as object;
    // Own keys in order, an undefined one included (JSON would drop it), and the prototype.
    return {
      valid: { class: dto.constructor.name, proto: Object.getPrototypeOf(dto) === (metatype as { prototype: object }).prototype, entries: entriesOf(dto) },
    };
  } catch (e) {
    const err = e as { errors?: unknown; message?: string };
    return { invalid: err.errors ?? err.message };
  }
}

describe('quicklyValid: a valid object in one pass, the same answer as class-validator', () => {
  const classes = validatedClasses();

  it('finds the API’s input classes', () => {
    // Individuals, goals, comments, bulk requests, list queries…: well over a hundred classes.
    expect(classes.length).toBeGreaterThan(100);
    expect(classes.map((c) => c.name)).toEqual(
      expect.arrayContaining(['CreateIndividualDto', 'UpdateIndividualDto', 'BulkRequestOfIndividual', 'QueriedPageQuery']),
    );
  });

  it('answers every input class exactly as class-validator does, for valid and invalid bodies alike', async () => {
    const fast = new AppValidationPipe();
    const reference = new ReferencePipe();
    const random = generator(20261128);
    let valid = 0;
    let invalid = 0;
    for (const cls of classes) {
      const properties = propertiesOf(cls);
      for (let n = 0; n < 60; n++) {
        const body: Record<string, unknown> = {};
        for (const p of properties) {
          const r = random();
          if (r < 0.35) continue;
          const { good, bad } = valuesOf(p.kind);
          const pool = random() < 0.85 ? good : bad;
          body[p.name] = r < 0.37 ? undefined : r < 0.4 ? null : pool[Math.floor(random() * pool.length)];
        }
        if (random() < 0.2) body.NotAField = 'dropped';
        for (const type of ['body', 'query'] as const) {
          const expected = await outcome(reference, body, cls, type);
          const got = await outcome(fast, body, cls, type);
          if (JSON.stringify(got) !== JSON.stringify(expected)) {
            throw new Error(`${cls.name} ${type} ${JSON.stringify(body)}:\n  fast ${JSON.stringify(got)}\n  class-validator ${JSON.stringify(expected)}`);
          }
          if ('valid' in (expected as object)) valid++;
          else invalid++;
        }
      }
    }
    // Both kinds were tried, many of each (3,836 valid and 11,284 invalid when written).
    expect(valid).toBeGreaterThan(classes.length * 10);
    expect(invalid).toBeGreaterThan(classes.length * 10);
  }, 120_000);

  it('answers nested bodies (every bulk request class) exactly as class-validator does', async () => {
    const fast = new CountingPipe();
    const reference = new ReferencePipe();
    const random = generator(20261129);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const bulkClasses = classes.filter((c) => c.name.startsWith('BulkRequestOf'));
    // Every resource with a bulk route (individuals, goals, permissions…).
    expect(bulkClasses.length).toBeGreaterThanOrEqual(8);
    const ref = (): unknown => pick(['HR-1', '', 'x'.repeat(300), 7, null, undefined, {}]);
    const item = (): unknown => {
      const r = random();
      if (r < 0.06) return pick([null, 'x', 3, undefined, [], [{ Op: 'create', Record: {} }]]);
      const out: Record<string, unknown> = {};
      if (random() < 0.9) out.Op = random() < 0.85 ? pick(['create', 'update', 'upsert']) : pick(['delete', '', 4, null]);
      if (random() < 0.9) out.Record = random() < 0.85 ? { FirstName: 'Ann', ID: randomUUID() } : pick(['x', [], 3, null]);
      if (random() < 0.3) out.ExternalRefs = random() < 0.8 ? { PrimaryReportsTo: ref(), IndividualID: ref(), Unknown: ref() } : pick(['x', [], 5, null]);
      if (random() < 0.2) out.IfMatch = pick(['"1-abc"', '*', '', 3, null]);
      if (random() < 0.1) out.NotAField = 'dropped';
      return out;
    };
    let valid = 0;
    let invalid = 0;
    for (const cls of bulkClasses) {
      for (let n = 0; n < 80; n++) {
        const body: Record<string, unknown> = {};
        const r = random();
        if (r < 0.9) body.Items = Array.from({ length: Math.floor(random() * 5) }, item);
        else if (r < 0.95) body.Items = pick([null, 'x', {}, 3]);
        if (random() < 0.1) body.NotAField = 'dropped';
        const expected = await outcome(reference, body, cls, 'body');
        const got = await outcome(fast, body, cls, 'body');
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          throw new Error(`${cls.name} ${JSON.stringify(body)}:\n  fast ${JSON.stringify(got)}\n  class-validator ${JSON.stringify(expected)}`);
        }
        if ('valid' in (expected as object)) valid++;
        else invalid++;
      }
    }
    expect(valid).toBeGreaterThan(bulkClasses.length * 5);
    expect(invalid).toBeGreaterThan(bulkClasses.length * 5);
    // Nested as they are, the valid bodies' DTOs were built by the one pass, not by class-transformer.
    expect(fast.built).toBeGreaterThanOrEqual(valid);
  });

  it('vouches for a valid bulk request without class-validator, and for no invalid item', () => {
    const options: ValidatorOptions = { whitelist: true, forbidUnknownValues: false };
    const bulk = classes.find((c) => c.name === 'BulkRequestOfIndividual')!;
    const itemClass = classes.find((c) => c.name === 'BulkItemOfIndividual')!;
    const itemOf = (v: object) => Object.assign(Object.create((itemClass as { prototype: object }).prototype) as object, v);
    const request = (items: unknown[]) => Object.assign(Object.create((bulk as { prototype: object }).prototype) as object, { Items: items });
    const good = itemOf({ Op: 'create', Record: { FirstName: 'Ann' }, Stray: 1 });
    expect(quicklyValid(request([good, undefined]), options)).toBe(true);
    // What whitelist deletes in an item, it deletes here too.
    expect(good).toEqual({ Op: 'create', Record: { FirstName: 'Ann' } });
    expect(quicklyValid(request([itemOf({ Op: 'erase', Record: {} })]), options)).toBe(false);
    expect(quicklyValid(request([null]), options)).toBe(false);
    expect(quicklyValid(request(['x']), options)).toBe(false);
    expect(quicklyValid(request([new Set([good])]), options)).toBe(false);
  });

  it('deletes what whitelist deletes, and vouches only for what it can', () => {
    class Probe {}
    // No rule at all: class-validator's forbidUnknownValues (on unless turned off) answers an error.
    expect(quicklyValid(new Probe(), {})).toBe(false);
    expect(quicklyValid(new Probe(), { forbidUnknownValues: false })).toBe(true);
    // Options it does not take are class-validator's to answer.
    expect(quicklyValid(new Probe(), { forbidUnknownValues: false, forbidNonWhitelisted: true })).toBe(false);
    expect(quicklyValid(null, {})).toBe(false);
    // whitelist: what has no rule is deleted, as class-validator deletes it.
    class Named {
      @IsOptional()
      @IsString()
      name?: unknown;
    }
    const named = Object.assign(new Named(), { name: 'x', extra: 1 });
    expect(quicklyValid(named, { whitelist: true, forbidUnknownValues: false })).toBe(true);
    expect(named).toEqual({ name: 'x' });
    expect(quicklyValid(Object.assign(new Named(), { extra: 1 }), { forbidUnknownValues: false })).toBe(true);
    // A failing constraint: class-validator answers (and its errors are the answer).
    expect(quicklyValid(Object.assign(new Named(), { name: 3 }), { whitelist: true, forbidUnknownValues: false })).toBe(false);
    // A class with promise validation is always class-validator's.
    class Later {
      @ValidatePromise()
      @IsString()
      name?: unknown;
    }
    expect(quicklyValid(Object.assign(new Later(), { name: 'x' }), { forbidUnknownValues: false })).toBe(false);
  });
});
