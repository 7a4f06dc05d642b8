import { randomUUID } from 'node:crypto';
import { apiTokenHash, apiTokenHint, newApiTokenSecret } from '../../src/auth/api-token.js';
import { ApiTokenEntity } from '../../src/database/entities/api-token.entity.js';
import { WebhookEntity } from '../../src/database/entities/webhook.entity.js';
import { createSite, type TestSite } from '../factories/index.js';
import { bearer, startApp, type TestApp, WireCodec } from '../e2e/harness.js';

/**
 * Issue 46, rows 5 and 6: secrets are write-only — a webhook's signing secret is shown once, in
 * the answer of its create and of its rotation, and in no read, list, sync, history, audit or XML
 * answer, to no caller — and credential collections are not served through delta sync, whatever
 * the token's scopes (docs/security.md, "Secrets").
 */
const NS = 'urn:pms:v4';

describe('attack: reading secrets back', () => {
  let t: TestApp;
  let site: TestSite;
  let hookId: string;
  let secret: string;
  const tokens: Record<string, string> = {};
  const as = (token: string) => ({ Authorization: bearer(token) });

  beforeAll(async () => {
    t = await startApp({ EGRESS_ALLOW_PRIVATE: 'true', WEBHOOKS: 'off' });
    site = await createSite(t);
    const created = await t.http().post('/v4/webhooks').set(as(site.admin.token)).send({ URL: 'https://hooks.example.com/pms', EventTypes: '*' }).expect(200);
    hookId = created.body.ID;
    secret = created.body.Secret;
    for (const scopes of ['webhooks:read', '*:read', '*:write', 'webhooks:write']) {
      tokens[scopes] = (await t.http().post('/v4/apitokens').set(as(site.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body.Secret;
    }
    // A token made before sync needed the collection's own scope (a new one with `sync:read` is refused).
    await t.http().post('/v4/apitokens').set(as(site.admin.token)).send({ Name: 'sync', Scopes: 'sync:read' }).expect(400);
    tokens['sync:read'] = newApiTokenSecret();
    const now = new Date();
    await t.ds.getRepository(ApiTokenEntity).insert({
      id: randomUUID(),
      siteId: site.siteId,
      name: 'old sync token',
      scopes: 'sync:read',
      hint: apiTokenHint(tokens['sync:read']),
      secretHash: apiTokenHash(tokens['sync:read']),
      expires: null,
      revoked: null,
      lastUsed: null,
      created: now,
      updated: now,
      createdBy: null,
      updatedBy: null,
      version: 1,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every answer that could carry the webhook, as each caller that may read it, in JSON and XML. */
  async function answers(token: string): Promise<{ what: string; status: number; text: string }[]> {
    const out: { what: string; status: number; text: string }[] = [];
    for (const path of [
      `/v4/webhooks/${hookId}`,
      '/v4/webhooks',
      '/v4/webhooks?updatedSince=seq-0',
      '/v4/sync/webhooks?updatedSince=seq-0',
      `/v4/webhooks/${hookId}/history`,
      `/v4/audit?rowid=${hookId}`,
      `/v4/audit?filter=${encodeURIComponent(`RowID eq "${hookId}"`)}&fields=Seq,Changes`,
      '/v4/audit',
    ]) {
      for (const accept of ['application/json', 'application/xml']) {
        const res = await t.http().get(path).set(as(token)).set('Accept', accept);
        out.push({ what: `${path} (${accept})`, status: res.status, text: res.text });
      }
    }
    return out;
  }

  it('row 5: shows the secret once at create, and in no read, list, sync, history, audit or XML answer, to any caller', async () => {
    expect(secret).toMatch(/^whsec_/);
    const stored = await t.ds.getRepository(WebhookEntity).findOneByOrFail({ id: hookId });
    expect(stored.secret).toBe(secret);
    const core = secret.slice('whsec_'.length);
    let readable = 0;
    for (const token of [site.admin.token, tokens['webhooks:read'], tokens['sync:read'], tokens['*:read'], tokens['webhooks:write']]) {
      for (const a of await answers(token)) {
        expect({ what: a.what, leaks: a.text.includes(core) }).toEqual({ what: a.what, leaks: false });
        if (a.status === 200) readable++;
      }
    }
    // The reads that succeed do answer the webhook (so the check above looked at real answers).
    expect(readable).toBeGreaterThanOrEqual(12);
    const one = await t.http().get(`/v4/webhooks/${hookId}`).set(as(site.admin.token)).expect(200);
    expect(one.body).toMatchObject({ ID: hookId, Secret: null });
    const xml = await t.http().get(`/v4/webhooks/${hookId}`).set(as(site.admin.token)).set('Accept', 'application/xml').expect(200);
    expect(xml.text).toContain('<Secret i:nil="true"/>');
  });

  it('row 5: shows the new secret once at rotation, and a .NET client sending the record back keeps it', async () => {
    const rotated = await t.http().post(`/v4/webhooks/${hookId}/rotate-secret`).set(as(site.admin.token)).expect(200);
    expect(rotated.body.Secret).toMatch(/^whsec_/);
    expect(rotated.body.Secret).not.toBe(secret);
    const read = await t.http().get(`/v4/webhooks/${hookId}`).set(as(site.admin.token)).set('Accept', 'application/xml').expect(200);
    // A DataContractSerializer client PUTs back what it read: Secret i:nil keeps the secret.
    const back = await t.http().put(`/v4/webhooks/${hookId}`).set(as(site.admin.token)).set('Content-Type', 'application/xml').send(read.text).expect(200);
    expect(back.body.Secret).toBeNull();
    expect((await t.ds.getRepository(WebhookEntity).findOneByOrFail({ id: hookId })).secret).toBe(rotated.body.Secret);
    const decoded = (await new WireCodec(NS).decodeXml(read.text)) as Record<string, unknown>;
    expect(decoded.Secret ?? null).toBeNull();
  });

  it('row 6: serves no credential collection through sync, whatever the token’s scopes, and sync needs the collection’s own read scope', async () => {
    for (const kind of ['apitokens', 'identityproviders', 'webhooks']) {
      for (const token of [tokens['*:read'], tokens['*:write'], tokens['sync:read']]) {
        const res = await t.http().get(`/v4/sync/${kind}?updatedSince=seq-0`).set(as(token));
        expect({ kind, status: res.status }).toEqual({ kind, status: kind === 'webhooks' && token !== tokens['sync:read'] ? 404 : 403 });
      }
      expect((await t.http().get(`/v4/sync/${kind}?updatedSince=seq-0`).set(as(site.admin.token))).status).toBe(404);
    }
    // sync:read alone no longer reads a collection; the collection's read scope does.
    expect((await t.http().get('/v4/sync/individuals?updatedSince=seq-0').set(as(tokens['sync:read']))).status).toBe(403);
    expect((await t.http().get('/v4/sync/individuals?updatedSince=seq-0').set(as(tokens['*:read']))).status).toBe(200);
    expect((await t.http().get('/v4/sync/individuals?updatedSince=seq-0').set(as(tokens['webhooks:read']))).status).toBe(403);
    // Nor as changes of their lists.
    for (const path of ['/v4/apitokens?updatedSince=seq-0', '/v4/identityproviders?updatedSince=seq-0', '/v4/webhooks?updatedSince=seq-0'])
      expect((await t.http().get(path).set(as(site.admin.token))).status).toBe(400);
  });
});
