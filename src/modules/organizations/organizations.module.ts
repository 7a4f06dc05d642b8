import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
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
export class OrganizationsModule {}
