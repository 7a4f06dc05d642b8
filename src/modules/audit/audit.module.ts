import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { AuditRetention } from './audit-retention.js';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';
import { DeltaListStage } from './delta-list-stage.js';
import { SyncService } from './sync.service.js';
import { AuditDocument } from './audit-document.js';

/**
 * The audit trail's routes and retention (docs/audit.md), delta sync (docs/delta-sync.md) — the
 * sync route and every list asked with `updatedSince` — over the record kinds the features
 * declare (src/database/registries/record-kinds.ts); the trail itself is written by the data layer.
 */
@Module({
  // The lists under /sites/{siteid} asked with updatedSince name their site (DeltaListStage).
  imports: [SitesModule],
  controllers: [AuditController],
  providers: [AuditService, SyncService, AuditRetention, DeltaListStage, AuditDocument],
  exports: [AuditService],
})
export class AuditModule {}
