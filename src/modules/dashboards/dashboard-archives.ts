import { In } from 'typeorm';
import { toJsonValue } from '../../http/wire/codec.js';
import type { TenantTx } from '../../database/tenant-db.js';
import type { ArchiveDraft, ArchiveWriter } from '../../database/archive-writers.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import type { PeriodEntity } from '../../database/entities/period.entity.js';
import { BATCH, computeMany, loadBasis, loadRows, type RowType } from './dashboard-engine.js';

const ANCESTOR_TYPE = { 4: 'organization', 56: 'department', 39: 'individual' } as const;

/**
 * The archive writer of dashboards (docs/dashboards.md, docs/metrics-archives.md): when a period
 * closes, one archive per live individual, department and organization of the site, filed under
 * the row (AncestorID = ItemID = the row's id, AncestorType its kind), whose Snapshot is the
 * Dashboard of that period as GET …/dashboards answers it in JSON at that moment. Computed in
 * batches of BATCH rows: a fixed number of statements per batch, whatever the site's size.
 */
export const dashboardArchives: ArchiveWriter = {
  itemType: 'dashboard',
  async archivesOf(tx: TenantTx, period: PeriodEntity): Promise<ArchiveDraft[]> {
    const { db, ctx } = tx;
    const basis = await loadBasis(db, ctx, period);
    const people = await tx.repo(IndividualEntity, 'Individual').find({ where: { deleted: false }, select: { id: true }, order: { id: 'ASC' } });
    const units = await tx.repo(OrganizationEntity, 'Organization').find({
      where: { deleted: false, rowType: In([ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT]) },
      select: { id: true, rowType: true },
      order: { id: 'ASC' },
    });
    const ids: [RowType, string[]][] = [
      [39, people.map((p) => p.id)],
      [56, units.filter((u) => u.rowType === ROW_TYPE_DEPARTMENT).map((u) => u.id)],
      [4, units.filter((u) => u.rowType === ROW_TYPE_ORGANIZATION).map((u) => u.id)],
    ];
    const drafts: ArchiveDraft[] = [];
    for (const [rowType, all] of ids) {
      for (let i = 0; i < all.length; i += BATCH) {
        const rows = await loadRows(db, ctx, rowType, all.slice(i, i + BATCH));
        for (const d of await computeMany(db, ctx, rowType, rows, basis)) {
          drafts.push({ ancestorId: d.ID, ancestorType: ANCESTOR_TYPE[rowType], itemId: d.ID, name: d.Name, snapshot: JSON.stringify(toJsonValue(d)) });
        }
      }
    }
    return drafts;
  },
};
