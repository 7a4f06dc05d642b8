import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { IdempotencyStore, StoredKey } from '../../database/idempotency-store.js';
import { TenantDb } from '../../database/tenant-db.js';
import { CONTEXT_KEY, RequestContext } from '../../common/context/request-context.js';
import { ConflictError } from '../../common/errors/errors.js';
import { IDEMPOTENCY_REPLAYED_HEADER, parseIdempotencyKey, requestFingerprint, sha256Hex } from '../../http/pipeline/idempotency.js';
import { isRevivable, reviveAnswer, storeAnswer } from '../../http/pipeline/stored-answer.js';
import { WIRE_RESULT, WireResultMeta } from '../../http/wire/wire.js';
import { RouteStages, type Stage, type StageRequest } from '../../http/pipeline/route-stages.js';

interface KeyedRequest {
  keyHash: string;
  fingerprint: string;
  /** `POST /v4/goals`: named in the 409 of a key reused for another request. */
  request: string;
  /** The route's success status. */
  status: number;
  meta: WireResultMeta | undefined;
}

/** The status of a claimed key's row until the write's answer is stored with it. */
const UNANSWERED = 0;

interface Outcome {
  value: unknown;
  replayed: boolean;
}

/**
 * Safe retries of writes (docs/idempotency.md). A POST, PUT or PATCH of an authenticated caller that
 * carries `Idempotency-Key` runs in one request-level transaction: the key is looked up, claimed,
 * the route's method runs (its own transactions join this one), and the answer is stored with the key
 * before the single commit. So the key exists exactly when the write does, and a retry with the
 * same key and request replays the stored answer — written by the adapter's reply, in the
 * format and time zone the retry asks for — without writing again. A request without the header
 * runs the method untouched (Stage.applies).
 *
 * The write routes' stage (`idempotent-write`, src/http/pipeline/route-stages.ts): every POST, PUT
 * and PATCH route runs it around its method, after the guards and pipes. It sees the method's
 * objects; the answer is written after it (the adapter's reply), so a replay is written as the
 * retry asks.
 */
@Injectable()
export class IdempotencyStage implements Stage, OnModuleInit {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly reflector: Reflector,
    private readonly db: TenantDb,
    private readonly store: IdempotencyStore,
    private readonly stages: RouteStages,
  ) {}

  onModuleInit(): void {
    this.stages.provide('idempotent-write', this);
  }

  /** A POST, PUT or PATCH with the header, of a caller: public routes (logging in) have no caller to scope a key to, and ignore it. */
  applies(req: StageRequest): boolean {
    if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') return false;
    return req.headers['idempotency-key'] !== undefined && !!(req[CONTEXT_KEY] as RequestContext | undefined)?.caller;
  }

  async run(req: StageRequest, method: Function, handle: () => Promise<unknown>): Promise<unknown> {
    const ctx = req[CONTEXT_KEY] as RequestContext;
    const key = parseIdempotencyKey(req.headers['idempotency-key']!);
    const path = String(req.originalUrl ?? req.url).split('?')[0];
    const keyed: KeyedRequest = {
      keyHash: sha256Hex(key),
      fingerprint: requestFingerprint(req.method, path, req.body),
      request: `${req.method} ${path}`,
      status: (Reflect.getMetadata(HTTP_CODE_METADATA, method) as number | undefined) ?? (req.method === 'POST' ? 201 : 200),
      meta: this.reflector.get<WireResultMeta | undefined>(WIRE_RESULT, method),
    };
    const outcome = await this.runKeyed(ctx, keyed, handle);
    if (outcome.replayed) req.res?.setHeader(IDEMPOTENCY_REPLAYED_HEADER, 'true');
    return outcome.value;
  }

  /**
   * Looks the key up, or claims it, runs the handler and stores its answer, all in one
   * transaction. TenantDb runs the callback again after a deadlock: everything it did was rolled
   * back, and `handle()` runs the route's method anew. Errors are not stored: a failed write rolls
   * the claim back with everything else, so the same key can be used again.
   */
  private async runKeyed(ctx: RequestContext, keyed: KeyedRequest, handle: () => Promise<unknown>): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      let claimed = false;
      try {
        return await this.db.transaction(ctx, async () => {
          claimed = false;
          const found = await this.store.find(ctx, keyed.keyHash);
          if (found && found.status !== UNANSWERED) return this.replay(found, keyed);
          if (found) {
            // A claim committed without its answer: there is nothing to replay, the key is free.
            this.logger.warn(`${keyed.request}: the Idempotency-Key's row holds no answer; the request runs anew (request ${ctx.requestId})`);
            await this.store.forgetUnanswered(ctx, keyed.keyHash);
          }
          await this.store.claim(ctx, { keyHash: keyed.keyHash, fingerprint: keyed.fingerprint, request: keyed.request, status: UNANSWERED, answer: '' });
          claimed = true;
          const value = await handle();
          if (!isRevivable(value, keyed.meta)) {
            this.logger.warn(`${keyed.request}: the answer is not of the route's wire type; its replay may be written differently (request ${ctx.requestId})`);
          }
          await this.store.complete(ctx, keyed.keyHash, keyed.status, storeAnswer(value));
          return { value, replayed: false };
        });
      } catch (e) {
        // The claim lost to a concurrent request with the same key, which has committed (MySQL/
        // MariaDB make the INSERT wait for it): look again, and answer as that request did.
        if (claimed || attempt >= 2 || !isUniqueViolation(e)) throw e;
      }
    }
  }

  private replay(found: StoredKey, keyed: KeyedRequest): Outcome {
    if (found.fingerprint !== keyed.fingerprint) {
      throw new ConflictError(
        `This Idempotency-Key was used for a different request (${found.request}, or another body) within its retention; use a new key for a new request`,
        'idempotency-key-reused',
      );
    }
    return { value: reviveAnswer(found.answer, keyed.meta), replayed: true };
  }
}
