import { Column, CreateDateColumn, Entity, ForeignKey, Index, type ObjectType, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Column helpers so every entity maps types the same way on SQLite and MySQL/MariaDB:
 * guids as varchar(36), instants as datetime(3) in UTC, booleans as boolean (tinyint on MySQL).
 */
export const GuidPk = () => PrimaryColumn({ type: 'varchar', length: 36, name: 'id' });
export const IntPk = () => PrimaryGeneratedColumn('increment', { name: 'id' });

export const GuidCol = (name: string, opts: { nullable?: boolean } = {}) => Column({ type: 'varchar', length: 36, name, nullable: opts.nullable ?? false });

export const DateCol = (name: string, opts: { nullable?: boolean } = {}) => Column({ type: 'datetime', precision: 3, name, nullable: opts.nullable ?? true });

export const BoolCol = (name: string, def = false) => Column({ type: 'boolean', name, default: def });

export const StrCol = (name: string, length: number, opts: { nullable?: boolean } = {}) =>
  Column({ type: 'varchar', length, name, nullable: opts.nullable ?? true });

export const TextCol = (name: string, opts: { nullable?: boolean } = {}) => Column({ type: 'text', name, nullable: opts.nullable ?? true });

/**
 * A table with a text column longer than a MySQL `text` holds (an audit row's changes, a stored
 * answer, a file's part) has one class per dialect (src/database/registry.ts): `text` on SQLite,
 * `longtext` on MySQL/MariaDB. The two classes share their table and indexes through one
 * `DialectTable` (so neither can gain an index the other lacks), and declare that column with
 * `LongTextCol` in their dialect's type, the type the table's migration creates it with.
 */
export const DialectTable =
  (name: string, indexes: readonly (readonly [string, readonly string[], { unique?: boolean }?])[]): ClassDecorator =>
  (target) => {
    // In the order decorators written above the class would register them (the lowest first),
    // so the table's metadata lists its indexes as before (list-query-sql.ts takes the first that fits).
    for (const [index, columns, opts] of [...indexes].reverse()) Index(index, [...columns], opts ?? {})(target);
    Entity(name)(target);
  };

export const LongTextCol = (name: string, sqlite: boolean) => Column({ type: sqlite ? 'text' : 'longtext', name, nullable: false });

export const IntCol = (name: string, opts: { nullable?: boolean; default?: number; select?: boolean } = {}) =>
  Column({ type: 'integer', name, nullable: opts.nullable ?? false, default: opts.default, select: opts.select });

export const DecimalCol = (name: string, opts: { nullable?: boolean } = {}) =>
  Column({
    type: 'decimal',
    precision: 18,
    scale: 4,
    name,
    nullable: opts.nullable ?? true,
    transformer: { to: (v: number | null) => v, from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)) },
  });

/**
 * A column holding the id of another table's row, with its foreign key: RESTRICT both ways, so the
 * referenced row cannot be deleted or re-keyed while a row points at it. `@GuidRef(() => DialogEntity,
 * 'fk_tasks_dialog', 'dialog_id')` stands for `@ForeignKey(…)` over `@GuidCol('dialog_id')`.
 */
export const GuidRef = <T>(target: () => ObjectType<T>, fk: string, name: string): PropertyDecorator => references(GuidCol(name), target, fk);

/** The same for an integer id (a period). */
export const IntRef = <T>(target: () => ObjectType<T>, fk: string, name: string): PropertyDecorator => references(IntCol(name), target, fk);

function references<T>(column: PropertyDecorator, target: () => ObjectType<T>, fk: string): PropertyDecorator {
  const key = ForeignKey(target, { name: fk, onDelete: 'RESTRICT', onUpdate: 'RESTRICT' });
  // In the order the stacked decorators applied: the column, then its key.
  return (prototype, property) => {
    column(prototype, property);
    key(prototype, property);
  };
}

/** The row version (docs/architecture.md): set to 1 on insert, bumped by every UPDATE statement. */
export const VersionCol = () => Column({ type: 'integer', name: 'version', nullable: false, default: 1 });

export { CreateDateColumn };
