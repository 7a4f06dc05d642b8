import { Global, Module } from '@nestjs/common';
import { AccessService } from './access.service.js';

/** Global so every resource module can ask AccessService without importing this module. */
@Global()
@Module({ providers: [AccessService], exports: [AccessService] })
export class PermissionsModule {}
