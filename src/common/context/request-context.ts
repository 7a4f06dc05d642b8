import { UnauthorizedError } from '../errors/errors.js';
import { TimeZone, UTC } from '../dates.js';

/**
 * One Permission record as the evaluation reads it (docs/authorization.md): read by
 * src/authorization/grants.statements.ts, carried with the caller.
 */
export interface Grant {
  id: string;
  rowId: string;
  rowType: number;
  /** 0: the row itself; else a ChildType (the rows of that type below RowID; docs/authorization.md). */
  childType: number;
  principalId: string;
  principalType: number;
  /** Create, Read, Update, Delete, Delegate: 0 Not Set, 1 Allow, 2 Deny. */
  states: readonly [number, number, number, number, number];
}

/**
 * What kind of principal calls (docs/identity.md): a person (password or single sign-on token) or
 * the service principal of an API token.
 */
export type PrincipalKind = 'user' | 'service';

/** Who is calling, resolved once per request by the AuthGuard from the bearer token. */
export interface Caller {
  /** Absent means 'user'. */
  kind?: PrincipalKind;
  /** The account id; for a service principal the API token's id. */
  userId: string;
  /** The account's user name; for a service principal `apitoken:<token name>`. */
  userName: string;
  /** A service principal's scopes (docs/identity.md, "Scopes"); absent for people. */
  scopes?: readonly string[];
  /** When the credential stops being valid on its own (an API token's expiry), in epoch ms. */
  validUntil?: number;
  individualId: string | null;
  /** The site the token acts in (a global administrator may act in any site). */
  siteId: string;
  /** Site administrator (Individual.IsAdmin) or global administrator. */
  isAdmin: boolean;
  isGlobalAdmin: boolean;
  /** The acting site's PerformanceManagement switch. */
  pmEnabled: boolean;
  /**
   * The Permission records that apply to the caller (their own and their security groups'), read
   * with the caller; empty for administrators, whom no record restricts (docs/authorization.md).
   */
  grants?: readonly Grant[];
  /**
   * Individuals this caller does not see, whatever its rights: for an API token (and so a SCIM
   * client), the individuals of global administrators in its site (docs/security.md: nothing a
   * site controls reads or writes the global scope).
   */
  unseen?: readonly string[];
}

/**
 * Who a write is recorded as (Created/UpdatedBy, the audit trail): the individual of a person, the
 * API token's id for a service principal; null for an account without an individual.
 */
export function actorIdOf(caller: Caller | null | undefined): string | null {
  if (!caller) return null;
  return caller.kind === 'service' ? caller.userId : caller.individualId;
}

/**
 * The explicit request context every service method takes first. Built once per request by the
 * guards and read in controllers with @Ctx(); there is no ambient tenant state anywhere.
 */
export class RequestContext {
  constructor(
    readonly requestId: string,
    /** The zone every date of the answer is rendered in (`tz` query parameter; UTC by default). */
    readonly tz: TimeZone = UTC,
    readonly caller: Caller | null = null,
    /** The If-Match header of a PUT or DELETE, for optimistic concurrency (see `ifMatch`). */
    private readonly ifMatchHeader: string | null = null,
    /** Client address, for throttling and logs. */
    readonly ip: string = '',
  ) {}

  /**
   * Whether this request reads each record once (a streamed export,
   * src/http/pipeline/list-export.ts): its answers are built without the record memo
   * (TenantDb.answersOf), so a 1,000,000-row export neither pays for keeping its records nor
   * pushes out of the memo the records ordinary reads find there (docs/performance.md, "Record memo").
   */
  readsOnce = false;

  /**
   * The request's URL (path and query), set by the guard: what a list's cursor is bound to
   * (listScopeOf, docs/queries.md "Cursors"), read only when a list takes a cursor.
   */
  url = '';

  /** A bulk item's own precondition while its write runs (`underIfMatch`); undefined: the header. */
  private itemIfMatch: string | null | undefined = undefined;

