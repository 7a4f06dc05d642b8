import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { RequestContext } from '../../common/context/request-context.js';
import type { BulkItemInput } from '../../http/wire/bulk.js';
import { inputFields, wireFields } from '../../http/wire/wire.js';
import type { BulkOptions, BulkRun } from '../bulk-write.js';

/**
 * The collections that write batches (docs/bulk.md): a feature declares on its service, with
 * `@DeclaresBulkWrites`, the collection its bulk route serves and how a batch of items is applied
 * (its `applyBatch`, ctx first), and this registry collects the declarations at start-up, so a
 * writer of batches that is no route — a file import — finds the resource by its collection
 * without a shared list.
 */
export interface BulkWriter {
  /** The collection: `POST /v4/{path}/bulk`. */
  path: string;
  /** Applies the items as the bulk route does, and answers their outcomes in the order given. */
  apply(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun>;
  /** The member names a Record may carry (its inputs' and its answer's fields): what a file's columns are held to. */
  fields: ReadonlySet<string>;
}

export interface BulkWriterDeclaration<S> {
  path: string;
  /** The single writes' input classes and the record's answer class, whose fields a Record may name (a file import's columns). */
  records: readonly Function[];
  apply(service: S, ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun>;
}

const DECLARATIONS = 'pms:bulk-writers';

/** Declares the bulk writes of the decorated service. */
export function DeclaresBulkWrites<S>(declaration: BulkWriterDeclaration<S>): ClassDecorator {
  return (target) => {
    const known = (Reflect.getMetadata(DECLARATIONS, target) as BulkWriterDeclaration<S>[] | undefined) ?? [];
    Reflect.defineMetadata(DECLARATIONS, [declaration, ...known], target);
  };
}

/** The bulk writers of every provider of the app, collected once, on first use. */
@Injectable()
export class BulkWriters {
  private byPath: Map<string, BulkWriter> | null = null;

  constructor(private readonly discovery: DiscoveryService) {}

  /** Every collection that writes batches, sorted. */
  paths(): string[] {
    return [...this.table().keys()].sort();
  }

  ofPath(path: string): BulkWriter | undefined {
    return this.table().get(path);
  }

  private table(): Map<string, BulkWriter> {
    if (this.byPath) return this.byPath;
    const byPath = new Map<string, BulkWriter>();
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype as Function | null;
      if (!type || !wrapper.instance) continue;
      const service = wrapper.instance;
      for (const d of (Reflect.getMetadata(DECLARATIONS, type) as BulkWriterDeclaration<unknown>[] | undefined) ?? []) {
        if (byPath.has(d.path)) throw new Error(`bulk writes of ${d.path} declared twice`);
        const fields = new Set(d.records.flatMap((c) => [...inputFields(c), ...wireFields(c)].map((f) => f.name)));
        byPath.set(d.path, { path: d.path, fields, apply: (ctx, items, opts) => d.apply(service, ctx, items, opts) });
      }
    }
    this.byPath = byPath;
    return byPath;
  }
}
