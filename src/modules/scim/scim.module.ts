import { Module } from '@nestjs/common';
import { IndividualsModule } from '../individuals/individuals.module.js';
import { SecurityGroupsModule } from '../security-groups/security-groups.module.js';
import { ScimDiscoveryController, ScimGroupsController, ScimUsersController } from './scim.controller.js';
import { ScimGroupsService } from './scim-groups.service.js';
import { ScimUsersService } from './scim-users.service.js';

/** SCIM 2.0 provisioning at /scim/v2 (docs/identity.md): Users over individuals and accounts, Groups over security groups. */
@Module({
  imports: [IndividualsModule, SecurityGroupsModule],
  controllers: [ScimUsersController, ScimGroupsController, ScimDiscoveryController],
  providers: [ScimUsersService, ScimGroupsService],
})
export class ScimModule {}
