import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { AuditedWire, WireAudit, auditOf } from '../../../common/http/wire-audit.js';
import type { PeriodEntity } from '../period.entity.js';
import { RECORD_VERSION } from '../../../common/http/etag.js';

/** A performance period (DESIGN §5): the span goals, commitments and dashboards are counted in. */
@WireType('Period')
@WireAudit()
export class PeriodDto extends AuditedWire {
  @WireField('int', { access: 'ReqUpd', description: 'Integer id, generated on create.' })
  ID: number;

  @WireField('string', { access: 'Req', max: 255, description: 'Must not be blank.' })
  Name: string;

  @WireField('date', { access: 'Req', description: 'First instant of the period.' })
  StartDate: Date;

  @WireField('date', { access: 'Req', description: 'Last instant of the period; not before StartDate (400).' })
  EndDate: Date;

  @WireField('bool', { access: 'RO', description: 'Set by PUT /periods/{id}/close; a closed period cannot be changed or deleted (409 closed).' })
  Closed: boolean;

  @WireField('guid', { access: 'RO' })
  SiteID: string;

  static from(e: PeriodEntity): PeriodDto {
    return Object.assign(new PeriodDto(), {
      [RECORD_VERSION]: e.version,
      ID: e.id,
      Name: e.name,
      StartDate: e.startDate,
      EndDate: e.endDate,
      Closed: e.closed,
      SiteID: e.siteId,
      ...auditOf(e),
    });
  }
}

/** ID is not declared: integer ids are always generated (a supplied one is ignored). */
export class CreatePeriodDto {
  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('date', { required: true })
  StartDate: Date;

  @InputField('date', { required: true, description: 'Not before StartDate.' })
  EndDate: Date;
}

export class UpdatePeriodDto {
  @InputField('int', { required: true, zeroIsNull: true, description: 'Must equal the id in the path.' })
  ID: number;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('date', { required: true })
  StartDate: Date;

  @InputField('date', { required: true, description: 'Not before StartDate.' })
  EndDate: Date;
}
