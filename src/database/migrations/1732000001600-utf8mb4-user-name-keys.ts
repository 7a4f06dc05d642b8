import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two repairs of hostile-input findings (docs/operations.md, "Character set"; docs/identity-and-tenancy.md,
 * "User names"):
 *
 * 1. MySQL/MariaDB: every table of the schema in utf8mb4. A database created with the server's
 *    default charset (latin1 on an upstream MariaDB) gave its tables that charset, and every
 *    character outside it (emoji, most scripts) failed the write. Tables not yet in utf8mb4 are
 *    converted, and the database's default becomes utf8mb4 for tables added later.
 * 2. Each account's `user_name_key` recomputed as the one key of its name (NFKC, case-folded),
 *    the key the login looks up and throttles by. Before, it was the lower-cased name, so the
 *    full-width or compatibility spelling of a name was an account of its own. Should two
 *    existing names fold to one key, the later account keeps its old key (it still logs in with
 *    its exact old name) and a warning names it, rather than failing the upgrade.
 *    The folding is written out here so this migration stays as it is when user-name.ts changes.
 */
export class Utf8mb4UserNameKeys1732000001600 implements MigrationInterface {
  name = 'Utf8mb4UserNameKeys1732000001600';

  async up(q: QueryRunner): Promise<void> {
    const type = q.connection.driver.options.type;
    if (type === 'mysql' || type === 'mariadb') {
      const [{ db }] = (await q.query('SELECT DATABASE() AS db')) as { db: string }[];
      await q.query(`ALTER DATABASE \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      const tables = (await q.query(
        "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_COLLATION NOT LIKE 'utf8mb4%'",
      )) as { name: string }[];
      if (tables.length) {
        // MariaDB refuses to change the charset of a column a foreign key joins, even with
        // foreign_key_checks off: the keys are dropped, the tables converted, the keys made again.
        const keys = (await q.query(
          'SELECT rc.TABLE_NAME AS tbl, rc.CONSTRAINT_NAME AS name, rc.REFERENCED_TABLE_NAME AS ref, rc.UPDATE_RULE AS onUpdate, rc.DELETE_RULE AS onDelete,' +
            ' GROUP_CONCAT(k.COLUMN_NAME ORDER BY k.ORDINAL_POSITION) AS cols, GROUP_CONCAT(k.REFERENCED_COLUMN_NAME ORDER BY k.ORDINAL_POSITION) AS refCols' +
            ' FROM information_schema.REFERENTIAL_CONSTRAINTS rc JOIN information_schema.KEY_COLUMN_USAGE k' +
            ' ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.TABLE_NAME = rc.TABLE_NAME AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME' +
            ' WHERE rc.CONSTRAINT_SCHEMA = DATABASE() GROUP BY rc.TABLE_NAME, rc.CONSTRAINT_NAME, rc.REFERENCED_TABLE_NAME, rc.UPDATE_RULE, rc.DELETE_RULE',
        )) as { tbl: string; name: string; ref: string; onUpdate: string; onDelete: string; cols: string; refCols: string }[];
        const list = (cols: string) =>
          cols
            .split(',')
            .map((c) => `\`${c}\``)
            .join(', ');
        for (const k of keys) await q.query(`ALTER TABLE \`${k.tbl}\` DROP FOREIGN KEY \`${k.name}\``);
        for (const { name } of tables) await q.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        for (const k of keys) {
          await q.query(
            `ALTER TABLE \`${k.tbl}\` ADD CONSTRAINT \`${k.name}\` FOREIGN KEY (${list(k.cols)}) REFERENCES \`${k.ref}\` (${list(k.refCols)})` +
              ` ON DELETE ${k.onDelete} ON UPDATE ${k.onUpdate}`,
          );
        }
      }
    }

    const fold = (s: string) => s.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
    const users = (await q.query('SELECT id, user_name, user_name_key FROM users ORDER BY created, id')) as {
      id: string;
      user_name: string;
      user_name_key: string;
    }[];
    const taken = new Set(users.map((u) => u.user_name_key));
    for (const u of users) {
      const key = fold(u.user_name);
      if (key === u.user_name_key) continue;
      if (taken.has(key)) {
        process.stderr.write(
          `pms-api migration ${this.name}: account ${u.id} ("${u.user_name}") keeps its user name key "${u.user_name_key}": "${key}" is another account's\n`,
        );
        continue;
      }
      await q.query('UPDATE users SET user_name_key = ? WHERE id = ?', [key, u.id]);
      taken.delete(u.user_name_key);
      taken.add(key);
    }
  }

  async down(): Promise<void> {
    // Neither repair is undone: the old keys and charsets were the defects.
  }
}
