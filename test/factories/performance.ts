import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { bearer, TestApp } from '../e2e/harness.js';
import { createPerson, createSite, TestPerson, TestSite } from './index.js';

/**
 * A site with a small reporting chain for the rights of list items and projects:
 * boss ← manager ← worker (worker reports to manager, manager to boss), and a peer who reports to
 * nobody (so may not manage the others), plus the site administrator.
 */
export interface TeamSite extends TestSite {
  boss: TestPerson;
  manager: TestPerson;
  worker: TestPerson;
  peer: TestPerson;
}

export async function createTeamSite(t: TestApp, opts: { name?: string; pm?: boolean } = {}): Promise<TeamSite> {
  const site = await createSite(t, opts);
  const boss = await createPerson(t, site, { firstName: 'Bea', lastName: 'Boss' });
  const manager = await createPerson(t, site, { firstName: 'Max', lastName: 'Manager', reportsTo: boss.individualId });
  const worker = await createPerson(t, site, { firstName: 'Wil', lastName: 'Worker', reportsTo: manager.individualId });
  const peer = await createPerson(t, site, { firstName: 'Pia', lastName: 'Peer' });
  return { ...site, boss, manager, worker, peer };
}

/** Marks an individual deleted straight in the data layer (the individuals API is not under test here). */
export async function deleteIndividual(t: TestApp, siteId: string, individualId: string): Promise<void> {
  const repo = t.app.get(TenantDb).repo(RequestContext.system(siteId), IndividualEntity);
  await repo.update(individualId, { deleted: true });
}

/** Creates a project through the API and answers its JSON. */
export async function createProject(
  t: TestApp,
  token: string,
  body: { OwnerID: string; Name?: string } & Record<string, unknown>,
): Promise<{ ID: string } & Record<string, unknown>> {
  const res = await t
    .http()
    .post('/v4/projects')
    .set('Authorization', bearer(token))
    .send({ Name: 'Project', ...body });
  if (res.status !== 200) throw new Error(`project create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Creates a list item of any kind through the API (`path`: accountabilities, evaluationcriteria, …). */
export async function createItem(
  t: TestApp,
  path: string,
  token: string,
  body: { AncestorID: string } & Record<string, unknown>,
): Promise<{ ID: string } & Record<string, unknown>> {
  const res = await t
    .http()
    .post(`/v4/${path}`)
    .set('Authorization', bearer(token))
    .send({ Rank: 1, Name: 'Item', Description: 'About it', ...body });
  if (res.status !== 200) throw new Error(`${path} create failed: ${res.status} ${res.text}`);
  return res.body;
}
