import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { BootstrapService } from './bootstrap.service.js';

@Module({ controllers: [AuthController], providers: [AuthService, BootstrapService] })
export class AuthModule {}
