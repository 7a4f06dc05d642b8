import { type Filter, parse } from 'scim2-parse-filter';

/**
 * The one filter grammar of the API (docs/queries.md): SCIM's (RFC 7644 §3.4.2.2), read by
 * scim2-parse-filter, for `/scim/v2` and for `filter=` on every list. This file knows the grammar
 * only — neither HTTP nor a table: what an attribute means is said by whoever compiles the tree
 * (SCIM's attributes, src/modules/scim/scim-filter.ts; a list's declared fields,
 * src/database/list-query-sql.ts).
 */

export type { Filter as FilterNode } from 'scim2-parse-filter';

/** The comparison operators of the grammar. */
export const COMPARISONS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** The longest filter read: SCIM clients send a few dozen characters, integrators a few hundred. */
export const MAX_FILTER_LENGTH = 2000;
/** The most comparisons one filter may hold (each one an index condition the database evaluates). */
export const MAX_FILTER_TERMS = 16;

/** A filter the grammar cannot read; `message` says where, naming the operator or token. */
export class FilterSyntaxError extends Error {}

/** The tree of a filter; throws FilterSyntaxError on text it cannot read or over the bounds. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw new FilterSyntaxError(`The filter is longer than ${MAX_FILTER_LENGTH} characters`);
  let tree: Filter;
  try {
    tree = parse(text);
  } catch (e) {
    throw new FilterSyntaxError(readable((e as Error).message));
  }
  const terms = countTerms(tree);
  if (terms > MAX_FILTER_TERMS) throw new FilterSyntaxError(`The filter has ${terms} comparisons; at most ${MAX_FILTER_TERMS} are taken`);
  return tree;
}

function countTerms(node: Filter): number {
  switch (node.op) {
    case 'and':
    case 'or':
      return node.filters.reduce((n, f) => n + countTerms(f), 0);
    case 'not':
      return countTerms(node.filter);
    case '[]':
      return countTerms(node.valFilter);
    default:
      return 1;
  }
}

/** The parser's message, with an unknown operator named as such. */
function readable(message: string): string {
  const op = /Unexpected token (\S+) (\S+) as valFilter operator/.exec(message);
  if (op) return `Unknown operator ${op[2]} after ${op[1]} (operators: ${COMPARISONS.join(', ')}, pr; joined with and, or, not and parentheses)`;
  return `The filter cannot be read: ${message}`;
}
