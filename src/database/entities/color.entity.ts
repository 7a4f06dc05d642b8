import { Entity, Index } from 'typeorm';
import { IntTenantEntity } from './base.entity.js';
import { DecimalCol, IntCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A color band of a site: percentages in [MinPercent, MaxPercent) show as ColorValue. */
@Entity('colors')
@Index('ix_colors_site_rank', ['siteId', 'rank', 'minPercent'])
@Index('ix_colors_site_name', ['siteId', 'name'])
export class ColorEntity extends IntTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @IntCol('color_value')
  colorValue: number;

  @DecimalCol('min_percent', { nullable: false })
  minPercent: number;

  @DecimalCol('max_percent', { nullable: false })
  maxPercent: number;

  @IntCol('rank', { default: 0 })
  rank: number;
}
