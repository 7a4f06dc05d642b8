import { userNameKey, userNameProblem } from './user-name.js';

describe('user names', () => {
  it.each([
    ['admin', 'admin'],
    ['ADMIN', 'admin'],
    ['Admin', 'admin'],
    ['ａｄｍｉｎ', 'admin'],
    ['ＡＤＭＩＮ', 'admin'],
    ['straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['ﬁona', 'fiona'],
  ])('%s has the key %s', (name, key) => {
    expect(userNameKey(name)).toBe(key);
  });

  it('keeps accents: ádmin is a name of its own, not admin', () => {
    expect(userNameKey('ádmin')).not.toBe(userNameKey('admin'));
    // Composed and decomposed spellings of one accent are one name.
    expect(userNameKey('a\u0301dmin')).toBe(userNameKey('\u00e1dmin'));
  });

  it.each([
    ['admin\u0000', 'U+0000'],
    ['ad\u0007min', 'U+0007'],
    ['admin\u200b', 'U+200B'],
    ['\u202eadmin', 'U+202E'],
    ['ad\u2028min', 'U+2028'],
    ['admin\ufeff', 'U+FEFF'],
    ['adm\u00adin', 'U+00AD'],
  ])('refuses %j (%s)', (name, cp) => {
    expect(userNameProblem(name)).toContain(cp);
  });

  it.each(['admin', 'jean.dupont@example.com', 'Zoë Ødegaard', '山田太郎', 'o’brien'])('accepts %s', (name) => {
    expect(userNameProblem(name)).toBeNull();
  });
});
