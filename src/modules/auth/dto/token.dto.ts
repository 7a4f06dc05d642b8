import { ApiPropertyOptional } from '@nestjs/swagger';
import { InputField, WireField, WireType } from '../../../http/wire/wire.js';
import { LIMITS } from '../../../common/limits.js';
import { declareExamples } from '../../../http/wire/examples.js';

/**
 * The login body: `{ UserName, Password, SiteID? }` in JSON or XML, or the OAuth-style form
 * `grant_type=password&username=…&password=…`.
 */
@WireType('TokenRequest')
export class TokenRequestDto {
  @InputField('string', { max: LIMITS.name, description: 'User name (case-insensitive).' })
  UserName?: string;

  @InputField('string', { max: 1024, description: 'Password.' })
  Password?: string;

  @InputField('guid', { description: 'Global administrators only: the site the token acts in.' })
  SiteID?: string | null;

  @ApiPropertyOptional({ description: 'Form encoding: must be "password".' })
  @InputField('string', { max: 64 })
  grant_type?: string;

  @InputField('string', { max: LIMITS.name, description: 'Form encoding: the user name.' })
  username?: string;

  @InputField('string', { max: 1024, description: 'Form encoding: the password.' })
  password?: string;
}

@WireType('TokenResponse')
export class TokenResponseDto {
  @WireField('string', { access: 'RO', description: 'The bearer token: send it as Authorization: Bearer <token>.' })
  access_token: string;

  @WireField('string', { access: 'RO', description: 'Always "Bearer".' })
  token_type: string;

  @WireField('int', { access: 'RO', description: 'Lifetime in seconds.' })
  expires_in: number;
}

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  TokenRequest: {
    body: { UserName: 'admin', Password: 'ADMIN_PASSWORD' },
    form: { grant_type: 'password', username: 'admin', password: 'ADMIN_PASSWORD' },
  },
});
