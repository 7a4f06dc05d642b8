import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import type { Observable } from 'rxjs';

/**
 * The stages some routes run around their handler (docs/architecture.md, "How a request runs"):
 *
 * - `idempotent-write`: every POST, PUT and PATCH of an authenticated caller (the write routes'
 *   decorators, routes.ts): safe retries with `Idempotency-Key` (docs/idempotency.md);
 * - `delta-list`: every list that declares its changes (ListRoute): the answer to `updatedSince`
 *   (docs/delta-sync.md).
 *
 * A route names its stages in its decorator and runs only those; a read by id runs none, so it
 * pays for no Observable pipeline at all (Nest builds one per request for a route with any
 * interceptor). What each stage does lives on the floor that owns it (the data layer, the audit
 * feature), which provides it here at start-up: this floor never imports them.
 */
export type StageName = 'idempotent-write' | 'delta-list';

@Injectable()
export class RouteStages {
  private readonly stages = new Map<StageName, NestInterceptor>();

  /** Called once by the provider of a stage when it is created. */
  provide(name: StageName, stage: NestInterceptor): void {
    if (this.stages.has(name)) throw new Error(`route stage ${name} is provided twice`);
    this.stages.set(name, stage);
  }

  get(name: StageName): NestInterceptor {
    const stage = this.stages.get(name);
    if (!stage) throw new Error(`route stage ${name} is not provided: its module is missing from the application`);
    return stage;
  }

  has(name: StageName): boolean {
    return this.stages.has(name);
  }
}

/** The interceptor a write route carries: the idempotency stage as provided, found when the request runs. */
@Injectable()
export class IdempotentWriteStage implements NestInterceptor {
  constructor(private readonly stages: RouteStages) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    return this.stages.get('idempotent-write').intercept(context, next);
  }
}

/** The interceptor a list route carries: the delta-list stage as provided, found when the request runs. */
@Injectable()
export class DeltaListStage implements NestInterceptor {
  constructor(private readonly stages: RouteStages) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    return this.stages.get('delta-list').intercept(context, next);
  }
}

/** A write route's stage: safe retries with Idempotency-Key. */
export const IdempotentWrite = (): MethodDecorator => UseInterceptors(IdempotentWriteStage);

/** A list route's stage: its changes when asked with updatedSince. */
export const AnswersDeltas = (): MethodDecorator => UseInterceptors(DeltaListStage);

/** The stages a route handler carries, by name (the route-permission snapshot test lists them). */
export function stagesOf(handler: Function): StageName[] {
  const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
  return interceptors.flatMap((i) => (i === IdempotentWriteStage ? ['idempotent-write' as const] : i === DeltaListStage ? ['delta-list' as const] : []));
}
