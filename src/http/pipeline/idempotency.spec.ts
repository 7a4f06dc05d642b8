import { ValidationError } from '../../common/errors/errors.js';
import { canonicalJson, parseIdempotencyKey, requestFingerprint } from './idempotency.js';

describe('Idempotency-Key rules', () => {
  it('accept UUIDs, ULIDs, base64 and up to 128 characters', () => {
    for (const key of ['3f2c4b1e-8a4d-4c1e-9b7a-2d5e6f708192', '01HZX3K4M5N6P7Q8R9S0T1V2W3', 'aGVsbG8/d29ybGQ+Zm9v==', 'order:42~retry_1.x', 'k'.repeat(128)]) {
      expect(parseIdempotencyKey(key)).toBe(key);
    }
  });

  it.each([[''], ['k'.repeat(129)], ['has space'], ['a, b'], ['tab\there'], ['clé'], ['quote"']])('refuse %j with a 400 naming the header', (key) => {
    let error: unknown;
    try {
      parseIdempotencyKey(key);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[0].field).toBe('Idempotency-Key');
  });

  it('refuse a header sent twice', () => {
    expect(() => parseIdempotencyKey(['a', 'b'])).toThrow(ValidationError);
  });
});

describe('request fingerprints', () => {
  const body = { Name: 'x', Nested: { b: 1, a: [1, { d: null, c: 'é' }] } };

  it('do not depend on key order or on undefined members', () => {
    const reordered = { Nested: { a: [1, { c: 'é', d: null }], b: 1 }, Name: 'x', Gone: undefined };
    expect(requestFingerprint('POST', '/v4/goals', reordered)).toBe(requestFingerprint('POST', '/v4/goals', body));
    expect(canonicalJson(reordered)).toBe('{"Name":"x","Nested":{"a":[1,{"c":"é","d":null}],"b":1}}');
  });

  it('differ by method, path, value, type and array order', () => {
    const base = requestFingerprint('POST', '/v4/goals', body);
    expect(requestFingerprint('PUT', '/v4/goals', body)).not.toBe(base);
    expect(requestFingerprint('POST', '/v4/projects', body)).not.toBe(base);
    expect(requestFingerprint('POST', '/v4/goals', { ...body, Name: 'y' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v4/goals', { x: 1 })).not.toBe(requestFingerprint('POST', '/v4/goals', { x: '1' }));
    expect(requestFingerprint('POST', '/v4/goals', [1, 2])).not.toBe(requestFingerprint('POST', '/v4/goals', [2, 1]));
  });

  it('treat an absent body as null', () => {
    expect(requestFingerprint('POST', '/p', undefined)).toBe(requestFingerprint('POST', '/p', null));
  });

  it('handle a body nested far deeper than the stack would allow for recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toHaveLength(400_001);
  });
});
