import { ApiSchema } from '@nestjs/swagger';
import { InputField, WireInputOf } from '../../../http/wire/wire.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { LIMITS, field, resource } from '../../../http/wire/resource.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
import { ARCHIVE_ANCESTOR_TYPES, type ArchiveEntity } from '../../../database/entities/archive.entity.js';

/**
 * The Archive resource (docs/metrics-archives.md): a snapshot written by closing a period, read
 * only. Every field is RO; the create/update inputs are not used (POST/PUT answer `{}`).
 */
export const Archive = resource<ArchiveEntity>()('Archive', {
  audit: 'audit',
  fields: {
    ID: field.guid('RO', { query: { filter: true } }),
    AncestorID: field.guid('RO', { description: 'The record the archive is filed under: the metric’s individual or project, or the dashboard’s row.' }),
    AncestorType: field.string('RO', {
      enum: ARCHIVE_ANCESTOR_TYPES,
      description: 'What AncestorID names: individual, project, organization or department.',
    }),
    ItemID: field.guid('RO', {
      query: { filter: true },
      description: 'The archived record: the metric, or the dashboard (whose ID is its row’s).',
    }),
    PeriodID: field.int('RO', { query: { filter: true, sort: true }, description: 'The closed period the snapshot was taken for.' }),
    Name: field.string('RO', { query: { filter: true, sort: true }, max: LIMITS.name, description: 'The archived record’s name when the period closed.' }),
    Snapshot: field.string('RO', {
      description:
        'The archived record as JSON text, exactly as the API answered it in JSON when the period closed (dates in UTC). For a metric: the Metric with all its Values.',
    }),
    SiteID: field.guid('RO'),
  },
});

/**
 * What `POST /archives` and `PUT /archives/{id}` take: any body, which they ignore (archives are
 * written only by closing a period); a .NET client sends an Archive (XML root `<Archive>`).
 */
@ApiSchema({ name: 'ArchiveWrite', description: 'Any members (an Archive as the spec shows it): taken and ignored.' })
@WireInputOf('Archive')
export class ArchiveWriteBody {}

declareExamples({ ArchiveWrite: { body: {} } });

export const ArchiveDto = Archive.Response;
export type ArchiveDto = InstanceType<typeof ArchiveDto>;

/** Archive lists: every closed period by default, or one. */
export class ArchiveQuery extends QueriedPageQuery {
  @InputField('int', { description: 'Only the archives of this period (404 when it is not a period of the site). Default: every period.' })
  period?: number;
}
