import type { Type } from '@nestjs/common';
import { ArrayMaxSize } from 'class-validator';
import type { ProblemDetails } from '../../common/errors/errors.js';
import { LIMITS } from '../../common/limits.js';
import { BODY_LIMITS, type BodyLimits } from './body-limits.js';
import { field, resource } from './resource.js';
import { InputField, WireInputOf } from './wire.js';

/**
 * The wire shapes of bulk writes (docs/bulk.md): `POST /v4/{collection}/bulk` takes
 * `{ Items: [{ Op, Record, ExternalRefs, IfMatch }] }` (XML `BulkRequestOf{Type}` with `Items` holding
 * `BulkItemOf{Type}` elements) and answers `BulkResults`, one `BulkResult` per item in the order
 * sent. Each resource that offers a bulk route builds its request class with `bulkRequestOf`; the
 * answer is the same for all.
 */

/** At most this many items in one request. */
export const MAX_BULK_ITEMS = 1_000;
/** The body limit of a bulk route (other routes: 1 MiB). */
export const BULK_BODY_BYTES = 16 * 1024 * 1024;
/**
 * The scan limits of a bulk body (body-limits.ts): room for 1,000 items of a few dozen members
 * each; an `Items` list longer than MAX_BULK_ITEMS still parses, so its 400 names the limit.
 */
export const BULK_BODY_LIMITS: BodyLimits = { ...BODY_LIMITS, membersPerObject: 2 * MAX_BULK_ITEMS, totalMembers: 200_000 };

/** The paths (`/v4/individuals/bulk`) of the bulk routes, registered by their route decorator: the body parser gives them BULK_BODY_BYTES. */
const bulkPaths = new Set<string>();
export function registerBulkPath(path: string): void {
  bulkPaths.add(path);
}
export function isBulkPath(path: string): boolean {
  return bulkPaths.has(path);
}

/** The metadata key a bulk route's handler carries (its request budget cost is its items: docs/limits.md). */
export const BULK_ROUTE_KEY = 'pms:bulk-route';

/**
 * What a bulk request costs of the request budgets: one per item it holds (at least one, at most
 * MAX_BULK_ITEMS), read off the parsed body before it is validated. `Items` is a JSON array, or in
 * XML an element holding the items.
 */
export function bulkItemCount(body: unknown): number {
  const items = (body as { Items?: unknown } | null | undefined)?.Items;
  let n = 1;
  if (Array.isArray(items)) n = items.length;
  else if (items && typeof items === 'object') {
    const lists = Object.values(items).filter(Array.isArray);
    n = lists.length === 1 ? (lists[0] as unknown[]).length : Object.keys(items).length;
  }
  return Math.min(MAX_BULK_ITEMS, Math.max(1, n));
}

export const BULK_OPS = ['create', 'update', 'upsert'] as const;
export type BulkOp = (typeof BULK_OPS)[number];

/** One item of a request, as validated. */
export interface BulkItemInput {
  Op: BulkOp;
  Record: Record<string, unknown>;
  /** A reference field → the ExternalID of the record it names (instead of its ID). */
  ExternalRefs?: Record<string, string | null | undefined> | null;
  /**
   * The item's precondition, as the single PUT's If-Match header (an ETag the record's GET
   * answered): checked by the Batch (src/database/bulk-write.ts); absent, null or blank: none.
   */
  IfMatch?: string | null;
}

export interface BulkRequest {
  Items: BulkItemInput[];
}

/** `atomic`: the query of every bulk route. */
export class BulkQuery {
  @InputField('bool', {
    description: 'true: all items are written or none (one transaction); default false: each item commits or fails on its own.',
  })
  atomic?: boolean;
}

function namedClass(name: string): Type<object> {
  // A named class: Swagger and the XML Schema take type names from class names.
  const holder = { [name]: class {} };
  return holder[name] as Type<object>;
}

/** What the document says of a bulk item's IfMatch (docs/bulk.md, "Preconditions"). */
const IF_MATCH_DOC =
  'The single PUT’s If-Match for this item: the ETag the record’s GET or PUT answered (`"3-AbC…"`; several, comma-separated; `W/` ignored; `*` is no condition). ' +
  'An update (or an upsert of a record that exists) is written only when the record’s current ETag is one of them, else the item is 412 and nothing of it is written; ' +
  'a create, or an upsert that creates, with a tag other than `*` is 412 (no record can match it); an update of a record that does not exist stays 404. ' +
  'Not an entity tag (no quotes): the item’s 400. Absent, null or blank: no condition.';
const IF_MATCH_REFUSED_DOC =
  'Not taken: these records have no ETag of their own and their single write takes no If-Match; an item that gives one (even `*`) is its 400. Absent, null or blank: fine.';

const OP_DOC =
  'create: the single POST; update: the single PUT of the record the Record’s ID names, else its ExternalID (404 when none); upsert: update when such a record exists, else create.';

/**
 * The request class of one resource's bulk route: `BulkRequestOf{name}`, its items
 * `BulkItemOf{name}` and, when the resource has reference fields that may name a record by its
 * ExternalID, `BulkRefsOf{name}` with one member per such field.
 */
