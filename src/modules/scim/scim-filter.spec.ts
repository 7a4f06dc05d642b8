import { booleanAttribute, compileFilter, equalityAttribute, textAttribute } from './scim-filter.js';

const attributes = {
  username: textAttribute('u.k', { normalise: (v) => v.toLowerCase() }),
  externalid: textAttribute('i.x', { caseExact: true }),
  'emails.value': textAttribute('i.email'),
  'emails.type': equalityAttribute((p) => `(i.email IS NOT NULL AND ${p} = 'work')`),
  active: booleanAttribute('u.active'),
};

describe('compileFilter', () => {
  it('turns comparisons into parameterised SQL: no value is ever part of the statement', () => {
    const sut = compileFilter('userName eq "Ada\' OR 1=1 --"', attributes);
    expect(sut.where).toBe('u.k = :f0');
    expect(sut.params).toEqual({ f0: "ada' or 1=1 --" });
  });

  it('reads and, or, not and parentheses with SCIM precedence (and before or)', () => {
    const sut = compileFilter('userName sw "a" or externalId eq "X" and not (active eq false)', attributes);
    expect(sut.where).toBe("(u.k LIKE :f0 ESCAPE '!' OR (i.x = :f1 AND (NOT COALESCE((u.active = 0), 0))))");
    expect(sut.params).toEqual({ f0: 'a%', f1: 'X' });
  });

  it('escapes LIKE wildcards in co, sw and ew', () => {
    expect(compileFilter('emails.value co "50%_off!"', attributes).params).toEqual({ f0: '%50!%!_off!!%' });
    expect(compileFilter('emails.value ew "@X.org"', attributes)).toEqual({ where: "LOWER(i.email) LIKE :f0 ESCAPE '!'", params: { f0: '%@x.org' } });
  });

  it('reads value filters and the sub-attribute form Entra sends', () => {
    expect(compileFilter('emails[type eq "work" and value co "@x"]', attributes).where).toBe(
      "((i.email IS NOT NULL AND :f0 = 'work') AND LOWER(i.email) LIKE :f1 ESCAPE '!')",
    );
    expect(compileFilter('emails[type eq "work"].value eq "a@x"', attributes).where).toBe("((i.email IS NOT NULL AND :f0 = 'work') AND LOWER(i.email) = :f1)");
  });

  it('takes attribute names in any case and with their schema URN', () => {
    const urn = 'urn:ietf:params:scim:schemas:core:2.0:User';
    expect(compileFilter(`${urn}:USERNAME eq "a"`, attributes, [urn]).where).toBe('u.k = :f0');
  });

  it('reads booleans, also as "True"/"False" strings', () => {
    expect(compileFilter('active eq true', attributes).where).toBe('u.active = 1');
    expect(compileFilter('active eq "False"', attributes).where).toBe('u.active = 0');
    expect(compileFilter('active ne false', attributes).where).toBe('u.active = 1');
  });

  it.each([
    ['userName eq', /cannot be read/],
    ['nickName eq "a"', /nickName is not supported/],
    ['userName gt "a"', /gt is not supported/],
    ['active co "t"', /boolean/],
    ['emails.type co "w"', /eq/],
    ['userName eq 5', /quoted string/],
  ])('answers 400 invalidFilter to %s', (filter, detail) => {
    let error: unknown;
    try {
      compileFilter(filter, attributes);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 400, scimType: 'invalidFilter', detail: expect.stringMatching(detail) });
  });
});
