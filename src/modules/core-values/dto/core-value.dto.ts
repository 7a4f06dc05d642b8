import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { SoftDeletedWire, WireAudit, softDeleteOf } from '../../../common/http/wire-audit.js';
import { DeletedQuery } from '../../../common/pagination/pagination.js';
import type { CoreValueEntity } from '../core-value.entity.js';

export const CORE_VALUE_DESCRIPTION_MAX = 4000;

@WireType('CoreValue')
@WireAudit({ softDelete: true })
export class CoreValueDto extends SoftDeletedWire {
  @WireField('guid', { access: 'ReqUpd' })
  ID: string;

  @WireField('string', { access: 'Req', max: 255 })
  Name: string;

  @WireField('string', { nullable: true, access: '-', max: CORE_VALUE_DESCRIPTION_MAX })
  Description: string | null;

  @WireField('int', { access: '-', description: 'Display order (lists are ordered by Rank, then Name). Default 0.' })
  Rank: number;

  @WireField('guid', { access: 'RO' })
  SiteID: string;

  static from(e: CoreValueEntity): CoreValueDto {
    return Object.assign(new CoreValueDto(), {
      ID: e.id,
      Name: e.name,
      Description: e.description,
      Rank: e.rank,
      SiteID: e.siteId,
      ...softDeleteOf(e),
    });
  }
}

export class CreateCoreValueDto {
  @InputField('guid', { description: 'Optional; used if free (else 409 id-taken), generated when absent or all zeros.' })
  ID?: string | null;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: CORE_VALUE_DESCRIPTION_MAX })
  Description?: string | null;

  @InputField('int', { description: 'Default 0.' })
  Rank?: number | null;
}

export class UpdateCoreValueDto {
  @InputField('guid', { required: true, description: 'Must equal the id in the path.' })
  ID: string;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: CORE_VALUE_DESCRIPTION_MAX, description: 'Absent keeps the current value; null clears it.' })
  Description?: string | null;

  @InputField('int', { description: 'Absent keeps the current value; null sets 0.' })
  Rank?: number | null;
}

export class CoreValueQuery extends DeletedQuery {}
