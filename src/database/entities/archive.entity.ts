import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { GuidCol, StrCol, TextCol, IntRef } from '../columns.js';
import { LIMITS } from '../../common/limits.js';
import { PeriodEntity } from './period.entity.js';

/** What an archive's AncestorID names (lower-case singular words, docs/metrics-archives.md). */
export const ARCHIVE_ANCESTOR_TYPES = ['individual', 'project', 'organization', 'department'] as const;
export type ArchiveAncestorType = (typeof ARCHIVE_ANCESTOR_TYPES)[number];

/** What was archived: a metric (its values) or a dashboard. Stored, not on the wire. */
export type ArchiveItemType = 'metric' | 'dashboard';

/**
 * A snapshot written when a period closes (docs/metrics-archives.md): never changed afterwards.
 * One per (period, item), held by a unique index, so closing twice cannot archive twice.
 */
@Entity('archives')
@Index('ux_archives_site_period_item', ['siteId', 'periodId', 'itemType', 'itemId'], { unique: true })
@Index('ix_archives_site_ancestor', ['siteId', 'ancestorId', 'periodId'])
@Index('ix_archives_site_item', ['siteId', 'itemId', 'periodId'])
@Index('ix_archives_site_ancestor_name', ['siteId', 'ancestorId', 'name'])
export class ArchiveEntity extends GuidTenantEntity {
  @GuidCol('ancestor_id')
  ancestorId: string;

  @StrCol('ancestor_type', 20, { nullable: false })
  ancestorType: ArchiveAncestorType;

  @GuidCol('item_id')
  itemId: string;

  @StrCol('item_type', 20, { nullable: false })
  itemType: ArchiveItemType;

  @IntRef(() => PeriodEntity, 'fk_archives_period', 'period_id')
  periodId: number;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  /** The archived record as JSON text. */
  @TextCol('snapshot', { nullable: false })
  snapshot: string;
}
