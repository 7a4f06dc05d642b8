import { Module } from '@nestjs/common';
import { ArchivesController } from './archives.controller.js';
import { ArchivesService } from './archives.service.js';

/** Archives: snapshots written when a period closes (src/database/archive-writers.ts), read-only over HTTP. */
@Module({ controllers: [ArchivesController], providers: [ArchivesService], exports: [ArchivesService] })
export class ArchivesModule {}
