import { ID_DOC, LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { CoreValueEntity } from '../../../database/entities/core-value.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';

export const CORE_VALUE_DESCRIPTION_MAX = 4000;

/** CoreValue (docs/goals-colors-values-commitments.md): every field declared once (docs/adding-a-resource.md). */
export const CoreValue = resource<CoreValueEntity>()('CoreValue', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      create: { description: 'Optional; used if free (else 409 id-taken), generated when absent or all zeros.' },
      update: { description: ID_DOC.update },
    }),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, update: { min: 1 } }),
    Description: field.optional.string({ max: CORE_VALUE_DESCRIPTION_MAX }),
    Rank: { ...field.rank('Display order (lists are ordered by Rank, then Name). Default 0.'), query: { filter: true, sort: true, then: ['name'] } },
    SiteID: field.guid('RO'),
  },
});

export const { Response: CoreValueDto, Create: CreateCoreValueDto, Update: UpdateCoreValueDto } = CoreValue;
export type CoreValueDto = InstanceType<typeof CoreValueDto>;
export type CreateCoreValueDto = InstanceType<typeof CreateCoreValueDto>;
export type UpdateCoreValueDto = InstanceType<typeof UpdateCoreValueDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchCoreValueDto: { body: { Description: 'We do what we say, and we say so when we cannot.' } },
  CreateCoreValueDto: { body: { Name: 'Integrity', Description: 'We do what we say, and say what we do.', Rank: 1 } },
  UpdateCoreValueDto: { body: { ID: 'PATH_ID', Name: 'Integrity', Description: 'We do what we say.', Rank: 1 } },
});
