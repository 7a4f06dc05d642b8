import { WebhookDeliveryEntity, WebhookDeliveryMysqlEntity } from '../../src/database/entities/webhook-delivery.entity.js';
import { logDelivery } from '../../src/modules/webhooks/outbox.statements.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { IdempotencyStore } from '../../src/database/idempotency-store.js';
import { IdempotencyKeyEntity, IdempotencyKeyMysqlEntity } from '../../src/database/entities/idempotency-key.entity.js';
import { DeliveryRetention } from '../../src/modules/webhooks/delivery-retention.js';
import { AUDIT_MAX_LIMIT } from '../../src/modules/audit/dto/audit.dto.js';
import { createSite, type TestSite } from '../factories/index.js';
import { bearer, startApp, type TestApp } from '../e2e/harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Issue 46, rows 10 and 12: what one site can make the service keep or compute for it is bounded —
 * the webhook delivery log is pruned after WEBHOOK_DELIVERY_RETENTION_DAYS, and the audit trail is
 * read in pages of at most 200 entries whose `offset` is honoured (docs/security.md, "Bounded growth").
 */
describe('attack: growing what the service keeps or renders', () => {
  let t: TestApp;
  let site: TestSite;
  const as = () => ({ Authorization: bearer(site.admin.token) });

  beforeAll(async () => {
    t = await startApp({ EGRESS_ALLOW_PRIVATE: 'true', WEBHOOKS: 'off', WEBHOOK_DELIVERY_RETENTION_DAYS: '30', IDEMPOTENCY_MAX_KEYS_PER_CALLER: '3' });
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('row 10: prunes delivery attempts older than the retention, and keeps the others', async () => {
    const hook = (await t.http().post('/v4/webhooks').set(as()).send({ URL: 'https://hooks.example.com/x', EventTypes: '*' }).expect(200)).body.ID as string;
    const db = t.app.get(TenantDb);
    const attempt = (i: number) =>
      logDelivery(db, {
        webhookId: hook,
        siteId: site.siteId,
        eventId: `msg_${i}`,
        eventType: 'webhook.ping',
        seq: 0,
        attempt: 1,
        status: 'failed',
        responseCode: 500,
        durationMs: 1,
        error: 'the receiver answered 500',
        payload: '{}',
      });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await attempt(i));
    const deliveries = t.ds.getRepository(db.isSqlite ? WebhookDeliveryEntity : WebhookDeliveryMysqlEntity);
    const old = new Date(Date.now() - 31 * 24 * 3600_000);
    for (const id of ids.slice(0, 3)) await deliveries.update({ id }, { created: old });
    expect(await t.app.get(DeliveryRetention).prune()).toBe(3);
    expect((await deliveries.findBy({ webhookId: hook })).map((d) => d.id).sort()).toEqual(ids.slice(3).sort());
    const log = (await t.http().get(`/v4/webhooks/${hook}/deliveries`).set(as()).expect(200)).body as unknown[];
    expect(log).toHaveLength(2);
  });

  it('row 12: refuses an audit page over 200, honours offset, and continues the next page with the cursor', async () => {
    for (let i = 0; i < 6; i++)
      await t
        .http()
        .post('/v4/corevalues')
        .set(as())
        .send({ Name: `Value ${i}` })
        .expect(200);
    for (const path of ['/v4/audit?limit=5000', `/v4/audit?limit=${AUDIT_MAX_LIMIT + 1}`, '/v4/audit?offset=-1', '/v4/audit?offset=10001']) {
      const res = await t.http().get(path).set(as()).set('Accept', 'application/xml');
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
    }
    const all = (await t.http().get('/v4/audit?kind=core-value').set(as()).expect(200)).body as { Seq: number }[];
    expect(all.length).toBe(6);
    const skipped = await t.http().get('/v4/audit?kind=core-value&offset=2&limit=2').set(as()).expect(200);
    expect(skipped.body.map((e: { Seq: number }) => e.Seq)).toEqual(all.slice(2, 4).map((e) => e.Seq));
    const next = /<([^>]+)>; rel="next"/.exec(String(skipped.headers.link))![1];
    expect(next).toContain(`before=${all[3].Seq}`);
    expect(next).toContain('offset=0');
    const rest = await t.http().get(next).set(as()).expect(200);
    expect(rest.body.map((e: { Seq: number }) => e.Seq)).toEqual(all.slice(4, 6).map((e) => e.Seq));
  });

  it('row 8: keeps at most IDEMPOTENCY_MAX_KEYS_PER_CALLER keys of a caller: the sweep forgets the oldest, the newest still replay', async () => {
    const post = (key: string, i: number) =>
      t
        .http()
        .post('/v4/corevalues')
        .set(as())
        .set('Idempotency-Key', key)
        .send({ Name: `Keyed ${i}` });
    const keys = ['k-1', 'k-2', 'k-3', 'k-4', 'k-5'];
    for (const [i, key] of keys.entries()) {
      await post(key, i).expect(200);
      await sleep(5);
    }
    const other = await createSite(t);
    await t.http().post('/v4/corevalues').set('Authorization', bearer(other.admin.token)).set('Idempotency-Key', 'k-1').send({ Name: 'Other' }).expect(200);
    const table = t.ds.getRepository(t.app.get(TenantDb).isSqlite ? IdempotencyKeyEntity : IdempotencyKeyMysqlEntity);
    expect(await table.countBy({ siteId: site.siteId, userId: site.admin.userId })).toBe(5);
    expect(await t.app.get(IdempotencyStore).sweep()).toBe(2);
    expect((await table.findBy({ siteId: site.siteId, userId: site.admin.userId })).length).toBe(3);
    // Another caller's keys are theirs: untouched.
    expect(await table.countBy({ siteId: other.siteId })).toBe(1);
    const replay = await post('k-5', 4).expect(200);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    const again = await post('k-1', 0).expect(200);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
  });
});