export function bulkRequestOf(
  name: string,
  input: {
    create: string;
    update: string;
    refs: readonly string[];
    /** false for records without an ETag of their own, whose single write takes no If-Match (the plan's `conditional`). */
    ifMatch?: boolean;
  },
): Type<BulkRequest> {
  const Item = namedClass(`BulkItemOf${name}`);
  InputField('string', { required: true, enum: BULK_OPS, description: OP_DOC })(Item.prototype, 'Op');
  InputField('object', {
    required: true,
    opaque: true,
    description: `The record, as the single write takes it: ${input.create} for create (and an upsert that creates), ${input.update} for update. Validated, authorized and written by the single write’s own path.`,
  })(Item.prototype, 'Record');
  // Only its type here: what it holds is the item's own 400 (the Batch reads it), not the request's.
  InputField('string', input.ifMatch === false ? { description: IF_MATCH_REFUSED_DOC } : { description: IF_MATCH_DOC, example: '"3-q1w2e3r4t5y6u7i8o9p0a1"' })(
    Item.prototype,
    'IfMatch',
  );
  if (input.refs.length) {
    const Refs = namedClass(`BulkRefsOf${name}`);
    for (const ref of input.refs) {
      InputField('string', {
        max: LIMITS.name,
        description: `The ExternalID of the record ${ref} names, instead of its ID (400 when the site has none); it may be created by another item of the same request.`,
      })(Refs.prototype, ref);
    }
    InputField('object', {
      nested: () => Refs,
      description: 'Reference fields of the Record given by the ExternalID of the record they name.',
    })(Item.prototype, 'ExternalRefs');
  }
  const Request = namedClass(`BulkRequestOf${name}`);
  InputField('array', {
    required: true,
    nested: () => Item,
    description: `The items, at most ${MAX_BULK_ITEMS}; answered in this order.`,
  })(Request.prototype, 'Items');
  ArrayMaxSize(MAX_BULK_ITEMS, { message: `Items holds at most ${MAX_BULK_ITEMS} items; send the rest in another request` })(Request.prototype, 'Items');
  WireInputOf(`BulkRequestOf${name}`)(Request);
  return Request as Type<BulkRequest>;
}

// ---------------------------------------------------------------------------------------------
// The answer
// ---------------------------------------------------------------------------------------------

/** What one item came to. */
export interface BulkOutcome {
  index: number;
  status: number;
  id: string | null;
  problem: ProblemDetails | null;
  /** Set when the item failed only because an ExternalRefs names an ExternalID no record has yet (not on the wire: an import tries the row again later). */
  waiting?: true;
}

const ItemProblemError = resource<{ field: string; message: string }>()('ItemProblemError', {
  fields: {
    field: field.string('RO', { description: 'The field, as the single write names it.' }),
    message: field.string('RO'),
  },
});

/** A failed item's problem document, as the single write would have answered it (RFC 9457; docs/http-and-xml.md). */
const ItemProblem = resource<ProblemDetails>()('ItemProblem', {
  fields: {
    type: field.string('RO', { description: 'The problem type, urn:pms:problem:<code>.' }),
    title: field.string('RO'),
    status: field.int('RO'),
    detail: field.string('RO', { nullable: true }),
    errors: field.array('RO', { nullable: true, nested: () => ItemProblemError.Response, description: 'Every failing field (400).' }),
  },
});

const BulkResult = resource<BulkOutcome>()('BulkResult', {
  fields: {
    Index: field.int('RO', { column: 'index', description: 'The item’s position in Items, from 0.' }),
    Status: field.int('RO', {
      column: 'status',
      description:
        'The status the single write would have answered: 200 written (or unchanged), 400, 403, 404, 409, 412…; 424 when atomic and another item failed (nothing was written).',
    }),
    ID: field.string('RO', { column: 'id', nullable: true, description: 'The record’s ID (written, or found); null when none.' }),
    Problem: field.object('RO', { nullable: true, nested: () => ItemProblem.Response, description: 'Why the item failed; null when it was written.' }),
  },
});

interface BulkResultsRow {
  atomic: boolean;
  committed: boolean;
  outcomes: BulkOutcome[];
}

const BulkResults = resource<BulkResultsRow>()('BulkResults', {
  fields: {
    Atomic: field.bool('RO', { column: 'atomic', description: 'The request asked for all or nothing (atomic=true).' }),
    Committed: field.bool('RO', {
      column: 'committed',
      description: 'Atomic: whether the items were written (all of them); otherwise whether at least one item was written.',
    }),
    Succeeded: field.int('RO', { from: (r: BulkResultsRow) => r.outcomes.filter((o) => o.status < 300).length, description: 'Items written (or unchanged).' }),
    Failed: field.int('RO', { from: (r: BulkResultsRow) => r.outcomes.filter((o) => o.status >= 300).length, description: 'Items not written.' }),
    Results: field.array('RO', { nested: () => BulkResult.Response, from: () => [], description: 'One result per item, in the order sent.' }),
  },
});

export const BulkResultsDto = BulkResults.Response;
export type BulkResultsDto = InstanceType<typeof BulkResultsDto>;

/** The answer of a bulk route. */
export function bulkAnswer(outcomes: BulkOutcome[], atomic: boolean, committed: boolean): BulkResultsDto {
  const out = BulkResults.toWire({ atomic, committed, outcomes }) as BulkResultsDto & { Results: unknown[] };
  out.Results = outcomes.map((o) =>
    BulkResult.toWire({
      ...o,
      problem: o.problem
        ? (ItemProblem.toWire({ ...o.problem, errors: o.problem.errors?.map((e) => ItemProblemError.toWire(e)) ?? null } as never) as never)
        : null,
    }),
  );
  return out;
}
