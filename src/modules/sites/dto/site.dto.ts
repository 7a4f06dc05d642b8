import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { SiteEntity } from '../../../database/entities/site.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';

/** Site, a tenant (docs/identity-and-tenancy.md): every field declared once (docs/adding-a-resource.md). */
export const Site = resource<SiteEntity>()('Site', {
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      create: { description: 'Optional; generated when absent or all zeros.' },
      update: { description: 'Must equal the siteid of the path.' },
    }),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim }),
    PerformanceManagement: field.flag(true, 'Whether the PM-labelled operations are available in this site. Default true.', {
      null: 'keeps',
      update: 'Absent keeps the current value.',
    }),
    Created: field.date('RO'),
    Updated: field.date('RO'),
  },
});

export const { Response: SiteDto, Create: CreateSiteDto, Update: UpdateSiteDto } = Site;
export type SiteDto = InstanceType<typeof SiteDto>;
export type CreateSiteDto = InstanceType<typeof CreateSiteDto>;
export type UpdateSiteDto = InstanceType<typeof UpdateSiteDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchSiteDto: { body: { Name: 'Initech Worldwide' } },
  CreateSiteDto: { body: { Name: 'Initech', PerformanceManagement: true } },
  UpdateSiteDto: { body: { ID: 'PATH_ID', Name: 'Initech Europe', PerformanceManagement: true } },
});
