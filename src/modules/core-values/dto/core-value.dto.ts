import { ID_DOC, LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import type { CoreValueEntity } from '../../../database/entities/core-value.entity.js';

export const CORE_VALUE_DESCRIPTION_MAX = 4000;

/** CoreValue (docs/goals-colors-values-commitments.md): every field declared once (docs/adding-a-resource.md). */
export const CoreValue = resource<CoreValueEntity>()('CoreValue', {
  audit: 'softDelete',
  fields: {
    ID: field.guid('ReqUpd', {
      create: { description: 'Optional; used if free (else 409 id-taken), generated when absent or all zeros.' },
      update: { description: ID_DOC.update },
    }),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, update: { min: 1 } }),
    Description: field.optional.string({ max: CORE_VALUE_DESCRIPTION_MAX }),
    Rank: field.rank('Display order (lists are ordered by Rank, then Name). Default 0.'),
    SiteID: field.guid('RO'),
  },
});

export const { Response: CoreValueDto, Create: CreateCoreValueDto, Update: UpdateCoreValueDto } = CoreValue;
export type CoreValueDto = InstanceType<typeof CoreValueDto>;
export type CreateCoreValueDto = InstanceType<typeof CreateCoreValueDto>;
export type UpdateCoreValueDto = InstanceType<typeof UpdateCoreValueDto>;
