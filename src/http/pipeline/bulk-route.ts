import { applyDecorators, Post, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiBodyTypes, ApiResult } from '../wire/wire.js';
import { BULK_ROUTE_KEY, BulkResultsDto, MAX_BULK_ITEMS, registerBulkPath } from '../wire/bulk.js';
import { IdempotentWrite } from './route-stages.js';
import type { AccessRule, RouteDoc } from './routes.js';

/** The rules every bulk route shares, at the head of its description (docs/bulk.md). */
export const BULK_RULES =
  `Up to ${MAX_BULK_ITEMS} items (a body of at most 16 MiB), in JSON or XML; each a create, an update or an upsert (by the Record's ID, else its ExternalID), ` +
  'written by the single write’s own path — the same validation, authorization, audit trail, webhooks, dashboard summaries — and answered with one result per item, in the order sent: ' +
  'its index, the status the single write would have answered, the record’s ID and, when it failed, its problem document. The request itself answers 200 whenever it was read; ' +
  '400 when its shape is wrong (not an object with Items, an unknown Op, more than 1,000 items). ' +
  'atomic=true writes all items or none (Committed false, the failed items with their problems, the others 424); otherwise each item commits or fails on its own. ' +
  'Items may refer to records other items create (by ExternalRefs or by the ID an item gives): they are written in an order that creates what is referred to first. ' +
  'An item’s IfMatch is the single PUT’s If-Match for it (an ETag its GET answered): another version is the item’s 412, nothing of it written; the request’s own If-Match header is not read. ' +
  'An update that would change nothing writes nothing (no audit row, no webhook). An Idempotency-Key covers the whole request. Each item spends one request of the request budgets (docs/limits.md).';

/**
 * `POST /v4/{collection}/bulk` of a resource: the access rule of the least the single writes need
 * (each item is then authorized as its single write is), its path registered for the larger body
 * limit, the idempotency stage, the OpenAPI operation and the answer (BulkResults).
 */
export function BulkRoute(access: AccessRule, path: string, doc: RouteDoc): MethodDecorator {
  registerBulkPath(`/v4/${path}`);
  return applyDecorators(
    // Its items each spend one request of the caller's and the site's budgets (docs/limits.md).
    SetMetadata(BULK_ROUTE_KEY, true),
    IdempotentWrite(),
    ApiResult(BulkResultsDto),
    ApiBodyTypes(),
    ApiOperation({ summary: doc.summary, description: [BULK_RULES, doc.description].filter(Boolean).join(' ') }),
    access(),
    Post(path),
  );
}
