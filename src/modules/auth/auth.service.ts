import { Injectable } from '@nestjs/common';
import { LoginThrottle } from '../../auth/login-throttle.js';
import { Passwords } from '../../auth/password.js';
import { userNameKey, userNameProblem } from '../../auth/user-name.js';
import { TokenService } from '../../auth/token.service.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ForbiddenError, InvalidCredentialsError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { SiteEntity } from '../../database/entities/site.entity.js';
import { TokenRequestDto, TokenResponseDto } from './dto/token.dto.js';
import { UserEntity } from '../../database/entities/user.entity.js';
import { TenantDb } from '../../database/tenant-db.js';
import { endTokens } from '../../database/queries/accounts.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly db: TenantDb,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottle,
    private readonly passwords: Passwords,
  ) {}

  /** Password login (docs/identity-and-tenancy.md): the same 401 for an unknown user and a wrong password. */
  async issueToken(ctx: RequestContext, dto: TokenRequestDto): Promise<TokenResponseDto> {
    const form = dto.grant_type !== undefined || dto.username !== undefined;
    if (form && dto.grant_type !== undefined && dto.grant_type !== 'password') {
      throw new ValidationError([{ field: 'grant_type', message: 'grant_type must be "password"' }]);
    }
    const userName = (dto.UserName ?? dto.username ?? '').trim();
    const password = dto.Password ?? dto.password ?? '';
    const missing = [];
    if (!userName) missing.push({ field: form ? 'username' : 'UserName', message: 'is required' });
    if (!password) missing.push({ field: form ? 'password' : 'Password', message: 'is required' });
    if (missing.length) throw new ValidationError(missing.map((m) => ({ field: m.field, message: `${m.field} ${m.message}` })));

    const nameField = form ? 'username' : 'UserName';
    const problem = userNameProblem(userName);
    if (problem) throw new ValidationError([{ field: nameField, message: `${nameField} ${problem}` }]);

    // One identity (docs/identity-and-tenancy.md, "User names"): the key is compared exactly, so
    // a database collation that also ignores accents or invisible characters can match at most
    // the one account whose key this is — and it is counted by that key and that account.
    const key = userNameKey(userName);
    await this.throttle.assertAllowed(key);
    const found = await this.db.global(null, UserEntity).findOneBy({ userNameKey: key });
    const user = found?.userNameKey === key ? found : null;
    if (user) await this.throttle.assertAccountAllowed(user.id);
    const ok = await this.passwords.verify(password, user?.passwordHash ?? null);
    if (!user || !ok) {
      await this.throttle.recordFailure(key, ctx.ip, user?.id);
      throw new InvalidCredentialsError('The user name or password is not correct');
    }
    const individual = await this.db.global(null, IndividualEntity).findOneBy({ userId: user.id });
    // A deleted individual or a deactivated account (provisioning, docs/identity.md) answers as a wrong password.
    if (individual?.deleted || !user.active) {
      await this.throttle.recordFailure(key, ctx.ip, user.id);
      throw new InvalidCredentialsError('The user name or password is not correct');
    }
    await this.throttle.recordSuccess(key, user.id);

    let siteId = user.siteId;
    if (dto.SiteID && dto.SiteID !== user.siteId) {
      if (!user.isGlobalAdmin) throw new ForbiddenError('Only a global administrator may request a token for another site');
      if (!(await this.db.global(null, SiteEntity).existsBy({ id: dto.SiteID }))) throw new NotFoundError('Site', dto.SiteID);
      siteId = dto.SiteID;
    }
    const issued = this.tokens.issue({ sub: user.id, sid: siteId, gen: user.tokenGeneration });
    return Object.assign(new TokenResponseDto(), { access_token: issued.access_token, token_type: 'Bearer', expires_in: issued.expires_in });
  }

  /**
   * `POST /auth/logout-everywhere` (docs/identity.md, "Revocation"): ends every token of the caller's
   * account issued until now (this one included), whichever way it was obtained. People only.
   */
  async logoutEverywhere(ctx: RequestContext): Promise<Record<string, never>> {
    if (ctx.user.kind === 'service') throw new ForbiddenError('An API token is ended by revoking it (DELETE /v4/apitokens/{id})');
    await endTokens(this.db, ctx, ctx.user.userId);
    return {};
  }
}
