import type { EntityMetadata, ObjectLiteral } from 'typeorm';

/**
 * Rows read by the kept statements (kept-sql.ts) turned into entities, as TypeORM hydrates them
 * but compiled once per entity (docs/performance.md, "Kept statements").
 */
export type Column = EntityMetadata['columns'][number];
type Hydrate = (row: Record<string, unknown>, entity: ObjectLiteral) => void;

const SELECTED = new WeakMap<EntityMetadata, Hydrate>();
const ALL = new WeakMap<EntityMetadata, Hydrate>();

/**
 * The entities of rows read with {@link compileSimpleFind} (its selected columns) or with every
 * column (`'all'`: a by-id read), hydrated as TypeORM hydrates them (see `compileHydrate`).
 */
export function hydrateRows<T>(metadata: EntityMetadata, rows: Record<string, unknown>[], which: 'selected' | 'all' = 'selected'): T[] {
  const kept = which === 'all' ? ALL : SELECTED;
  let hydrate = kept.get(metadata);
  if (!hydrate)
    kept.set(metadata, (hydrate = compileHydrate(metadata, which === 'all' ? metadata.columns : metadata.columns.filter((c) => c.isSelect !== false))));
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const entity = metadata.create() as ObjectLiteral;
    hydrate(rows[i], entity);
    out[i] = entity as T;
  }
  return out;
}

/**
 * Column types whose value TypeORM's MySQL and SQLite drivers hand over untouched when the column
 * has no transformer (neither `prepareHydratedValue` converts them): the value read is the value
 * kept.
 */
const UNTOUCHED_TYPES = new Set<unknown>(['varchar', 'char', 'text', 'longtext', 'mediumtext', 'integer', 'int']);

/**
 * One row's hydration for these columns, compiled once per entity: an assignment per column
 * instead of TypeORM's `setEntityValue(entity, driver.prepareHydratedValue(value, column))` per
 * column and row (about 45 µs of a list of 20 goals). Each value goes through the driver's own
 * `prepareHydratedValue` unless its type is one the drivers leave untouched (UNTOUCHED_TYPES) or
 * a boolean (true/false, null kept), which are written inline exactly as the drivers convert them.
 * An entity with a column TypeORM writes deeper than one property (embedded, or a virtual relation
 * id) keeps TypeORM's own per-column loop. The generated source holds only property and column
 * names, JSON-quoted. `kept-sql.spec.ts` holds every entity of the application, on both drivers,
 * to TypeORM's result.
 */
export function compileHydrate(metadata: EntityMetadata, columns: readonly Column[]): Hydrate {
  const driver = metadata.connection.driver;
  const flat = columns.every((c) => !c.embeddedMetadata && !(c.isVirtual && c.referencedColumn && c.referencedColumn.propertyName !== c.propertyName));
  const mysql = driver.options.type === 'mysql' || driver.options.type === 'mariadb';
  const sqlite = driver.options.type === 'better-sqlite3';
  if (!flat || metadata.isJunction || !(mysql || sqlite)) {
    return (row, entity) => {
      for (const column of columns) column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    };
  }
  const lines = columns.map((c, i) => {
    const to = `entity[${JSON.stringify(c.propertyName)}]`;
    const from = `row[${JSON.stringify(c.databaseName)}]`;
    if (!c.transformer && UNTOUCHED_TYPES.has(c.type)) return `${to} = ${from};`;
    if (!c.transformer && (c.type === 'boolean' || c.type === Boolean)) return `v = ${from}; ${to} = v === null || v === undefined ? v : v ? true : false;`;
    return `${to} = prepare(${from}, columns[${i}]);`;
  });
  const prepare = (value: unknown, column: Column) => driver.prepareHydratedValue(value, column);
  return new Function('prepare', 'columns', `return function hydrate(row, entity) { let v; ${lines.join(' ')} };`)(prepare, columns) as Hydrate;
}

const COLUMNS = new WeakMap<EntityMetadata, Map<string, EntityMetadata['columns'][number]>>();

/** `metadata.findColumnWithPropertyName`, remembered per entity (TypeORM searches the column list on each call). */
export function columnOf(metadata: EntityMetadata, property: string): EntityMetadata['columns'][number] | undefined {
  let columns = COLUMNS.get(metadata);
  if (!columns) COLUMNS.set(metadata, (columns = new Map()));
  let column = columns.get(property);
  if (column === undefined) {
    column = metadata.findColumnWithPropertyName(property);
    // Only properties that are columns are kept: the map stays as small as the entity.
    if (column) columns.set(property, column);
  }
  return column;
}

/** Per entity: the properties of its columns when every one is a plain property (null: it is not). */
const PLAIN_COLUMNS = new WeakMap<EntityMetadata, readonly string[] | null>();

/**
 * A new entity with `values`' column properties that are not undefined, as TypeORM's
 * `repository.create(values)` makes it, without its per-column `getEntityValue` and
 * `setEntityValue` (about 13 µs a person's insert in a bulk request). Keys that name no column are
 * left out, as TypeORM leaves them. An entity with relations, or a column TypeORM reads or writes
 * deeper than one property (embedded, a relation's id), goes to TypeORM's own `create`.
 * `kept-sql.spec.ts` holds every entity of the application to TypeORM's result.
 */
export function createEntity<T extends ObjectLiteral>(metadata: EntityMetadata, values: Record<string, unknown>, typeorm: () => T): T {
  let properties = PLAIN_COLUMNS.get(metadata);
  if (properties === undefined) {
    const plain =
      metadata.relations.length === 0 &&
      metadata.lazyRelations.length === 0 &&
      metadata.nonVirtualColumns.every((c) => !c.embeddedMetadata && !c.relationMetadata && !c.referencedColumn);
    properties = plain ? metadata.nonVirtualColumns.map((c) => c.propertyName) : null;
    PLAIN_COLUMNS.set(metadata, properties);
  }
  if (!properties) return typeorm();
  const entity = metadata.create() as Record<string, unknown>;
  for (const p of properties) {
    const v = values[p];
    if (v !== undefined) entity[p] = v;
  }
  return entity as T;
}
