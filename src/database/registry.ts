import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getMetadataArgsStorage } from 'typeorm';

/**
 * Every entity and migration of the schema, found in their folders when this module loads
 * (docs/adding-a-resource.md): an entity is a class a file of `entities/` exports with `@Entity`;
 * a migration is the class a `migrations/<timestamp>-<name>` file exports, run in timestamp order.
 * So a new table is its entity file and its migration file, and no list names it. The same search
 * serves jest (TypeScript sources), the compiled build and the migration CLI.
 *
 * A table whose column types differ by dialect has one class per dialect (the audit trail,
 * idempotency keys, webhook deliveries and two of the imports' tables keep a long text: `text` on
 * SQLite, `longtext` on MySQL/MariaDB; `DialectTable` and `LongTextCol` in columns.ts): the class
 * named `<X>MysqlEntity` is the MySQL/MariaDB form of `<X>Entity`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const SOURCE = /\.(?:js|ts)$/;

/** The files of a folder (sorted, declaration files and specs left out), imported one after another. */
async function load(folder: string, name: RegExp): Promise<Record<string, unknown>[]> {
  const files = readdirSync(join(here, folder))
    .filter((f) => name.test(f) && SOURCE.test(f) && !f.endsWith('.d.ts') && !/\.spec\./.test(f))
    .sort();
  const modules: Record<string, unknown>[] = [];
  // One at a time: jest's ESM loader does not take concurrent dynamic imports.
  for (const f of files) modules.push((await import(pathToFileURL(join(here, folder, f)).href)) as Record<string, unknown>);
  return modules;
}

const classesOf = (modules: Record<string, unknown>[]) => modules.flatMap((m) => Object.values(m).filter((v): v is Function => typeof v === 'function'));

const exported = classesOf(await load('entities', /\.entity\.[jt]s$/));
// Declared with @Entity (loading the files registered them): not the abstract column sets and bases.
const tables = new Set(getMetadataArgsStorage().tables.map((t) => t.target));
const entityClasses = exported.filter((c) => tables.has(c));
const MYSQL = /MysqlEntity$/;
const mysqlFormOf = new Set(entityClasses.filter((c) => MYSQL.test(c.name)).map((c) => c.name.replace(MYSQL, 'Entity')));

/** The entities every dialect shares. */
export const ENTITIES: readonly Function[] = entityClasses.filter((c) => !MYSQL.test(c.name) && !mysqlFormOf.has(c.name));

/** The entities of a dialect: ENTITIES plus the dialect's form of each table that has two. */
export function entitiesFor(sqlite: boolean): Function[] {
  const forms = entityClasses.filter((c) => (sqlite ? mysqlFormOf.has(c.name) : MYSQL.test(c.name)));
  return [...ENTITIES, ...forms];
}

/** Every migration, in the order of the timestamps their files are named with. */
export const MIGRATIONS: readonly Function[] = (await load('migrations', /^\d{13}-/)).map((m, i) => {
  const [migration] = Object.values(m).filter(
    (v): v is Function => typeof v === 'function' && typeof (v as { prototype?: { up?: unknown } }).prototype?.up === 'function',
  );
  if (!migration) throw new Error(`migration file ${i} exports no migration class`);
  return migration;
});
