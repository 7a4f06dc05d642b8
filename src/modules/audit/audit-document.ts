import { Injectable } from '@nestjs/common';
import type { OpenAPIObject, OperationObject, ParameterObject } from '@nestjs/swagger';
import { ContributesToDocument, type DocumentContribution } from '../../http/pipeline/document-contributor.js';
import { RecordKinds } from '../../database/registries/record-kinds.js';

/** The history and sync routes' `kind`: every collection a feature declares a record kind for (found by the document builder). */
@Injectable()
@ContributesToDocument()
export class AuditDocument implements DocumentContribution {
  constructor(private readonly kinds: RecordKinds) {}

  complete(document: OpenAPIObject): void {
    for (const path of ['/v4/{kind}/{id}/history', '/v4/sync/{kind}']) {
      const op = document.paths[path]?.get as OperationObject | undefined;
      const param = op?.parameters?.find((p) => 'name' in p && p.name === 'kind') as ParameterObject | undefined;
      if (param) param.schema = { enum: path.startsWith('/v4/sync/') ? this.kinds.syncPaths() : this.kinds.paths(), type: 'string' };
    }
  }
}
