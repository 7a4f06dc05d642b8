import { Module, OnModuleInit } from '@nestjs/common';
import { ByReference } from '../../database/by-reference.js';
import { SitesModule } from '../sites/sites.module.js';
import { basicRolesOf } from './basic-role-cascade.js';
import { BasicRoleDialogsController } from './basic-role-dialogs.controller.js';
import { BasicRoleDialogsService } from './basic-role-dialogs.service.js';
import { BasicRolesController } from './basic-roles.controller.js';
import { BasicRolesService } from './basic-roles.service.js';

@Module({
  imports: [SitesModule],
  controllers: [BasicRolesController, BasicRoleDialogsController],
  providers: [BasicRolesService, BasicRoleDialogsService],
  exports: [BasicRolesService, BasicRoleDialogsService],
})
export class BasicRolesModule implements OnModuleInit {
  constructor(private readonly byReference: ByReference) {}

  /** An individual's basic roles follow the individual. */
  onModuleInit(): void {
    this.byReference.register('individual', basicRolesOf);
  }
}
