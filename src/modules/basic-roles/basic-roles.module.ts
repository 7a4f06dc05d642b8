import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { BasicRoleDialogsController } from './basic-role-dialogs.controller.js';
import { BasicRoleDialogsService } from './basic-role-dialogs.service.js';
import { BasicRolesController } from './basic-roles.controller.js';
import { BasicRolesService } from './basic-roles.service.js';

@Module({
  imports: [SitesModule],
  controllers: [BasicRolesController, BasicRoleDialogsController],
  providers: [BasicRolesService, BasicRoleDialogsService],
  exports: [BasicRolesService],
})
export class BasicRolesModule {}
