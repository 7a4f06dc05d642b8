import { Global, Module } from '@nestjs/common';
import { AccessService } from './access.service.js';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';

/** Global so every resource module can ask AccessService (the authorization engine) without importing this module. */
@Global()
@Module({ controllers: [PermissionsController], providers: [AccessService, PermissionsService], exports: [AccessService] })
export class PermissionsModule {}
