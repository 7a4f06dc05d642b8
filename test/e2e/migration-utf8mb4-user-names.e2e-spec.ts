import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import mysql from 'mysql2/promise';
import { parseDatabaseUrl } from '../../src/config/config.js';
import { Utf8mb4UserNameKeys1732000001600 } from '../../src/database/migrations/1732000001600-utf8mb4-user-name-keys.js';
import { DB_KIND } from './harness.js';
import { atReleaseBefore } from './upgrade.js';

/**
 * An existing installation upgrading through migration 1732000001600 (docs/operations.md,
 * "Character set"; docs/identity-and-tenancy.md, "User names"): the user name keys are
 * recomputed as one identity, and on MySQL/MariaDB a schema created in latin1 — tables joined by
 * foreign keys — is converted to utf8mb4 with every row and every key kept.
 */
describe(`migration 1732000001600: utf8mb4 and user name keys (${DB_KIND})`, () => {
  it('recomputes every key, keeps an account whose new key another has, and (MySQL) converts a latin1 schema', async () => {
    const upgrade = await atReleaseBefore(Utf8mb4UserNameKeys1732000001600, async (url) => {
      const target = parseDatabaseUrl(url);
      if (target.kind !== 'mysql') return;
      // As created on a server whose default charset is latin1, before this release.
      const admin = await mysql.createConnection({ host: target.host, port: target.port, user: target.username, password: target.password });
      await admin.query(`ALTER DATABASE \`${target.database}\` CHARACTER SET latin1 COLLATE latin1_swedish_ci`);
      await admin.end();
    });
    const { before, after } = upgrade;
    const target = parseDatabaseUrl(upgrade.url);
    const foreignKeys = (ds: DataSource) =>
      ds.query(
        'SELECT CONSTRAINT_NAME AS name, TABLE_NAME AS t, REFERENCED_TABLE_NAME AS ref FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY CONSTRAINT_NAME',
      ) as Promise<{ name: string; t: string; ref: string }[]>;
    try {
      const site = randomUUID();
      const at = '2026-01-01 00:00:00.000';
      await before.query('INSERT INTO sites (id, name, performance_management, created, updated, version) VALUES (?, ?, 1, ?, ?, 1)', [
        site,
        'Upgraded',
        at,
        at,
      ]);
      const users = [
        { id: randomUUID(), name: 'Ｆｕｌｌ', oldKey: 'ｆｕｌｌ', created: '2026-01-01 00:00:01.000' },
        { id: randomUUID(), name: 'Straße', oldKey: 'straße', created: '2026-01-01 00:00:02.000' },
        { id: randomUUID(), name: 'ADMIN2', oldKey: 'admin2', created: '2026-01-01 00:00:03.000' },
        // Folds to admin2 as well: created later, it keeps its old key.
        { id: randomUUID(), name: 'ａｄｍｉｎ２', oldKey: 'ａｄｍｉｎ２', created: '2026-01-01 00:00:04.000' },
        { id: randomUUID(), name: 'plain', oldKey: 'plain', created: '2026-01-01 00:00:05.000' },
      ];
      if (target.kind === 'mysql') {
        // Full-width forms do not fit latin1: these names could not have been stored there.
        users.splice(0, 1);
        users.splice(2, 1);
      }
      for (const u of users) {
        await before.query('INSERT INTO users (id, site_id, user_name, user_name_key, is_global_admin, created, updated) VALUES (?, ?, ?, ?, 0, ?, ?)', [
          u.id,
          site,
          u.name,
          u.oldKey,
          u.created,
          u.created,
        ]);
      }
      const keysBefore = target.kind === 'mysql' ? await foreignKeys(before) : [];
      await upgrade.upgrade();
      const rows = (await after.query('SELECT id, user_name AS name, user_name_key AS k FROM users WHERE site_id = ?', [site])) as {
        id: string;
        name: string;
        k: string;
      }[];
      const keyOf = (name: string) => rows.find((r) => r.name === name)?.k;
      const expected: Record<string, string> = { Straße: 'strasse', ADMIN2: 'admin2', plain: 'plain' };
      if (target.kind !== 'mysql') Object.assign(expected, { Ｆｕｌｌ: 'full', ａｄｍｉｎ２: 'ａｄｍｉｎ２' });
      expect(Object.fromEntries(rows.map((r) => [r.name, keyOf(r.name)]))).toEqual(expected);

      if (target.kind === 'mysql') {
        expect(keysBefore.length).toBeGreaterThan(5);
        // Every key survives the conversion (later migrations, e.g. the import jobs', add their own).
        expect(await foreignKeys(after)).toEqual(expect.arrayContaining(keysBefore));
        const [{ n }] = (await after.query(
          "SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND CHARACTER_SET_NAME <> 'utf8mb4'",
        )) as { n: number }[];
        expect(Number(n)).toBe(0);
        const [{ cs }] = (await after.query('SELECT DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()')) as {
          cs: string;
        }[];
        expect(cs).toBe('utf8mb4');
        await after.query('UPDATE sites SET name = ? WHERE id = ?', ['Upgraded 😀', site]);
        expect(await after.query('SELECT name FROM sites WHERE id = ?', [site])).toEqual([{ name: 'Upgraded 😀' }]);
      }
    } finally {
      await upgrade.close();
    }
  });
});
