import { Injectable } from '@nestjs/common';
import { ADMIN_SCOPE, apiTokenHash, apiTokenHint, CREDENTIAL_KINDS, newApiTokenSecret, parseScopes, SCIM_SCOPE, SCOPE_PATTERN } from '../../auth/api-token.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ForbiddenError, type FieldError, ValidationError } from '../../common/errors/errors.js';
import { RouteIndex } from '../../http/pipeline/route-index.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { ApiTokenEntity } from '../../database/entities/api-token.entity.js';
import { TenantDb } from '../../database/tenant-db.js';
import { ApiToken, ApiTokenDto, ApiTokenQuery, CreateApiTokenDto } from './dto/api-token.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

const LABEL = 'ApiToken';
const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 2 * 366;
/** The list's order, newest first: Created then ID, both descending (a queried list's order ends with the ID in the last key's direction). */
const NEWEST_FIRST = [{ field: ApiToken.queryable.get('created')!, desc: true }] as const;

/**
 * API tokens (docs/identity.md, "API tokens"): administrators create, list and revoke them. The
 * secret is made here, answered once and stored only as its hash; a revocation is a write to
 * `api_tokens`, which empties the caller cache, so the token is refused from the next request on.
 */
@Injectable()
@DeclaresRecordKind<ApiTokensService>({ path: 'apitokens', kind: 'api-token', access: 'admin', credential: true, read: (s, ctx, id) => s.get(ctx, id) })
export class ApiTokensService {
  private readonly tokens = this.db.scoped(ApiTokenEntity, LABEL);

  constructor(
    private readonly db: TenantDb,
    private readonly routes: RouteIndex,
    private readonly queries: ListQueries,
  ) {}

  async list(ctx: RequestContext, q: ApiTokenQuery): Promise<Page<ApiTokenDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's tokens; the secret is never answered (null), its hash is no field.
      const query = this.queries.read(ctx, ApiToken, q);
      const { take, skip } = pageOf(q);
      const page = await readQueriedRows(this.db, ctx, ApiTokenEntity, {}, query, NEWEST_FIRST, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.tokens(ctx).answers(page.rows, ApiToken, { secret: null }), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.tokens(ctx).findAndCount({ order: { created: 'DESC', id: 'DESC' }, ...pageOf(q) });
    return Page.of(this.tokens(ctx).answers(rows, ApiToken, { secret: null }), total, q);
  }

  async get(ctx: RequestContext, id: string): Promise<ApiTokenDto> {
    return ApiToken.toWire(await this.tokens(ctx).get(id), { secret: null });
  }

  async create(ctx: RequestContext, dto: CreateApiTokenDto): Promise<ApiTokenDto> {
    this.assertPerson(ctx);
    const errors: FieldError[] = [];
    const scopes = parseScopes(dto.Scopes);
    const unknown = scopes.filter((s) => !this.validScope(s));
    if (unknown.length) {
      errors.push({
        field: 'Scopes',
        message: `Scopes ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a scope: use <kind>:read or <kind>:write (kinds: ${this.kinds().join(', ')}), *:read, *:write, ${SCIM_SCOPE} or ${ADMIN_SCOPE}`,
      });
    }
    const now = Date.now();
    const expires = dto.Expires ? new Date(dto.Expires) : new Date(now + DEFAULT_TOKEN_DAYS * DAY_MS);
    if (expires.getTime() <= now) errors.push({ field: 'Expires', message: 'Expires must be in the future' });
    else if (expires.getTime() > now + MAX_TOKEN_DAYS * DAY_MS) errors.push({ field: 'Expires', message: 'Expires must be at most 2 years ahead' });
    if (errors.length) throw new ValidationError(errors);
    const secret = newApiTokenSecret();
    const row = await this.tokens(ctx).insert({
      name: dto.Name,
      scopes: scopes.join(' '),
      expires,
      hint: apiTokenHint(secret),
      secretHash: apiTokenHash(secret),
      revoked: null,
      lastUsed: null,
    });
    return ApiToken.toWire(row, { secret });
  }

  /** Revokes the token (idempotent; it stays listed with its Revoked instant); answers `{}`. */
  async revoke(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    this.assertPerson(ctx);
    await this.db.transaction(ctx, async () => {
      const row = await this.tokens(ctx).lock(id);
      if (!row.revoked) await this.tokens(ctx).update(id, { revoked: new Date() });
    });
    return {};
  }

  /** A token must not mint or end tokens (CREDENTIAL_KINDS refuses it in the guard; this holds for direct callers too). */
  private assertPerson(ctx: RequestContext): void {
    if (ctx.user.kind === 'service') throw new ForbiddenError('API tokens are managed by administrators, not by API tokens');
  }

  private kinds(): string[] {
    // Delta sync needs the read scope of the collection it serves (scopeFor): `sync:` grants nothing.
    return this.routes.resourceKinds().filter((k) => !CREDENTIAL_KINDS.has(k) && k !== 'sync');
  }

  private validScope(scope: string): boolean {
    if (scope === SCIM_SCOPE || scope === ADMIN_SCOPE) return true;
    if (!SCOPE_PATTERN.test(scope)) return false;
    const kind = scope.slice(0, scope.indexOf(':'));
    return kind === '*' || this.kinds().includes(kind);
  }
}
