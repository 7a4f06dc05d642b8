import { apiTokenHash, isApiTokenSecret, newApiTokenSecret, parseScopes, scopeFor, scopeGranted, SCOPE_PATTERN, SCOPES_PATTERN } from './api-token.js';

describe('API token secrets', () => {
  it('are prefixed, 50 characters long, distinct, and carry a checksum a typo breaks', () => {
    const sut = newApiTokenSecret();
    expect(sut).toMatch(/^pms_[0-9A-Za-z]{46}$/);
    expect(isApiTokenSecret(sut)).toBe(true);
    expect(newApiTokenSecret()).not.toBe(sut);
    const typo = sut.slice(0, 10) + (sut[10] === 'a' ? 'b' : 'a') + sut.slice(11);
    expect(isApiTokenSecret(typo)).toBe(false);
    expect(isApiTokenSecret('pms_short')).toBe(false);
    expect(apiTokenHash(sut)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('scopes', () => {
  it('derive the needed scope from the method and the first path segment', () => {
    expect(scopeFor('GET', '/v4/individuals/abc?tz=UTC')).toBe('individuals:read');
    expect(scopeFor('HEAD', '/v4/goals')).toBe('goals:read');
    expect(scopeFor('PATCH', '/v4/goals/7')).toBe('goals:write');
    // Provisioning routes need the scope scim by their access rule, not by their path.
    expect(scopeFor('POST', '/scim/v2/Users')).toBeNull();
    expect(scopeFor('POST', '/v4/apitokens')).toBeNull();
    expect(scopeFor('POST', '/v4/auth/logout-everywhere')).toBeNull();
  });

  it('make delta sync need the read scope of the collection it serves, and serve no credentials to any token', () => {
    expect(scopeFor('GET', '/v4/sync/individuals?updatedSince=seq-0')).toBe('individuals:read');
    expect(scopeFor('GET', '/v4/sync/webhooks')).toBe('webhooks:read');
    expect(scopeFor('GET', '/v4/sync/apitokens')).toBeNull();
    expect(scopeFor('GET', '/v4/sync/identityproviders')).toBeNull();
    expect(scopeFor('GET', '/v4/sync')).toBeNull();
    expect(scopeGranted(['sync:read'], scopeFor('GET', '/v4/sync/individuals')!)).toBe(false);
  });

  it('grant by kind, with write covering read and * covering every kind', () => {
    expect(scopeGranted(['goals:write'], 'goals:read')).toBe(true);
    expect(scopeGranted(['goals:read'], 'goals:write')).toBe(false);
    expect(scopeGranted(['*:read'], 'individuals:read')).toBe(true);
    expect(scopeGranted(['*:read'], 'individuals:write')).toBe(false);
    expect(parseScopes('  goals:read  goals:read *:read ')).toEqual(['goals:read', '*:read']);
  });

  it('grant provisioning only to a token naming scim itself', () => {
    expect(scopeGranted(['scim'], 'scim')).toBe(true);
    expect(scopeGranted(['*:write', '*:read'], 'scim')).toBe(false);
    expect(scopeGranted(['scim'], 'individuals:read')).toBe(false);
  });
});

describe('SCOPES_PATTERN (what the OpenAPI document says Scopes is)', () => {
  const pattern = new RegExp(SCOPES_PATTERN);
  it('admits every list whose scopes have the shape the service takes, however blank-separated', () => {
    for (const text of ['*:read', 'individuals:read goals:write', ' scim ', 'admin\t*:write\n goals:read', 'goals:read goals:read']) {
      expect(parseScopes(text).every((s) => SCOPE_PATTERN.test(s))).toBe(true);
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: true });
    }
  });
  it('refuses a list with a scope of no such shape, which the service refuses too (400)', () => {
    for (const text of ['', '   ', 'goals', 'goals:delete', 'individuals:read,goals:read', 'GOALS:READ']) {
      expect(parseScopes(text).length > 0 && parseScopes(text).every((s) => SCOPE_PATTERN.test(s))).toBe(false);
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: false });
    }
  });
});
