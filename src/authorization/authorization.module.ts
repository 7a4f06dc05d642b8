import { Global, Module } from '@nestjs/common';
import { AccessService } from './access.service.js';
import { DialogAccess } from './dialog-access.js';

/**
 * The authorization engine (docs/authorization.md, docs/architecture.md "Floors"): the access
 * service every feature asks, and the dialog rule several features share. Global, so a feature
 * asks it without importing a module; it imports no feature itself.
 */
@Global()
@Module({ providers: [AccessService, DialogAccess], exports: [AccessService, DialogAccess] })
export class AuthorizationModule {}
