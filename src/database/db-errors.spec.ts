import { QueryFailedError } from 'typeorm';
import { isPrimaryKeyViolation, isUniqueViolation } from './db-errors.js';

const driver = (code: string, message: string) => new QueryFailedError('INSERT …', [], Object.assign(new Error(message), { code }));

describe('database error classification', () => {
  it('tells a primary-key clash from another unique key on MySQL/MariaDB, which use one code for both', () => {
    const pkMariaDb = driver('ER_DUP_ENTRY', "Duplicate entry '6f9619ff-8b86-4d01-b42d-00c04fc964ff' for key 'PRIMARY'");
    const pkMySql8 = driver('ER_DUP_ENTRY', "Duplicate entry '6f9619ff' for key 'organization_members.PRIMARY'");
    const otherKey = driver('ER_DUP_ENTRY', "Duplicate entry 's-i-o' for key 'ux_members_site_individual_org'");
    expect([pkMariaDb, pkMySql8, otherKey].map(isUniqueViolation)).toEqual([true, true, true]);
    expect([pkMariaDb, pkMySql8, otherKey].map(isPrimaryKeyViolation)).toEqual([true, true, false]);
  });

  it('reads SQLite’s distinct codes', () => {
    const pk = driver('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed: comments.id');
    const other = driver('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: users.user_name_key');
    expect([isPrimaryKeyViolation(pk), isPrimaryKeyViolation(other)]).toEqual([true, false]);
    expect([isUniqueViolation(pk), isUniqueViolation(other)]).toEqual([true, true]);
  });

  it('ignores everything else', () => {
    expect(isUniqueViolation(driver('ER_PARSE_ERROR', 'syntax'))).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
    expect(isPrimaryKeyViolation(null)).toBe(false);
  });
});
