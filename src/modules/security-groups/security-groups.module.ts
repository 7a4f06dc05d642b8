import { Module } from '@nestjs/common';
import { SecurityGroupsController } from './security-groups.controller.js';
import { SecurityGroupsService } from './security-groups.service.js';

@Module({ controllers: [SecurityGroupsController], providers: [SecurityGroupsService], exports: [SecurityGroupsService] })
export class SecurityGroupsModule {}
