import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AccessRule } from '../../auth/access.decorators.js';
import type { RequestContext } from '../../common/context/request-context.js';

/**
 * The kinds of record the audit trail names, each with its history route, its delta sync route
 * and the payload of its webhook events (docs/audit.md, docs/delta-sync.md, docs/events.md). A
 * feature declares its kinds on its service with `@DeclaresRecordKind` — the collection path, the
 * trail's kind, the access rule of the record's own GET and how one record is read as that GET
 * answers it — and this registry collects every declaration at start-up (Nest's
 * DiscoveryService), so no shared file lists resources (docs/architecture.md, "A feature declares
 * itself").
 */
export interface RecordKind {
  /** The path segment of its collection: `GET /v4/{path}/{id}/history`, `GET /v4/sync/{path}`. */
  path: string;
  /** The kind the audit trail names its changes by (src/database/journal.ts `kindOf`). */
  kind: string;
  /** Integer ids (goals, colors, periods, commitments); guids otherwise. */
  intId: boolean;
  /** The access rule of the record's own GET: a caller who does not meet it reads none of the kind's history or changes. */
  access: AccessRule;
  /** The record as its GET answers it for this caller: 404 when it is not of the site, 403 when the caller may not read it. */
  read(ctx: RequestContext, id: string): Promise<object>;
  /** False: webhook payloads carry no `Record` of this kind (a webhook's own record holds its signing secret). */
  inEvents?: false;
  /**
   * A credential or its configuration (API tokens, identity providers, webhooks): its history is
   * for administrators, but delta sync does not serve the collection (docs/security.md, "Secrets").
   */
  credential?: true;
  /** Which of the records its GET answers the collection lists (`/departments/{id}` reads organizations too; its list does not). */
  listed?: (record: object) => boolean;
}

/** A kind as a service declares it: `read` (and `renderEvents`) called on the service instance. */
export interface RecordKindDeclaration<S> extends Omit<RecordKind, 'read' | 'intId'> {
  intId?: boolean;
  read(service: S, ctx: RequestContext, id: string): Promise<object>;
  /**
   * How the events of its trail kind are rendered, when several collections share the kind and
   * none of their reads fits every record (the four list item collections: any item's own GET).
   * Otherwise the first declaration of a kind renders its events.
   */
  renderEvents?(service: S, ctx: RequestContext, id: string): Promise<object>;
}

const DECLARATIONS = 'pms:record-kinds';

/** Declares a record kind of the decorated service; stacked, the declarations keep their order top to bottom. */
export function DeclaresRecordKind<S>(declaration: RecordKindDeclaration<S>): ClassDecorator {
  return (target) => {
    const known = (Reflect.getMetadata(DECLARATIONS, target) as RecordKindDeclaration<S>[] | undefined) ?? [];
    // Decorators apply bottom-up: put each in front so the list reads as the source does.
    Reflect.defineMetadata(DECLARATIONS, [declaration, ...known], target);
  };
}

/** The declarations of a class (for the OpenAPI document: paths only, no instance needed). */
export function declaredRecordKinds(type: Function): readonly RecordKindDeclaration<unknown>[] {
  return (Reflect.getMetadata(DECLARATIONS, type) as RecordKindDeclaration<unknown>[] | undefined) ?? [];
}

/** The kinds of every provider of the app, collected once, on first use. */
@Injectable()
export class RecordKinds {
  private byPath: Map<string, RecordKind> | null = null;
  private byKind = new Map<string, RecordKind>();

  constructor(private readonly discovery: DiscoveryService) {}

  /** Every collection path with a history, sorted (the OpenAPI enum of the history route). */
  paths(): string[] {
    return [...this.table().keys()].sort();
  }

  /** The collections delta sync serves (not the credentials), sorted (the OpenAPI enum of the sync route). */
  syncPaths(): string[] {
    return [...this.table().values()]
      .filter((k) => !k.credential)
      .map((k) => k.path)
      .sort();
  }

  ofPath(path: string): RecordKind | undefined {
    return this.table().get(path);
  }

  /** The kind that renders the events of a trail kind (undefined: payloads carry no record). */
  ofKind(kind: string): RecordKind | undefined {
    this.table();
    const k = this.byKind.get(kind);
    return k?.inEvents === false ? undefined : k;
  }

  private table(): Map<string, RecordKind> {
    if (this.byPath) return this.byPath;
    const byPath = new Map<string, RecordKind>();
    const renderers = new Map<string, RecordKind>();
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype as Function | null;
      if (!type || !wrapper.instance) continue;
      for (const d of declaredRecordKinds(type)) {
        if (byPath.has(d.path)) throw new Error(`record kind ${d.path} declared twice`);
        const service = wrapper.instance;
        const { renderEvents, ...rest } = d;
        const k: RecordKind = { ...rest, intId: d.intId ?? false, read: (ctx, id) => d.read(service, ctx, id) };
        byPath.set(d.path, k);
        if (renderEvents) renderers.set(d.kind, { ...k, read: (ctx, id) => renderEvents(service, ctx, id) });
        else if (!this.byKind.has(d.kind)) this.byKind.set(d.kind, k);
      }
    }
    for (const [kind, k] of renderers) this.byKind.set(kind, k);
    this.byPath = byPath;
    return byPath;
  }
}
