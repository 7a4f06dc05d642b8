import { ExternalIds1732000002600 } from '../../src/database/migrations/1732000002600-external-ids.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { createPerson, createSite } from '../factories/index.js';
import { TableIndex } from 'typeorm';
import { startApp, type TestApp } from './harness.js';

/**
 * External keys (docs/bulk.md): the migration makes the people's key (SCIM's column) unique per
 * site and gives units one; a site where two people already share a key stops it with a message,
 * changing nothing; applied again it finds what is done.
 */
describe('migration ExternalIds1732000002600', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  const indices = async (table: string) => {
    const q = t.ds.createQueryRunner();
    try {
      return (await q.getTable(table))!.indices.map((i) => ({ name: i.name, columns: i.columnNames, unique: i.isUnique }));
    } finally {
      await q.release();
    }
  };
  const run = async (step: 'up') => {
    const q = t.ds.createQueryRunner();
    try {
      await new ExternalIds1732000002600()[step](q);
    } finally {
      await q.release();
    }
  };

  it('is applied: unique (site_id, external_id) on individuals and organizations', async () => {
    expect(await indices('individuals')).toContainEqual({ name: 'ux_individuals_site_external_id', columns: ['site_id', 'external_id'], unique: true });
    expect(await indices('organizations')).toContainEqual({ name: 'ux_organizations_site_external_id', columns: ['site_id', 'external_id'], unique: true });
  });

  it('stops, naming the count, while two people of a site share a key (as SCIM could write them), and applies once they do not', async () => {
    // The state before the migration: SCIM's plain index.
    const q = t.ds.createQueryRunner();
    try {
      await q.dropIndex('individuals', 'ux_individuals_site_external_id');
      await q.createIndex('individuals', new TableIndex({ name: 'ix_individuals_site_external_id', columnNames: ['site_id', 'external_id'] }));
    } finally {
      await q.release();
    }
    const site = await createSite(t);
    const a = await createPerson(t, site);
    const b = await createPerson(t, site);
    const rows = t.ds.getRepository(IndividualEntity);
    await rows.update({ id: a.individualId }, { externalId: 'SHARED' });
    await rows.update({ id: b.individualId }, { externalId: 'SHARED' });
    await expect(run('up')).rejects.toThrow(/1 external ids are shared by several individuals of one site/);
    expect((await indices('individuals')).map((i) => i.name)).toContain('ix_individuals_site_external_id');
    await rows.update({ id: b.individualId }, { externalId: 'OWN' });
    await run('up');
    const names = (await indices('individuals')).map((i) => i.name);
    expect(names).toContain('ux_individuals_site_external_id');
    expect(names).not.toContain('ix_individuals_site_external_id');
    // Applied again (built beforehand): nothing to do, no error.
    await run('up');
    await expect(rows.update({ id: b.individualId }, { externalId: 'SHARED' })).rejects.toThrow();
  });
});
