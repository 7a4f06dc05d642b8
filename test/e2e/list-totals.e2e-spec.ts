import { randomUUID } from 'node:crypto';
import { TenantDb } from '../../src/database/tenant-db.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { createPerson, createSite, TestSite } from '../factories/index.js';
import { denyRead } from '../factories/permissions.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The totals of individual lists (X-Total-Count) are reused for LIST_TOTAL_CACHE_MS
 * (docs/performance.md, "List totals"): a client always sees the totals of writes made through
 * this instance at once; a row written around it (another instance, SQL) shows within that time.
 */
describe(`list totals (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
  });
  afterAll(() => t?.close());
  afterEach(() => {
    t.config.listTotalCacheMs = 2000;
  });

  const total = async (site: TestSite, query = '') => {
    const res = await t.http().get(`/v4/individuals?limit=1${query}`).set('Authorization', bearer(site.admin.token)).expect(200);
    return Number(res.headers['x-total-count']);
  };
  /** An individual inserted straight in the database, as another instance or an import would. */
  const insertAround = (site: TestSite) =>
    t.ds.getRepository(IndividualEntity).insert({
      id: randomUUID(),
      siteId: site.siteId,
      firstName: 'Around',
      lastName: 'TheApi',
      created: new Date(),
      updated: new Date(),
      version: 1,
    } as IndividualEntity);

  it('shows every write made through the service at once: create, delete, undelete, for each deleted filter', async () => {
    const before = { live: await total(acme), deleted: await total(acme, '&deleted=1'), all: await total(acme, '&deleted=2') };
    const p = await createPerson(t, acme);
    expect(await total(acme)).toBe(before.live + 1);
    expect(await total(acme, '&deleted=2')).toBe(before.all + 1);
    await t.http().delete(`/v4/individuals/${p.individualId}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    expect({ live: await total(acme), deleted: await total(acme, '&deleted=1') }).toEqual({ live: before.live, deleted: before.deleted + 1 });
    await t.http().put(`/v4/individuals/${p.individualId}/undelete`).set('Authorization', bearer(acme.admin.token)).expect(200);
    expect({ live: await total(acme), deleted: await total(acme, '&deleted=1') }).toEqual({ live: before.live + 1, deleted: before.deleted });
  });

  it('shows a row written around the service within LIST_TOTAL_CACHE_MS, and at once with 0', async () => {
    t.config.listTotalCacheMs = 600;
    const before = await total(acme);
    await insertAround(acme);
    expect(await total(acme)).toBe(before); // reused: nothing was written through this instance
    await sleep(700);
    expect(await total(acme)).toBe(before + 1);

    t.config.listTotalCacheMs = 0;
    await insertAround(acme);
    expect(await total(acme)).toBe(before + 2);
  });

  it('keeps each site’s totals to itself: a write in one site leaves the other’s as they were', async () => {
    const totals = t.app.get(TenantDb).totals;
    const a = await total(acme);
    const g = await total(globex);
    await createPerson(t, globex);
    const hits = totals.hits;
    expect(await total(acme)).toBe(a);
    expect(totals.hits).toBe(hits + 1); // acme's total was reused
    expect(await total(globex)).toBe(g + 1);
  });

  it('counts every time for a caller from whom a Deny hides records, so their pages and totals agree', async () => {
    const watcher = await createPerson(t, acme, { lastName: 'Watcher' });
    const hiddenOne = await createPerson(t, acme, { lastName: 'Hidden' });
    await denyRead(t, acme.admin.token, hiddenOne.individualId, watcher.userId);
    const asAdmin = await total(acme); // kept for the site: the watcher's total must not take it
    const res = await t.http().get('/v4/individuals?limit=5000').set('Authorization', bearer(watcher.token)).expect(200);
    expect(Number(res.headers['x-total-count'])).toBe(asAdmin - 1);
    expect((res.body as { ID: string }[]).map((r) => r.ID)).not.toContain(hiddenOne.individualId);
    expect((res.body as unknown[]).length).toBe(asAdmin - 1);
    // A later page (the other statement shape) leaves the hidden record out the same way.
    const later = await t.http().get('/v4/individuals?limit=2&offset=1').set('Authorization', bearer(watcher.token)).expect(200);
    expect(later.body).toEqual((res.body as unknown[]).slice(1, 3));
    expect(Number(later.headers['x-total-count'])).toBe(asAdmin - 1);
  });
});
