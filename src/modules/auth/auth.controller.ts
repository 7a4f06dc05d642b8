import { Body, Header, Post } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Authenticated, Public } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiResult } from '../../http/wire/wire.js';
import { TokenRequestDto, TokenResponseDto } from './dto/token.dto.js';
import { AuthService } from './auth.service.js';
import { ApiController, PostAction } from '../../http/pipeline/routes.js';

@ApiController('Authentication', 'auth', {
  description:
    'Log in: a user name and password for a bearer token (JWT), sent as `Authorization: Bearer <token>` on every other /v4 call; an identity provider’s token or an API token is sent the same way (docs/identity.md). Logout everywhere ends every earlier token of the account.',
})
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('token')
  @Public()
  // RFC 6749 §5.1: a token answer must not be stored by any cache.
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Log in: exchange a user name and password for a bearer token',
    description:
      'Body `{ "UserName", "Password", "SiteID"? }` in JSON or XML, or the form `grant_type=password&username=…&password=…`. ' +
      'An unknown user and a wrong password answer the same 401. From the 10th failure for one user name within 15 minutes the answer is 429 with Retry-After.',
  })
  @ApiConsumes('application/json', 'text/json', 'application/xml', 'text/xml', 'application/x-www-form-urlencoded')
  @ApiUnauthorizedResponse({ description: 'Wrong user name or password' })
  @ApiTooManyRequestsResponse({ description: 'Too many failed logins; see Retry-After' })
  @ApiResult(TokenResponseDto)
  token(@Ctx() ctx: RequestContext, @Body() dto: TokenRequestDto) {
    return this.auth.issueToken(ctx, dto);
  }

  @PostAction(Authenticated, 'logout-everywhere', null, {
    summary: 'End every token of the caller’s account',
    description:
      'Every bearer token of the caller’s account issued until now — password logins and identity provider tokens, this one included — is refused from the next request on (on other instances within the caller cache time; docs/identity.md). ' +
      'No body. API tokens cannot call it (403): revoke them with DELETE /v4/apitokens/{id}.',
  })
  logoutEverywhere(@Ctx() ctx: RequestContext) {
    return this.auth.logoutEverywhere(ctx);
  }
}
