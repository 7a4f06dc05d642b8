import { Module } from '@nestjs/common';
import { ImportProcessor } from './import-processor.js';
import { ImportRetention } from './import-retention.js';
import { ImportsController } from './imports.controller.js';
import { ImportsOpenApi } from './imports-openapi.js';
import { ImportsService } from './imports.service.js';

/** File imports (docs/imports.md): the collections they write are found through the BulkWriters registry, not imported. */
@Module({
  controllers: [ImportsController],
  providers: [ImportsService, ImportProcessor, ImportRetention, ImportsOpenApi],
  exports: [ImportsService, ImportProcessor],
})
export class ImportsModule {}
