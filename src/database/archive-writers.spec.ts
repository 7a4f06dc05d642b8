import { RequestContext } from '../common/context/request-context.js';
import type { TenantTx } from './tenant-db.js';
import { PeriodEntity } from './entities/period.entity.js';
import { ArchiveEntity } from './entities/archive.entity.js';
import { ArchiveDraft, ArchiveWriter, ArchiveWriters, writePeriodArchives } from './archive-writers.js';

const ctx = RequestContext.system('5d1e7c3a-0000-4000-8000-000000000002');
const period = Object.assign(new PeriodEntity(), { id: 9, siteId: ctx.siteId, name: 'Q1', closed: false, startDate: new Date(0), endDate: new Date(1) });

const draft = (itemId: string): ArchiveDraft => ({ ancestorId: 'a', ancestorType: 'individual', itemId, name: itemId, snapshot: '{}' });

/** A transaction whose archives table holds `stored` rows; what is inserted is collected. */
function fakeTx(stored: Pick<ArchiveEntity, 'periodId' | 'itemType' | 'itemId'>[]) {
  const inserted: Partial<ArchiveEntity>[] = [];
  const tx = {
    ctx,
    repo: (target: unknown) => {
      if (target !== ArchiveEntity) throw new Error('only archives are touched here');
      return {
        find: async ({ where }: { where: { periodId: number; itemType: string } }) =>
          stored.filter((a) => a.periodId === where.periodId && a.itemType === where.itemType).map((a) => ({ itemId: a.itemId })),
        insertMany: async (rows: Partial<ArchiveEntity>[]) => {
          inserted.push(...rows);
          return rows.length;
        },
      };
    },
  };
  return { tx: tx as unknown as TenantTx, inserted };
}

describe('writePeriodArchives (the registry of archive writers)', () => {
  const writer = (itemType: ArchiveWriter['itemType'], ids: string[]): ArchiveWriter => ({
    itemType,
    archivesOf: async (_tx, p) => (p.id === period.id ? ids.map(draft) : []),
  });

  it('writes every writer’s drafts for the period, each tagged with the writer’s item type', async () => {
    const { tx, inserted } = fakeTx([]);
    const sut = await writePeriodArchives(tx, period, [writer('metric', ['m1', 'm2']), writer('dashboard', ['d1'])]);
    expect(sut).toBe(3);
    expect(inserted.map((a) => [a.itemType, a.itemId, a.periodId])).toEqual([
      ['metric', 'm1', 9],
      ['metric', 'm2', 9],
      ['dashboard', 'd1', 9],
    ]);
  });

  it('skips items the period has archived already, so running twice writes nothing new', async () => {
    const { tx, inserted } = fakeTx([
      { periodId: 9, itemType: 'metric', itemId: 'm1' },
      { periodId: 8, itemType: 'metric', itemId: 'm2' },
      { periodId: 9, itemType: 'dashboard', itemId: 'm2' },
    ]);
    const sut = await writePeriodArchives(tx, period, [writer('metric', ['m1', 'm2'])]);
    expect(sut).toBe(1);
    expect(inserted.map((a) => a.itemId)).toEqual(['m2']);
  });
});

describe('ArchiveWriters (filled by the features when their modules start)', () => {
  const writer = (itemType: ArchiveWriter['itemType'], ids: string[]): ArchiveWriter => ({ itemType, archivesOf: async () => ids.map(draft) });

  it('closes a period with every registered writer, in the order they registered', async () => {
    const { tx, inserted } = fakeTx([]);
    const sut = new ArchiveWriters();
    sut.register(writer('metric', ['m1']));
    sut.register(writer('dashboard', ['d1']));
    expect(await sut.write(tx, period)).toBe(2);
    expect(inserted.map((a) => a.itemType)).toEqual(['metric', 'dashboard']);
  });

  it('writes nothing while no feature has registered a writer', async () => {
    const { tx, inserted } = fakeTx([]);
    expect(await new ArchiveWriters().write(tx, period)).toBe(0);
    expect(inserted).toEqual([]);
  });

  it('refuses a second writer of one item type (a module registered twice would archive twice)', () => {
    const sut = new ArchiveWriters();
    sut.register(writer('metric', []));
    expect(() => sut.register(writer('metric', []))).toThrow('an archive writer of metric is registered twice');
  });
});
