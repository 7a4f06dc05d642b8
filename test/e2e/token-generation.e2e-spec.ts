import { bearer, createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';

/**
 * A password change ends the tokens issued before it (docs/identity-and-tenancy.md, "Tokens"):
 * every account carries a token generation, each token the generation it was issued in.
 */
describe(`tokens end at a password change (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const me = (token: string) => t.http().get('/v4/me').set('Authorization', bearer(token));
  const login = (person: TestPerson, password: string) => t.http().post('/v4/auth/token').send({ UserName: person.userName, Password: password });
  const setPassword = async (person: TestPerson, password: string, as: string) => {
    const current = (await t.http().get(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(as))).body as Record<string, unknown>;
    return t
      .http()
      .put(`/v4/individuals/${person.individualId}`)
      .set('Authorization', bearer(as))
      .send({ ...current, Password: password });
  };

  it('ends every earlier token of the person who changed their own password, and only theirs', async () => {
    const person = await createPerson(t, site, { password: 'first-password-1' });
    const other = await createPerson(t, site);
    const second = (await login(person, 'first-password-1')).body.access_token as string;
    expect((await setPassword(person, 'second-password-2', person.token)).status).toBe(200);
    for (const old of [person.token, second]) {
      const res = await me(old);
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('The bearer token was issued before the account’s tokens were ended (password change, logout everywhere); log in again');
    }
    expect((await login(person, 'first-password-1')).status).toBe(401);
    const fresh = await login(person, 'second-password-2');
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).status).toBe(200);
    expect((await me(other.token)).status).toBe(200);
  });

  it('ends them when an administrator sets the password, and not on a change that leaves the password alone', async () => {
    const person = await createPerson(t, site, { password: 'first-password-1' });
    const current = (await t.http().get(`/v4/individuals/${person.individualId}`).set('Authorization', bearer(site.admin.token))).body as Record<
      string,
      unknown
    >;
    // Password null (as read back): the password and the tokens stay.
    const rename = await t
      .http()
      .put(`/v4/individuals/${person.individualId}`)
      .set('Authorization', bearer(site.admin.token))
      .send({ ...current, FirstName: 'Renamed' });
    expect(rename.status).toBe(200);
    expect((await me(person.token)).status).toBe(200);
    expect((await setPassword(person, 'set-by-admin-1', site.admin.token)).status).toBe(200);
    expect((await me(person.token)).status).toBe(401);
    expect((await me(site.admin.token)).status).toBe(200);
    expect((await login(person, 'set-by-admin-1')).status).toBe(200);
  });
});
