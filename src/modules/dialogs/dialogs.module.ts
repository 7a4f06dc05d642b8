import { Module } from '@nestjs/common';
import { PeriodsModule } from '../periods/periods.module.js';
import { DialogsController } from './dialogs.controller.js';
import { DialogsService } from './dialogs.service.js';

@Module({ imports: [PeriodsModule], controllers: [DialogsController], providers: [DialogsService], exports: [DialogsService] })
export class DialogsModule {}
