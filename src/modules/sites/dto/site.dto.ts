import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import type { SiteEntity } from '../site.entity.js';
import { RECORD_VERSION } from '../../../common/http/etag.js';

@WireType('Site')
export class SiteDto {
  @WireField('guid', { access: 'ReqUpd' })
  ID: string;

  @WireField('string', { access: 'Req', max: 255 })
  Name: string;

  @WireField('bool', { access: '-', description: 'Whether the PM-labelled operations are available in this site. Default true.' })
  PerformanceManagement: boolean;

  @WireField('date', { access: 'RO' })
  Created: Date;

  @WireField('date', { access: 'RO' })
  Updated: Date;

  static from(e: SiteEntity): SiteDto {
    return Object.assign(new SiteDto(), {
      [RECORD_VERSION]: e.version,
      ID: e.id,
      Name: e.name,
      PerformanceManagement: e.performanceManagement,
      Created: e.created,
      Updated: e.updated,
    });
  }
}

export class CreateSiteDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros.' })
  ID?: string | null;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('bool', { description: 'Default true.' })
  PerformanceManagement?: boolean | null;
}

export class UpdateSiteDto {
  @InputField('guid', { required: true, description: 'Must equal the siteid of the path.' })
  ID: string;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('bool', { description: 'Absent keeps the current value.' })
  PerformanceManagement?: boolean | null;
}