  /**
   * The precondition of the write that runs: the request's If-Match header, or while a bulk item
   * is written, the item's own `IfMatch` (`underIfMatch`).
   */
  get ifMatch(): string | null {
    return this.itemIfMatch === undefined ? this.ifMatchHeader : this.itemIfMatch;
  }

  /**
   * Runs `fn` with `ifMatch` (null: none) standing for the request's If-Match header: a bulk item's
   * own precondition (docs/bulk.md), which its single write then checks in its UPDATE as it checks
   * the header. The context itself, not a copy, so the write stays in the request's transaction
   * (which is bound to this object); the items of a batch run one after another, never two at once.
   */
  async underIfMatch<R>(ifMatch: string | null, fn: () => Promise<R>): Promise<R> {
    const before = this.itemIfMatch;
    this.itemIfMatch = ifMatch;
    try {
      return await fn();
    } finally {
      this.itemIfMatch = before;
    }
  }

  get isAuthenticated(): boolean {
    return this.caller !== null;
  }

  /** The authenticated caller; throws 401 on a public route that needs one. */
  get user(): Caller {
    if (!this.caller) throw new UnauthorizedError();
    return this.caller;
  }

  get siteId(): string {
    return this.user.siteId;
  }

  /**
   * The record versions the If-Match header names, as the HTTP layer reads them (etag.ts): `null`
   * for no condition. What the data layer compares in a conditional UPDATE or DELETE.
   */
  get ifMatchVersions(): number[] | null {
    return ifMatchVersions(this.ifMatch);
  }

  /** A context for work the service does on its own (bootstrap, seeding, tests). */
  static system(siteId: string, opts: Partial<Caller> = {}): RequestContext {
    return new RequestContext('system', UTC, {
      userId: opts.userId ?? '00000000-0000-0000-0000-000000000000',
      userName: opts.userName ?? 'system',
      individualId: opts.individualId ?? null,
      siteId,
      isAdmin: true,
      isGlobalAdmin: opts.isGlobalAdmin ?? true,
      pmEnabled: opts.pmEnabled ?? true,
    });
  }

  /**
   * The same request for work that runs beside its own transaction, in one of its own (a bulk
   * request's or a file import's next chunk, written while the chunk before commits: docs/bulk.md,
   * "Two chunks at once"): a transaction is bound to its context object, so two at once take two.
   */
  beside(): RequestContext {
    const ctx = new RequestContext(this.requestId, this.tz, this.caller, this.ifMatchHeader, this.ip);
    ctx.url = this.url;
    ctx.readsOnce = this.readsOnce;
    return ctx;
  }

  /** The same request acting in another site (global administrators only, checked by callers). */
  withSite(siteId: string, pmEnabled: boolean): RequestContext {
    // The precondition in force (a bulk item's, while its write runs) goes with it.
    const ctx = new RequestContext(this.requestId, this.tz, { ...this.user, siteId, pmEnabled }, this.ifMatch, this.ip);
    ctx.url = this.url;
    return ctx;
  }
}

/** Where the context is kept on the underlying request object. */
export const CONTEXT_KEY = '__pmsContext';

/**
 * The record versions an If-Match header names: `null` when there is none or it is `*` (no
 * condition); otherwise the versions of the listed ETags (an empty list when none is one of ours,
 * which then matches no row: 412). The request context hands them to the data layer
 * (`RequestContext.ifMatchVersions`), which compares them in the UPDATE.
 */
function ifMatchVersions(ifMatch: string | null): number[] | null {
  if (!ifMatch) return null;
  const tags = ifMatch.split(',').map((s) => s.trim().replace(/^W\//, ''));
  if (tags.includes('*')) return null;
  const out: number[] = [];
  for (const tag of tags) {
    const m = /^"(\d{1,15})-[A-Za-z0-9_-]+"$/.exec(tag);
    if (m) out.push(Number(m[1]));
  }
  return out;
}
