import { Module, OnModuleInit } from '@nestjs/common';
import { servePathProtocol } from '../../http/pipeline/path-protocols.js';
import { SCIM_BASE, SCIM_CONTENT_TYPE, SCIM_MEDIA_TYPE, scimErrorBody } from './scim-protocol.js';
import { IndividualsModule } from '../individuals/individuals.module.js';
import { SecurityGroupsModule } from '../security-groups/security-groups.module.js';
import { ScimDiscoveryController, ScimGroupsController, ScimUsersController } from './scim.controller.js';
import { ScimGroupsService } from './scim-groups.service.js';
import { ScimUsersService } from './scim-users.service.js';
import { ScimDocument } from './scim-openapi.js';

/** SCIM 2.0 provisioning at /scim/v2 (docs/identity.md): Users over individuals and accounts, Groups over security groups. */
@Module({
  imports: [IndividualsModule, SecurityGroupsModule],
  controllers: [ScimUsersController, ScimGroupsController, ScimDiscoveryController],
  providers: [ScimUsersService, ScimGroupsService, ScimDocument],
})
export class ScimModule implements OnModuleInit {
  /** SCIM under /scim/v2 reads JSON only, and answers its errors as SCIM error bodies (RFC 7644 §3.12). */
  onModuleInit(): void {
    servePathProtocol({
      prefix: SCIM_BASE,
      bodyFormat: (mediaType) => (mediaType === SCIM_MEDIA_TYPE || mediaType === 'application/json' ? 'json' : null),
      unsupportedMediaType: `SCIM reads JSON only: send Content-Type ${SCIM_MEDIA_TYPE} or application/json`,
      errorAnswer: (error) => ({ body: JSON.stringify(scimErrorBody(error)), contentType: SCIM_CONTENT_TYPE }),
    });
  }
}
