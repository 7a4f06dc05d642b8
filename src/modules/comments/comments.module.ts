import { Module, OnModuleInit } from '@nestjs/common';
import { ByReference } from '../../database/by-reference.js';
import { commentsOn } from './comment-cascade.js';
import { CommentsController } from './comments.controller.js';
import { CommentsService } from './comments.service.js';

@Module({ controllers: [CommentsController], providers: [CommentsService], exports: [CommentsService] })
export class CommentsModule implements OnModuleInit {
  constructor(private readonly byReference: ByReference) {}

  /** The comments on a record go down with it and come back with it (docs/comments.md). */
  onModuleInit(): void {
    this.byReference.register('individual', commentsOn('individuals'));
    this.byReference.register('organization', commentsOn('departments', 'organizations'));
    this.byReference.register('project', commentsOn('projects'));
    this.byReference.register('metric', commentsOn('metrics'));
    this.byReference.register('dialog', commentsOn('dialogs'));
    this.byReference.register('task', commentsOn('tasks'));
  }
}
