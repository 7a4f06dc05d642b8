import { Module } from '@nestjs/common';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';

/** The Permission resource and the effective-rights view; the engine itself is src/authorization/. */
@Module({ controllers: [PermissionsController], providers: [PermissionsService], exports: [PermissionsService] })
export class PermissionsModule {}
