import { apiTokenHash, isApiTokenSecret, newApiTokenSecret, parseScopes, scopeFor, scopeGranted } from './api-token.js';

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
    expect(scopeFor('POST', '/scim/v2/Users')).toBe('scim');
    expect(scopeFor('GET', '/scim/v2/ServiceProviderConfig')).toBe('scim');
    expect(scopeFor('GET', '/scim/v2x/Users')).toBeNull();
    expect(scopeFor('POST', '/v4/apitokens')).toBeNull();
    expect(scopeFor('POST', '/v4/auth/logout-everywhere')).toBeNull();
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
