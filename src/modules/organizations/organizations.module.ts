import { Module, OnModuleInit } from '@nestjs/common';
import { ByReference } from '../../database/by-reference.js';
import { SitesModule } from '../sites/sites.module.js';
import { membershipsOf } from './membership-cascade.js';
import { OrganizationMembersController } from './organization-members.controller.js';
import { OrganizationMembersService } from './organization-members.service.js';
import { OrganizationsController, OrganizationsReadController } from './organizations.controller.js';
import { OrganizationsService } from './organizations.service.js';

@Module({
  imports: [SitesModule],
  controllers: [OrganizationsController, OrganizationsReadController, OrganizationMembersController],
  providers: [OrganizationsService, OrganizationMembersService],
  exports: [OrganizationsService, OrganizationMembersService],
})
export class OrganizationsModule implements OnModuleInit {
  constructor(private readonly byReference: ByReference) {}

  /** The memberships between individuals and units follow either side. */
  onModuleInit(): void {
    this.byReference.register('individual', membershipsOf('individual'));
    this.byReference.register('organization', membershipsOf('organization'));
  }
}
