import type { Compare, Filter } from 'scim2-parse-filter';
import { FilterSyntaxError, parseFilter } from '../../common/query/filter-grammar.js';
import { ScimError } from './scim-protocol.js';

/**
 * SCIM filters (RFC 7644 §3.4.2.2; docs/identity.md, "Filters") as a parameterised SQL condition.
 * The grammar is the API's one filter grammar (src/common/query/filter-grammar.ts); this file says what each attribute of a resource is in SQL
 * (`FilterAttributes`) and refuses, as 400 invalidFilter, what it cannot answer in the database: an
 * unknown attribute, an operator the attribute does not take. The condition is ANDed to a query
 * that is already scoped to the caller's site, so a filter can only narrow it.
 */

/** Binds a value as a named parameter of the statement and answers its placeholder (`:f0`). */
export type Bind = (value: unknown) => string;

/** One attribute: the SQL of `attr op value` (`value` already checked to be a string, number, boolean or null). */
export type FilterAttribute = (op: Compare['op'] | 'pr', value: Compare['compValue'] | undefined, bind: Bind) => string;

/** Attributes by their lower-cased path (`username`, `emails.value`, `name.givenname`). */
export type FilterAttributes = Readonly<Record<string, FilterAttribute>>;

export interface SqlCondition {
  where: string;
  params: Record<string, unknown>;
}

const invalid = (detail: string) => new ScimError(400, 'invalidFilter', detail);

/** `LIKE` with `!` as the escape character (the same on SQLite and MySQL/MariaDB, where `\` is itself an escape in literals). */
export const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/**
 * A text attribute: compared case-insensitively (`LOWER(column)` against the lower-cased value),
 * with eq, ne, co, sw, ew and pr; `normalise` turns the value into the column's form first.
 */
export function textAttribute(column: string, opts: { caseExact?: boolean; normalise?: (v: string) => string } = {}): FilterAttribute {
  const col = opts.caseExact || opts.normalise ? column : `LOWER(${column})`;
  const norm = opts.normalise ?? (opts.caseExact ? (v: string) => v : (v: string) => v.toLowerCase());
  return (op, value, bind) => {
    if (op === 'pr') return `(${column} IS NOT NULL AND ${column} <> '')`;
    if (typeof value !== 'string') {
      if (value === null && (op === 'eq' || op === 'ne')) return op === 'eq' ? `${column} IS NULL` : `${column} IS NOT NULL`;
      throw invalid(`${op} on a text attribute takes a quoted string`);
    }
    const v = norm(value);
    switch (op) {
      case 'eq':
        return `${col} = ${bind(v)}`;
      case 'ne':
        return `(${column} IS NULL OR ${col} <> ${bind(v)})`;
      case 'co':
        return `${col} LIKE ${bind(`%${likeEscape(v)}%`)} ESCAPE '!'`;
      case 'sw':
        return `${col} LIKE ${bind(`${likeEscape(v)}%`)} ESCAPE '!'`;
      case 'ew':
        return `${col} LIKE ${bind(`%${likeEscape(v)}`)} ESCAPE '!'`;
      default:
        throw invalid(`The operator ${op} is not supported on this attribute (use eq, ne, co, sw, ew or pr)`);
    }
  };
}

/** A boolean attribute (eq, ne, pr), also given as the strings "true" / "false" as some clients send. */
export function booleanAttribute(column: string): FilterAttribute {
  return (op, value) => {
    if (op === 'pr') return '1 = 1';
    const b = typeof value === 'string' ? { true: true, false: false }[value.toLowerCase()] : value;
    if (typeof b !== 'boolean' || (op !== 'eq' && op !== 'ne')) throw invalid('A boolean attribute takes eq or ne with true or false');
    return `${column} = ${(op === 'eq') === b ? 1 : 0}`;
  };
}

/** A boolean that is true where `column` is set (`emails[primary eq true]`: the one address kept is the primary one). */
export function presenceAttribute(column: string): FilterAttribute {
  return (op, value) => {
    if (op === 'pr') return `${column} IS NOT NULL`;
    const b = typeof value === 'string' ? { true: true, false: false }[value.toLowerCase()] : value;
    if (typeof b !== 'boolean' || (op !== 'eq' && op !== 'ne')) throw invalid('A boolean attribute takes eq or ne with true or false');
    return (op === 'eq') === b ? `${column} IS NOT NULL` : `${column} IS NULL`;
  };
}

/** An attribute that is true of every row (pr) and compared with eq only, through `sql(placeholder)`. */
export function equalityAttribute(sql: (placeholder: string) => string, normalise: (v: string) => string = (v) => v): FilterAttribute {
  return (op, value, bind) => {
    if (op === 'pr') return '1 = 1';
    if (op !== 'eq' || typeof value !== 'string') throw invalid('This attribute takes eq with a quoted string only');
    return sql(bind(normalise(value)));
  };
}

/** Attribute paths are case-insensitive and may carry their schema URN (`urn:…:User:userName`). */
function attributeKey(path: string, schemaUrns: readonly string[]): string {
  let p = path;
  for (const urn of schemaUrns) if (p.toLowerCase().startsWith(`${urn.toLowerCase()}:`)) p = p.slice(urn.length + 1);
  return p.toLowerCase();
}

/**
 * The SQL condition of a filter over `attributes`, with its parameters. Throws 400 invalidFilter
 * on a filter that does not parse, an unknown attribute or an operator it does not take.
 */
export function compileFilter(filter: string, attributes: FilterAttributes, schemaUrns: readonly string[] = []): SqlCondition {
  let ast: Filter;
  try {
    ast = parseFilter(filter);
  } catch (e) {
    if (e instanceof FilterSyntaxError) throw invalid(e.message);
    throw e;
  }
  const params: Record<string, unknown> = {};
  const bind: Bind = (value) => {
    const name = `f${Object.keys(params).length}`;
    params[name] = value;
    return `:${name}`;
  };
  const attribute = (path: string): FilterAttribute => {
    const found = attributes[attributeKey(path, schemaUrns)];
    if (!found) throw invalid(`Filtering on ${path} is not supported (supported: ${Object.keys(attributes).join(', ')})`);
    return found;
  };
  const walk = (node: Filter, prefix: string): string => {
    switch (node.op) {
      case 'and':
      case 'or':
        return `(${node.filters.map((f) => walk(f, prefix)).join(node.op === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        // Never NULL inside NOT: a comparison with a NULL column counts as false.
        return `(NOT COALESCE((${walk(node.filter, prefix)}), 0))`;
      case '[]':
        // emails[type eq "work" and value co "@example.com"]: the inner paths are sub-attributes.
        return walk(node.valFilter, `${prefix}${node.attrPath}.`);
      case 'pr':
        return attribute(prefix + node.attrPath)('pr', undefined, bind);
      default:
        return attribute(prefix + node.attrPath)(node.op, node.compValue, bind);
    }
  };
  return { where: walk(ast, ''), params };
}
