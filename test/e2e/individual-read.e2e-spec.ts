import { bearer, countStatements, NO_BACKGROUND_ROUNDS, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

/**
 * GET /v4/individuals/{id} reads the record, its decorations and the caller's CanUpdate in one
 * statement. A manager's reports (everyone below them) are kept with the caller for
 * CALLER_CACHE_MS (docs/authorization.md, "Managers' reads"), so the statement needs no chain.
 * Without them (CALLER_CACHE_MS=0, or a manager of more than 5,000), the first eight managers
 * above the record come with the record, and a deeper chain costs one more query. The answer is the
 * same either way.
 */
describe.each<{ name: string; env: Record<string, string>; kept: boolean }>([
  { name: 'reports kept with the caller', env: {}, kept: true },
  { name: 'CALLER_CACHE_MS=0: the manager chain joined', env: { CALLER_CACHE_MS: '0' }, kept: false },
])('GET /v4/individuals/{id}: CanUpdate along a deep reporting chain ($name)', ({ env, kept }) => {
  let t: TestApp;
  let site: TestSite;
  const chain: TestPerson[] = [];
  let outsider: TestPerson;
  /** Statements a request spends on its caller (none while the caller is kept). */
  let callerStatements = 0;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS, ...env });
    site = await createSite(t);
    chain.length = 0;
    for (let k = 0; k < 12; k++) chain.push(await createPerson(t, site, { reportsTo: k === 0 ? null : chain[k - 1].individualId }));
    outsider = await createPerson(t, site, { reportsTo: chain[0].individualId });
    // Reading oneself takes the caller's statements and the one read.
    const { statements } = await countStatements(t, () => t.http().get('/v4/me').set('Authorization', bearer(outsider.token)).expect(200));
    callerStatements = kept ? 0 : statements - 1;
    if (kept) await t.http().get('/v4/me').set('Authorization', bearer(outsider.token)).expect(200);
  });
  afterAll(() => t?.close());

  /** CanUpdate, and the statements of the read beyond the caller's. */
  async function read(reader: TestPerson, target: TestPerson): Promise<{ canUpdate: boolean; statements: number }> {
    await t.http().get('/v4/me').set('Authorization', bearer(reader.token)).expect(200); // caller (and reports) kept
    const { result: res, statements } = await countStatements(t, () =>
      t.http().get(`/v4/individuals/${target.individualId}`).set('Authorization', bearer(reader.token)).expect(200),
    );
    return { canUpdate: res.body.CanUpdate as boolean, statements: statements - callerStatements };
  }

  it('lets every manager above update, however far up, and nobody beside or below', async () => {
    const bottom = chain[11];
    // With the reports kept every read is one statement; with the chain joined, a manager more
    // than eight levels up costs a second one.
    const deep = kept ? 1 : 2;
    expect(await read(chain[10], bottom)).toEqual({ canUpdate: true, statements: 1 });
    expect(await read(chain[3], bottom)).toEqual({ canUpdate: true, statements: 1 }); // 8 levels up
    expect(await read(chain[2], bottom)).toEqual({ canUpdate: true, statements: deep }); // 9 levels up
    expect(await read(chain[0], bottom)).toEqual({ canUpdate: true, statements: deep });
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

  it('shows a change of reporting line made through the API on the very next read', async () => {
    const admin = bearer(site.admin.token);
    const mover = chain[11];
    expect((await read(outsider, mover)).canUpdate).toBe(false);
    const current = (await t.http().get(`/v4/individuals/${mover.individualId}`).set('Authorization', admin).expect(200)).body as Record<string, unknown>;
    await t
      .http()
      .put(`/v4/individuals/${mover.individualId}`)
      .set('Authorization', admin)
      .send({ ...current, PrimaryReportsTo: outsider.individualId })
      .expect(200);
    try {
      expect((await read(outsider, mover)).canUpdate).toBe(true);
      expect((await read(chain[10], mover)).canUpdate).toBe(false);
    } finally {
      await t
        .http()
        .put(`/v4/individuals/${mover.individualId}`)
        .set('Authorization', admin)
        .send({ ...current, PrimaryReportsTo: chain[10].individualId })
        .expect(200);
    }
    expect((await read(chain[10], mover)).canUpdate).toBe(true);
  });
});
