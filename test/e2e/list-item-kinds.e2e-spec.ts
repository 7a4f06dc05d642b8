import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createItem, createProject, createTeamSite, TeamSite } from '../factories/performance.js';

const codec = new WireCodec('urn:pms:v4');
const UNKNOWN = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';

type Item = { ID: string } & Record<string, unknown>;
const names = (body: { Name: string }[]) => body.map((i) => i.Name);

/**
 * Evaluation criteria, supervisory scopes and project scopes: the same rules as accountabilities
 * (covered in full in accountabilities.e2e-spec.ts), at least one test per path of each kind.
 */
describe('ListItem kinds', () => {
  let t: TestApp;
  let acme: TeamSite;
  let globex: TeamSite;
  const as = (p: { token: string }) => bearer(p.token);

  beforeAll(async () => {
    t = await startApp();
    acme = await createTeamSite(t, { name: 'Acme' });
    globex = await createTeamSite(t, { name: 'Globex' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each([
    { path: 'evaluationcriteria', param: 'evaluationcriteriaid' },
    { path: 'supervisoryscopes', param: 'supervisoryscopeid' },
  ])('/v4/$path (owned by an individual)', ({ path, param }) => {
    let items: Item[];
    beforeAll(async () => {
      items = [];
      for (const [Rank, Name] of [
        [2, 'Second'],
        [1, 'First'],
      ] as const) {
        items.push(await createItem(t, path, acme.worker.token, { AncestorID: acme.worker.individualId, Rank, Name }));
      }
    });

    it(`POST /${path} creates an item (JSON and XML) for the individual, their managers and administrators`, async () => {
      const res = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.manager))
        .send({ AncestorID: acme.worker.individualId, Rank: 3, Name: 'By manager', Description: 'D', Deleted: true })
        .expect(200);
      expect(res.body).toMatchObject({ AncestorID: acme.worker.individualId, Rank: 3, Name: 'By manager', Deleted: false, SiteID: acme.siteId });
      const xml = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(
          `<ListItem xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Rank>4</Rank><ID i:nil="true"/><Description/><AncestorID>${acme.worker.individualId}</AncestorID><Name>By admin</Name></ListItem>`,
        )
        .expect(200);
      expect(xml.text).toContain('<ListItem xmlns="urn:pms:v4"');
      expect(await codec.decodeXml(xml.text)).toMatchObject({ Rank: '4', Name: 'By admin', Description: '', AncestorID: acme.worker.individualId });
      for (const extra of [res.body.ID, ((await codec.decodeXml(xml.text)) as Item).ID]) {
        await t.http().delete(`/v4/${path}/${extra}`).set('Authorization', as(acme.admin)).expect(200);
      }
    });

    it(`POST /${path} refuses bad input (400), another site's individual (400) and a peer (403)`, async () => {
      const missing = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.worker))
        .send({ AncestorID: acme.worker.individualId, Rank: 1 })
        .expect(400);
      expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['Description', 'Name']);
      const long = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.worker))
        .send({ AncestorID: acme.worker.individualId, Rank: 1, Name: 'x'.repeat(256), Description: 'D' })
        .expect(400);
      expect(long.body.errors).toEqual([{ field: 'Name', message: 'Name must be at most 255 characters' }]);
      const foreign = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.admin))
        .send({ AncestorID: globex.worker.individualId, Rank: 1, Name: 'N', Description: 'D' })
        .expect(400);
      expect(foreign.body.errors[0].field).toBe('AncestorID');
      const peer = await t
        .http()
        .post(`/v4/${path}`)
        .set('Authorization', as(acme.peer))
        .send({ AncestorID: acme.worker.individualId, Rank: 1, Name: 'N', Description: 'D' })
        .expect(403);
      expect(peer.body.type).toBe('urn:pms:problem:forbidden');
    });

    it(`GET /individuals/{id}/${path} lists by Rank in JSON and XML (List), 403 for a peer, 404 for another site`, async () => {
      const res = await t.http().get(`/v4/individuals/${acme.worker.individualId}/${path}`).set('Authorization', as(acme.boss)).expect(200);
      expect(names(res.body)).toEqual(['First', 'Second']);
      expect(res.headers['x-total-count']).toBe('2');
      const xml = await t
        .http()
        .get(`/v4/individuals/${acme.worker.individualId}/${path}`)
        .set('Authorization', as(acme.worker))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem>/);
      expect(((await codec.decodeXml(xml.text)) as Item[]).map((i) => i.Name)).toEqual(['First', 'Second']);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/${path}`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().get(`/v4/individuals/${globex.worker.individualId}/${path}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/${path}?deleted=5`).set('Authorization', as(acme.admin)).expect(400);
    });

    it(`GET /me/${path} lists the caller's own items, with the deleted filter`, async () => {
      const res = await t.http().get(`/v4/me/${path}`).set('Authorization', as(acme.worker)).expect(200);
      expect(names(res.body)).toEqual(['First', 'Second']);
      const deleted = await t.http().get(`/v4/me/${path}?deleted=1`).set('Authorization', as(acme.worker)).expect(200);
      expect(names(deleted.body)).toEqual(['By manager', 'By admin']);
      expect((await t.http().get(`/v4/me/${path}`).set('Authorization', as(acme.manager)).expect(200)).body).toEqual([]);
    });

    it(`GET /${path}/{id} answers a List of one; 404 for another kind or site`, async () => {
      const res = await t.http().get(`/v4/${path}/${items[0].ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect(res.body).toEqual([items[0]]);
      const xml = await t.http().get(`/v4/${path}/${items[0].ID}`).set('Authorization', as(acme.worker)).set('Accept', 'text/xml').expect(200);
      expect(xml.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem>/);
      const accountability = await createItem(t, 'accountabilities', acme.worker.token, { AncestorID: acme.worker.individualId });
      await t.http().get(`/v4/${path}/${accountability.ID}`).set('Authorization', as(acme.admin)).expect(404);
      const theirs = await createItem(t, path, globex.worker.token, { AncestorID: globex.worker.individualId });
      await t.http().get(`/v4/${path}/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/${path}/${items[0].ID}`).set('Authorization', as(acme.peer)).expect(403);
    });

    it(`GET /individuals/{id}/${path}/{${param}} answers a List of one; 404 for another individual`, async () => {
      const res = await t.http().get(`/v4/individuals/${acme.worker.individualId}/${path}/${items[1].ID}`).set('Authorization', as(acme.manager)).expect(200);
      expect(res.body).toEqual([items[1]]);
      await t.http().get(`/v4/individuals/${acme.manager.individualId}/${path}/${items[1].ID}`).set('Authorization', as(acme.admin)).expect(404);
      await t.http().get(`/v4/individuals/${acme.worker.individualId}/${path}/${UNKNOWN}`).set('Authorization', as(acme.admin)).expect(404);
    });

    it(`PUT /${path}/{id} updates (AncestorID ignored); 403 for a peer; 404 for another site; 409 when deleted`, async () => {
      const item = await createItem(t, path, acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Editable' });
      const res = await t
        .http()
        .put(`/v4/${path}/${item.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ...item, AncestorID: acme.peer.individualId, Name: 'Edited', Rank: 8 })
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'Edited', Rank: 8, AncestorID: acme.worker.individualId });
      await t
        .http()
        .put(`/v4/${path}/${item.ID}`)
        .set('Authorization', as(acme.peer))
        .send({ ID: item.ID, Rank: 1, Name: 'Peer', Description: 'D' })
        .expect(403);
      const theirs = await createItem(t, path, globex.worker.token, { AncestorID: globex.worker.individualId, Name: 'Theirs' });
      await t
        .http()
        .put(`/v4/${path}/${theirs.ID}`)
        .set('Authorization', as(acme.admin))
        .send({ ID: theirs.ID, Rank: 1, Name: 'Mine', Description: 'D' })
        .expect(404);
      expect((await t.http().get(`/v4/${path}/${theirs.ID}`).set('Authorization', as(globex.admin))).body[0].Name).toBe('Theirs');
      await t.http().delete(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const conflict = await t
        .http()
        .put(`/v4/${path}/${item.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ID: item.ID, Rank: 1, Name: 'Again', Description: 'D' })
        .expect(409);
      expect(conflict.body.type).toBe('urn:pms:problem:deleted');
    });

    it(`DELETE /${path}/{id} is idempotent and answers {}; 403 for a peer`, async () => {
      const item = await createItem(t, path, acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Doomed' });
      await t.http().delete(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.peer)).expect(403);
      expect((await t.http().delete(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.worker)).expect(200)).body).toEqual({});
      await t.http().delete(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect((await t.http().get(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.worker))).body[0].Deleted).toBe(true);
      await t.http().delete(`/v4/${path}/${UNKNOWN}`).set('Authorization', as(acme.admin)).expect(404);
    });

    it(`PUT /${path}/{id}/undelete answers a List of the restored item, idempotently; 403 for a peer`, async () => {
      const item = await createItem(t, path, acme.worker.token, { AncestorID: acme.worker.individualId, Name: 'Phoenix' });
      await t.http().delete(`/v4/${path}/${item.ID}`).set('Authorization', as(acme.worker)).expect(200);
      await t.http().put(`/v4/${path}/${item.ID}/undelete`).set('Authorization', as(acme.peer)).expect(403);
      const res = await t.http().put(`/v4/${path}/${item.ID}/undelete`).set('Authorization', as(acme.manager)).set('Accept', 'application/xml').expect(200);
      expect(res.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem>/);
      expect(await codec.decodeXml(res.text)).toEqual([expect.objectContaining({ ID: item.ID, Deleted: 'false' })]);
      const again = await t.http().put(`/v4/${path}/${item.ID}/undelete`).set('Authorization', as(acme.worker)).expect(200);
      expect(again.body).toEqual([expect.objectContaining({ ID: item.ID, Deleted: false })]);
      await t.http().put(`/v4/${path}/${UNKNOWN}/undelete`).set('Authorization', as(acme.admin)).expect(404);
    });
  });

  describe('/v4/projectscopes (owned by a project)', () => {
    let project: Item;
    let second: Item;
    let scopes: Item[];
    beforeAll(async () => {
      project = await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Apollo' });
      second = await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Gemini' });
      scopes = [];
      for (const [Rank, Name] of [
        [2, 'Rollout'],
        [1, 'Design'],
        [2, 'Build'],
      ] as const) {
        scopes.push(await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: project.ID, Rank, Name }));
      }
      await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: second.ID, Rank: 1, Name: 'Launch' });
    });

    it('POST /projectscopes creates a scope for the owner, the owner’s managers and administrators (JSON and XML)', async () => {
      const res = await t
        .http()
        .post('/v4/projectscopes')
        .set('Authorization', as(acme.boss))
        .send({ AncestorID: project.ID, Rank: 9, Name: 'By boss', Description: 'D' })
        .expect(200);
      expect(res.body).toMatchObject({ AncestorID: project.ID, Name: 'By boss', SiteID: acme.siteId });
      const xml = await t
        .http()
        .post('/v4/projectscopes')
        .set('Authorization', as(acme.admin))
        .set('Content-Type', 'application/xml')
        .set('Accept', 'application/xml')
        .send(`<ListItem xmlns="urn:pms:v4"><Name>By admin</Name><AncestorID>${project.ID}</AncestorID><Description>x</Description><Rank>9</Rank></ListItem>`)
        .expect(200);
      expect(await codec.decodeXml(xml.text)).toMatchObject({ AncestorID: project.ID, Name: 'By admin' });
      await t.http().delete(`/v4/projectscopes/${res.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
      await t
        .http()
        .delete(`/v4/projectscopes/${((await codec.decodeXml(xml.text)) as Item).ID}`)
        .set('Authorization', as(acme.admin))
        .expect(200);
    });

    it('POST /projectscopes answers 400 for an individual, another site’s project or a deleted project as AncestorID, 403 for a peer', async () => {
      const theirs = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId });
      const deleted = await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Cancelled' });
      await t.http().delete(`/v4/projects/${deleted.ID}`).set('Authorization', as(acme.worker)).expect(200);
      for (const ancestor of [acme.worker.individualId, theirs.ID, deleted.ID, UNKNOWN]) {
        const res = await t
          .http()
          .post('/v4/projectscopes')
          .set('Authorization', as(acme.admin))
          .send({ AncestorID: ancestor, Rank: 1, Name: 'N', Description: 'D' })
          .expect(400);
        expect(res.body.errors).toEqual([{ field: 'AncestorID', message: expect.stringContaining(ancestor) }]);
      }
      const peer = await t
        .http()
        .post('/v4/projectscopes')
        .set('Authorization', as(acme.peer))
        .send({ AncestorID: project.ID, Rank: 1, Name: 'N', Description: 'D' })
        .expect(403);
      expect(peer.body.type).toBe('urn:pms:problem:forbidden');
    });

    it('GET /projects/{projectid}/projectscopes lists by Rank, then Name for any member (JSON and XML); 404 for unknown or foreign projects', async () => {
      const res = await t.http().get(`/v4/projects/${project.ID}/projectscopes`).set('Authorization', as(acme.peer)).expect(200);
      expect(names(res.body)).toEqual(['Design', 'Build', 'Rollout']);
      const xml = await t
        .http()
        .get(`/v4/projects/${project.ID}/projectscopes`)
        .set('Authorization', as(acme.peer))
        .set('Accept', 'application/xml')
        .expect(200);
      expect(xml.text).toMatch(/<List xmlns="urn:pms:v4"[^>]*><ListItem>/);
      expect(((await codec.decodeXml(xml.text)) as Item[]).map((i) => i.Name)).toEqual(['Design', 'Build', 'Rollout']);
      expect(names((await t.http().get(`/v4/projects/${project.ID}/projectscopes?deleted=1`).set('Authorization', as(acme.peer))).body)).toEqual([
        'By admin',
        'By boss',
      ]);
      await t.http().get(`/v4/projects/${UNKNOWN}/projectscopes`).set('Authorization', as(acme.admin)).expect(404);
      const theirs = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId });
      await t.http().get(`/v4/projects/${theirs.ID}/projectscopes`).set('Authorization', as(acme.admin)).expect(404);
    });

    it('GET /me/projectscopes lists the scopes of every project the caller owns', async () => {
      const res = await t.http().get('/v4/me/projectscopes').set('Authorization', as(acme.worker)).expect(200);
      expect(names(res.body)).toEqual(['Design', 'Launch', 'Build', 'Rollout']);
      expect(res.body.find((i: Item) => i.Name === 'Launch').AncestorID).toBe(second.ID);
      expect((await t.http().get('/v4/me/projectscopes').set('Authorization', as(acme.peer)).expect(200)).body).toEqual([]);
    });

    it('GET /projectscopes/{id} answers a List of one; 404 for another site', async () => {
      const res = await t.http().get(`/v4/projectscopes/${scopes[1].ID}`).set('Authorization', as(acme.peer)).expect(200);
      expect(res.body).toEqual([scopes[1]]);
      const theirProject = await createProject(t, globex.worker.token, { OwnerID: globex.worker.individualId });
      const theirs = await createItem(t, 'projectscopes', globex.worker.token, { AncestorID: theirProject.ID });
      await t.http().get(`/v4/projectscopes/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
    });

    it('GET /projects/{projectid}/projectscopes/{projectscopeid} answers a List of one; 404 for another project', async () => {
      const res = await t.http().get(`/v4/projects/${project.ID}/projectscopes/${scopes[0].ID}`).set('Authorization', as(acme.peer)).expect(200);
      expect(res.body).toEqual([scopes[0]]);
      await t.http().get(`/v4/projects/${second.ID}/projectscopes/${scopes[0].ID}`).set('Authorization', as(acme.peer)).expect(404);
    });

    it('PUT /projectscopes/{id} updates for the owner; 403 for a peer; 409 when deleted', async () => {
      const scope = await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: project.ID, Name: 'Tweak me' });
      const res = await t
        .http()
        .put(`/v4/projectscopes/${scope.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ...scope, AncestorID: second.ID, Name: 'Tweaked' })
        .expect(200);
      expect(res.body).toMatchObject({ Name: 'Tweaked', AncestorID: project.ID });
      await t
        .http()
        .put(`/v4/projectscopes/${scope.ID}`)
        .set('Authorization', as(acme.peer))
        .send({ ...scope, Name: 'Peer' })
        .expect(403);
      await t.http().delete(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.worker)).expect(200);
      await t
        .http()
        .put(`/v4/projectscopes/${scope.ID}`)
        .set('Authorization', as(acme.worker))
        .send({ ...scope, Name: 'Late' })
        .expect(409);
    });

    it('DELETE /projectscopes/{id} is idempotent; 403 for a peer', async () => {
      const scope = await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: project.ID, Name: 'Drop me' });
      await t.http().delete(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.peer)).expect(403);
      expect((await t.http().delete(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.manager)).expect(200)).body).toEqual({});
      await t.http().delete(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.manager)).expect(200);
    });

    it('PUT /projectscopes/{id}/undelete restores a scope, but 409 for one taken down with its project', async () => {
      const own = await createProject(t, acme.worker.token, { OwnerID: acme.worker.individualId, Name: 'Mercury' });
      const scope = await createItem(t, 'projectscopes', acme.worker.token, { AncestorID: own.ID, Name: 'Orbit' });
      await t.http().delete(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const res = await t.http().put(`/v4/projectscopes/${scope.ID}/undelete`).set('Authorization', as(acme.worker)).expect(200);
      expect(res.body).toEqual([expect.objectContaining({ ID: scope.ID, Deleted: false })]);
      await t.http().put(`/v4/projectscopes/${scope.ID}/undelete`).set('Authorization', as(acme.peer)).expect(403);
      await t.http().delete(`/v4/projects/${own.ID}`).set('Authorization', as(acme.worker)).expect(200);
      const byRef = await t.http().get(`/v4/projectscopes/${scope.ID}`).set('Authorization', as(acme.worker)).expect(200);
      expect(byRef.body[0]).toMatchObject({ Deleted: true, DeletedByRef: true });
      const conflict = await t.http().put(`/v4/projectscopes/${scope.ID}/undelete`).set('Authorization', as(acme.worker)).expect(409);
      expect(conflict.body.type).toBe('urn:pms:problem:deleted');
    });
  });
});
