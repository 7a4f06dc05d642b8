import { Module } from '@nestjs/common';
import { DialogsModule } from '../dialogs/dialogs.module.js';
import { TasksController } from './tasks.controller.js';
import { TasksService } from './tasks.service.js';

@Module({ imports: [DialogsModule], controllers: [TasksController], providers: [TasksService], exports: [TasksService] })
export class TasksModule {}
