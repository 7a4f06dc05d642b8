import { bearer, countStatements, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

/**
 * GET /v4/individuals/{id} reads the record, its decorations and the caller's CanUpdate in one
 * statement: the first eight managers above the record come with it, a deeper chain costs one
 * more query. The answer is the same either way.
 */
describe('GET /v4/individuals/{id}: CanUpdate along a deep reporting chain', () => {
  let t: TestApp;
  let site: TestSite;
  const chain: TestPerson[] = [];
  let outsider: TestPerson;

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    for (let k = 0; k < 12; k++) chain.push(await createPerson(t, site, { reportsTo: k === 0 ? null : chain[k - 1].individualId }));
    outsider = await createPerson(t, site, { reportsTo: chain[0].individualId });
  });
  afterAll(() => t?.close());

  async function read(reader: TestPerson, target: TestPerson): Promise<{ canUpdate: boolean; statements: number }> {
    await t.http().get('/v4/me').set('Authorization', bearer(reader.token)).expect(200); // caller cached
    const { result: res, statements } = await countStatements(t, () =>
      t.http().get(`/v4/individuals/${target.individualId}`).set('Authorization', bearer(reader.token)).expect(200),
    );
    return { canUpdate: res.body.CanUpdate as boolean, statements };
  }

  it('lets every manager above update, however far up, and nobody beside or below', async () => {
    const bottom = chain[11];
    expect(await read(chain[10], bottom)).toEqual({ canUpdate: true, statements: 1 });
    expect(await read(chain[3], bottom)).toEqual({ canUpdate: true, statements: 1 }); // 8 levels up
    expect(await read(chain[2], bottom)).toEqual({ canUpdate: true, statements: 2 }); // 9 levels up
    expect(await read(chain[0], bottom)).toEqual({ canUpdate: true, statements: 2 });
    expect((await read(outsider, bottom)).canUpdate).toBe(false);
    expect((await read(bottom, chain[0])).canUpdate).toBe(false);
    expect(await read(bottom, bottom)).toEqual({ canUpdate: true, statements: 1 });
    expect(await read(chain[5], chain[6])).toEqual({ canUpdate: true, statements: 1 });
    expect((await read(chain[6], chain[5])).canUpdate).toBe(false);
  });

  it('answers the same as the page of individuals does', async () => {
    for (const reader of [chain[0], chain[4], outsider]) {
      const page = (await t.http().get('/v4/individuals?limit=100').set('Authorization', bearer(reader.token)).expect(200)).body as {
        ID: string;
        CanUpdate: boolean;
      }[];
      for (const target of [...chain, outsider]) {
        const single = await t.http().get(`/v4/individuals/${target.individualId}`).set('Authorization', bearer(reader.token)).expect(200);
        const listed = page.find((r) => r.ID === target.individualId)!;
        expect({ target: target.individualId, single: single.body }).toEqual({ target: target.individualId, single: listed });
      }
    }
  });
});
