import 'reflect-metadata';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { quickInstance } from '../../src/http/wire/quick-instance.js';
import { clone } from './same-realm-clone.js';

/** Own entries in order, undefined spelled out, nested objects and lists as theirs with their class: what the two must agree on. */
const entries = (o: unknown): unknown => {
  if (o === undefined) return '(undefined)';
  if (Array.isArray(o)) return ['(list)', ...o.map(entries)];
  if (typeof o !== 'object' || o === null) return o;
  return [(o as object).constructor?.name ?? '(none)', ...Object.entries(o).map(([k, v]) => [k, entries(v)])];
};

class Flat {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  name?: unknown;
  @Transform(({ value }) => (value === '' ? undefined : value))
  @Transform(({ value, key, obj }) => (value === undefined ? `${key} of ${Object.keys(obj as object).length}` : value))
  code?: unknown;
  @Transform(({ value }) => value, { groups: ['admin'] })
  grouped?: unknown;
  @Transform(() => 'never', { toPlainOnly: true })
  plainOnly?: unknown;
  get computed(): string {
    return 'read only';
  }
  greet(): string {
    return 'hello';
  }
}

describe('quickInstance: plainToInstance of a flat body in one pass', () => {
  const options = { enableImplicitConversion: false, exposeDefaultValues: false };

  it('answers what plainToInstance answers: transforms in order, undefined kept, getters and methods left alone', () => {
    const bodies: Record<string, unknown>[] = [
      {},
      { name: '  Ann  ', code: 'A1', extra: 3 },
      { code: '', name: null },
      { code: undefined, grouped: 'g', plainOnly: 'p' },
      { computed: 'x', greet: 'y', name: 'z' },
      { flag: true, n: 1.5, big: 10n },
    ];
    for (const body of bodies) {
      const quick = quickInstance(Flat, { ...body }, options);
      const slow = plainToInstance(Flat, { ...body }, options);
      expect(quick).not.toBeNull();
      expect(quick).toBeInstanceOf(Flat);
      expect(entries(quick!)).toEqual(entries(slow));
    }
  });

  class Item {
    @Transform(({ value, obj }) => (typeof value === 'string' ? `${value}/${Object.keys(obj as object).join('+')}` : value))
    op?: unknown;
    record?: unknown;
    @Type(() => Flat)
    refs?: unknown;
  }
  class Batch {
    @Type(() => Item)
    items?: Item[];
    @Transform(({ value }) => (Array.isArray(value) ? value.length : value))
    counted?: unknown;
  }

  it('builds nested objects as plainToInstance does: a @Type class item by item, any other object as a plain copy', () => {
    const bodies: Record<string, unknown>[] = [
      { items: [] },
      { items: [{ op: 'create', record: { FirstName: 'Ann', Tags: ['a', { b: [1, null] }], Gone: undefined }, refs: { name: ' x ', code: '' } }] },
      { items: [null, 'x', 3, undefined, [{ op: 'nested list' }], { op: 7, extra: { toString: 'dropped', valueOf: 1, kept: true } }] },
      { items: 'not a list', counted: [1, 2, 3], loose: { a: { b: { c: [] } } } },
      { items: [{ refs: [{ name: ' listed ' }], record: [] }], counted: { not: 'a list' } },
      { items: [{ record: { hasOwnProperty: 1, isPrototypeOf: 2, FirstName: 'Bo' } }] },
    ];
    for (const body of bodies) {
      const quick = quickInstance(Batch, clone(body), options);
      const slow = plainToInstance(Batch, clone(body), options);
      expect(quick).not.toBeNull();
      expect(entries(quick)).toEqual(entries(slow));
    }
    // Built anew: nothing of the body is shared with the DTO.
    const body = { items: [{ record: { a: { b: 1 } } }] };
    const quick = quickInstance(Batch, body, options)!;
    expect(quick.items![0]).toBeInstanceOf(Item);
    expect(quick.items![0].record).not.toBe(body.items[0].record);
    expect((quick.items![0].record as { a: object }).a).not.toBe(body.items[0].record.a);
  });

  it('leaves to class-transformer what it does not take', () => {
    class Nested {
      @Type(() => Flat)
      inner?: Flat;
    }
    class Exposed {
      @Expose({ name: 'Alias' })
      name?: string;
    }
    @Exclude()
    class ExcludedAll {
      @Expose()
      name?: string;
    }
    class Excluded {
      @Exclude()
      secret?: string;
    }
    // A nested type whose declared class (design:type) is not a list or an object: class-transformer reads it.
    expect(quickInstance(Nested, { inner: 'x' }, options)).toBeNull();
    expect(quickInstance(Nested, {}, options)).not.toBeNull();
    class Converted {
      @Type(() => String)
      name?: unknown;
      @Type(() => Flat, { discriminator: { property: 'kind', subTypes: [{ value: Flat, name: 'flat' }] } })
      chosen?: unknown;
    }
    // A built-in type converts a value; a discriminator picks the class by one.
    expect(quickInstance(Converted, { name: 3 }, options)).toBeNull();
    expect(quickInstance(Converted, { name: null }, options)).not.toBeNull();
    expect(quickInstance(Converted, { chosen: { kind: 'flat' } }, options)).toBeNull();
    // Exposed or excluded properties, a class-level strategy.
    expect(quickInstance(Exposed, { Alias: 'a' }, options)).toBeNull();
    expect(quickInstance(ExcludedAll, { name: 'a' }, options)).toBeNull();
    expect(quickInstance(Excluded, { secret: 'a' }, options)).toBeNull();
    // What is not parsed JSON or XML, and what ValidationPipe's own path changes before
    // class-transformer runs (prototype keys it strips, gaps of a list it closes).
    const holes: unknown[] = [];
    holes[2] = 'x';
    for (const v of [
      new Date(0),
      new Set([1]),
      new Map([['a', 1]]),
      Buffer.from('x'),
      Object.assign(Object.create(null) as object, { a: 1 }),
      { then: () => undefined },
      JSON.parse('{"__proto__": {"polluted": true}}') as object,
      { constructor: 'x' },
      { prototype: {} },
      holes,
      [{ deeper: [new Date(0)] }],
    ])
      expect(quickInstance(Flat, { name: v }, options)).toBeNull();
    // Options that change what class-transformer does.
    for (const o of [
      { enableImplicitConversion: true },
      { exposeDefaultValues: true },
      { excludeExtraneousValues: true },
      { groups: ['admin'] },
      { version: 1 },
      { strategy: 'excludeAll' as const },
      { excludePrefixes: ['_'] },
      { enableCircularCheck: true },
    ])
      expect(quickInstance(Flat, { name: 'a' }, o)).toBeNull();
  });
});
