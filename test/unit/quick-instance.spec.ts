import 'reflect-metadata';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { quickInstance } from '../../src/http/wire/quick-instance.js';

/** Own entries in order, undefined spelled out: what the two must agree on. */
const entries = (o: object) => Object.entries(o).map(([k, v]) => [k, v === undefined ? '(undefined)' : v]);

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
    // A nested type named by a key of the body.
    expect(quickInstance(Nested, { inner: 'x' }, options)).toBeNull();
    expect(quickInstance(Nested, {}, options)).not.toBeNull();
    // Exposed or excluded properties, a class-level strategy.
    expect(quickInstance(Exposed, { Alias: 'a' }, options)).toBeNull();
    expect(quickInstance(ExcludedAll, { name: 'a' }, options)).toBeNull();
    expect(quickInstance(Excluded, { secret: 'a' }, options)).toBeNull();
    // Any value that is an object: a list, an object, a date.
    for (const v of [[1], { a: 1 }, new Date(0)]) expect(quickInstance(Flat, { name: v }, options)).toBeNull();
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
