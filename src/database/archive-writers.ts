import { Injectable } from '@nestjs/common';
import type { TenantTx } from './tenant-db.js';
import type { PeriodEntity } from './entities/period.entity.js';
import { ArchiveEntity, type ArchiveAncestorType, type ArchiveItemType } from './entities/archive.entity.js';

/** One archive a writer asks for: what it is filed under, what it archives, and the snapshot. */
export interface ArchiveDraft {
  ancestorId: string;
  ancestorType: ArchiveAncestorType;
  itemId: string;
  name: string;
  /** JSON text. */
  snapshot: string;
}

/**
 * A kind of record that is archived when a period closes. `archivesOf` runs inside the closing
 * transaction, with the period locked, and answers one draft per record to archive.
 */
export interface ArchiveWriter {
  readonly itemType: ArchiveItemType;
  archivesOf(tx: TenantTx, period: PeriodEntity): Promise<ArchiveDraft[]>;
}

/**
 * Writes the archives of a closing period, in the caller's transaction: every writer's drafts,
 * except items this period has archived already (so running it twice writes nothing new; a unique
 * index on (period, item) holds the same rule in the database). Answers how many were written.
 */
export async function writePeriodArchives(tx: TenantTx, period: PeriodEntity, writers: readonly ArchiveWriter[]): Promise<number> {
  const archives = tx.repo(ArchiveEntity, 'Archive');
  let written = 0;
  for (const writer of writers) {
    const drafts = await writer.archivesOf(tx, period);
    if (drafts.length === 0) continue;
    const done = await archives.find({ where: { periodId: period.id, itemType: writer.itemType }, select: { itemId: true } });
    const archived = new Set(done.map((a) => a.itemId));
    const fresh = drafts.filter((d) => !archived.has(d.itemId));
    written += await archives.insertMany(fresh.map((d) => ({ ...d, itemType: writer.itemType, periodId: period.id })));
  }
  return written;
}

/**
 * The registry of archive writers: closing a period runs each of them (docs/metrics-archives.md):
 * the metrics' values and every dashboard of the period (docs/dashboards.md). It knows no feature:
 * a feature whose records are archived at the close of a period registers its writer when its
 * module starts (`onModuleInit`), and the periods feature asks `write` when it closes one.
 */
@Injectable()
export class ArchiveWriters {
  private readonly writers: ArchiveWriter[] = [];

  register(writer: ArchiveWriter): void {
    if (this.writers.some((w) => w.itemType === writer.itemType)) throw new Error(`an archive writer of ${writer.itemType} is registered twice`);
    this.writers.push(writer);
  }

  /** The item types archived at the close of a period, in the order their writers run. */
  get itemTypes(): readonly ArchiveItemType[] {
    return this.writers.map((w) => w.itemType);
  }

  /** Writes the archives of a closing period with every registered writer (writePeriodArchives). */
  write(tx: TenantTx, period: PeriodEntity): Promise<number> {
    return writePeriodArchives(tx, period, this.writers);
  }
}
