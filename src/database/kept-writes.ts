import type { EntityMetadata, ObjectLiteral, QueryRunner } from 'typeorm';
import { conditionsOf, MAX_SHAPES, predicatesOf } from './kept-sql.js';

/**
 * The INSERT and UPDATE statements every write makes, kept per entity and shape (docs/performance.md,
 * "Kept statements"), and the subscriber events TypeORM would have sent for them.
 */
const INSERTS = new WeakMap<EntityMetadata, Map<string, string>>();
const UPDATES = new WeakMap<EntityMetadata, Map<string, string>>();

/** A value a kept write binds as it is: no SQL expression (a function), no find operator, no plain object. */
function isBindable(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date || Buffer.isBuffer(v);
}

function kept(cache: WeakMap<EntityMetadata, Map<string, string>>, metadata: EntityMetadata, shape: string, build: () => string): string {
  let shapes = cache.get(metadata);
  if (!shapes) cache.set(metadata, (shapes = new Map()));
  let sql = shapes.get(shape);
  if (sql === undefined) {
    sql = build();
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(shape, sql);
  }
  return sql;
}

/**
 * `INSERT INTO t (<the columns the entity sets>) VALUES (?, …)` and its values, converted as
 * TypeORM converts them (`preparePersistentValue`), kept per entity and set of columns; null
 * when a value is not a plain one (TypeORM's query builder then writes it).
 */
export function keptInsert(metadata: EntityMetadata, entity: ObjectLiteral): { sql: string; params: unknown[] } | null {
  const driver = metadata.connection.driver;
  const all = metadata.columns;
  let set = 0;
  for (let i = 0; i < all.length; i++) if (entity[all[i].propertyName] !== undefined) set++;
  // Most inserts set every column (fillDefaults gives the unset ones theirs): then the shape is
  // `*`, a name no column has, without filtering the columns and joining their names per row.
  const every = set === all.length;
  const columns = every ? all : all.filter((c) => entity[c.propertyName] !== undefined);
  const params: unknown[] = [];
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i];
    if (c.relationMetadata || c.embeddedMetadata) return null;
    const value = entity[c.propertyName] as unknown;
    if (!isBindable(value)) return null;
    params.push(driver.preparePersistentValue(value, c));
  }
  const shape = every ? '*' : columns.map((c) => c.databaseName).join(',');
  const sql = kept(INSERTS, metadata, shape, () => {
    const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
    return `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES (${columns.map(() => '?').join(', ')})`;
  });
  return { sql, params };
}

/**
 * Gives the columns an insert leaves unset their defaults (or null) as the database will, so the
 * row written is known without reading it back (a column whose default is an SQL expression is
 * left unset).
 */
export function fillDefaults(metadata: EntityMetadata, row: ObjectLiteral): void {
  for (const col of metadata.columns) {
    if (col.isGenerated || row[col.propertyName] !== undefined) continue;
    if (col.default !== undefined && col.default !== null && typeof col.default !== 'function') row[col.propertyName] = typedDefault(col.type, col.default);
    else if (col.isNullable) row[col.propertyName] = null;
  }
}

/** A column default as the entity holds it: drivers keep boolean defaults as 0/1 in metadata. */
function typedDefault(type: unknown, value: unknown): unknown {
  if (type === 'boolean' || type === Boolean) return value === true || value === 1 || value === '1' || value === 'true';
  if (type === 'integer' || type === 'int' || type === Number) return Number(value);
  return value;
}

/**
 * `UPDATE t SET <columns> = ?, …, version = version + 1 WHERE <conditions>` and its values: the
 * set values converted as TypeORM converts them, the conditions equality or `In` on columns (the
 * site among them). Null when a value or a condition is not a plain one.
 */
export function keptUpdate(metadata: EntityMetadata, set: Record<string, unknown>, where: Record<string, unknown>): { sql: string; params: unknown[] } | null {
  const driver = metadata.connection.driver;
  const setColumns: string[] = [];
  const params: unknown[] = [];
  for (const [property, value] of Object.entries(set)) {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column || column.relationMetadata || column.embeddedMetadata || !isBindable(value)) return null;
    setColumns.push(column.databaseName);
    params.push(driver.preparePersistentValue(value, column));
  }
  const conditions = conditionsOf(metadata, where, params, true);
  if (!conditions) return null;
  if (!conditions.some((c) => c.column === 'site_id')) return null;
  const shape = `${setColumns.join(',')}|${conditions.map((c) => `${c.column}:${c.kind}${c.size}`).join(',')}`;
  const sql = kept(UPDATES, metadata, shape, () => {
    const q = (name: string) => driver.escape(name);
    const assignments = [...setColumns.map((c) => `${q(c)} = ?`), `${q('version')} = ${q('version')} + 1`];
    return `UPDATE ${q(metadata.tableName)} SET ${assignments.join(', ')} WHERE ${predicatesOf(q, conditions).join(' AND ')}`;
  });
  return { sql, params };
}

/**
 * Tells the data source's subscribers of a kept write, as TypeORM's query builder would have
 * (`afterInsert`/`afterUpdate`): the caller cache, for one, listens for writes to the tables that
 * decide who a caller is (src/database/caches/caller-cache.ts).
 */
export async function announceWrite(
  event: 'afterInsert' | 'afterUpdate',
  metadata: EntityMetadata,
  queryRunner: QueryRunner,
  entity?: ObjectLiteral,
): Promise<void> {
  const connection = metadata.connection;
  for (const subscriber of connection.subscribers) {
    const listener = subscriber[event] as ((e: unknown) => unknown) | undefined;
    if (!listener) continue;
    const target = subscriber.listenTo?.() as unknown;
    if (
      target &&
      target !== metadata.target &&
      !(typeof metadata.target === 'function' && metadata.target.prototype instanceof (target as { new (): unknown }))
    )
      continue;
    await listener.call(subscriber, { connection, queryRunner, manager: queryRunner.manager, entity, metadata });
  }
}
