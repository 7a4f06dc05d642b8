import { randomUUID } from 'node:crypto';
import type { EntityMetadata } from 'typeorm';
import { RequestContext } from '../../src/common/context/request-context.js';
import { WebhookEntity } from '../../src/database/entities/webhook.entity.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { diffRow, kindOf } from '../../src/database/journal.js';
import { accounts } from '../../src/database/queries/accounts.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { rng, type AuditEntry as Entry } from './history-wire.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import { ROUTE_CASES } from './route-cases.js';
import { buildWorld, unique, World } from '../factories/world.js';

/**
 * The audit trail records every write (docs/audit.md): replaying a site's trail from its first
 * entry gives exactly the rows the site has now — every tenant table, the login accounts whose
 * home it is and the site itself — after a random sequence of writes of the kinds an auditor asks
 * about first (passwords and user names, the site, settings, API tokens, identity providers,
 * webhooks, permissions and memberships). Secrets are only "changed"; a rolled-back write leaves
 * nothing; another site's changes never show.
 */

/** Tables that hold no records: never in the trail. */
const NOT_RECORDS = new Set([
  'webhook-delivery',
  'webhook-delivery-mysql',
  'audit-log',
  'audit-log-mysql',
  'idempotency-key',
  'idempotency-key-mysql',
  // The (issuer, audience) pairs of identity providers: an index of the providers' own fields.
  'identity-provider-audience',
  // Import jobs, their file and failed rows: the work of a file import, as deliveries are a
  // webhook's; the rows an import writes are in the trail, each as the job's creator (docs/imports.md).
  'import-job',
  'import-file-part',
  'import-file-part-mysql',
  'import-error',
]);

/** A value as the trail answers it (docs/audit.md, "Values"). */
const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

describe(`the audit trail replays to the current rows (${DB_KIND})`, () => {
  let t: TestApp;
  let w: World;
  let other: World;

  beforeAll(async () => {
    t = await startApp({ WEBHOOKS: 'off' });
    w = await buildWorld(t, 'Rp');
    other = await buildWorld(t, 'Ot');
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  async function trail(site: World): Promise<Entry[]> {
    const out: Entry[] = [];
    let url: string | null = '/v4/audit?limit=200';
    while (url) {
      const res = await t.http().get(url).set('Authorization', bearer(site.admin.token));
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
      out.push(...(res.body as Entry[]));
      const link = res.headers.link as string | undefined;
      url = link ? /<([^>]+)>/.exec(link)![1] : null;
    }
    return out.reverse();
  }

  /** Every journaled row of the site now, by `kind:id`, as the trail names its fields (secrets left out). */
  async function currentRows(siteId: string): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    for (const meta of t.ds.entityMetadatas as EntityMetadata[]) {
      const kind = kindOf(meta);
      if (NOT_RECORDS.has(kind)) continue;
      const hasSite = meta.columns.some((c) => c.propertyName === 'siteId');
      const rows = (await t.ds.getRepository(meta.target).find({ where: hasSite ? { siteId } : { id: siteId } })) as Record<string, unknown>[];
      for (const row of rows) {
        const fields: Record<string, string> = {};
        for (const c of diffRow(meta, null, row)) if (!c.Secret) fields[c.Field] = text(c.After)!;
        out.set(`${kind}:${String(row.id)}`, fields);
      }
    }
    return out;
  }

  /** The rows the trail says the site has: each record's fields after its last change; hard deletes gone. */
  function replay(entries: Entry[]): Map<string, Record<string, string>> {
    const rows = new Map<string, Record<string, string | null>>();
    for (const e of entries) {
      const key = `${e.Kind}:${e.RowID}`;
      const softDelete = e.Changes.some((c) => c.Field === 'Deleted' && c.After === 'true');
      if (e.Action === 'delete' && !softDelete) {
        rows.delete(key);
        continue;
      }
      const row = rows.get(key) ?? {};
      for (const c of e.Changes) if (!c.Secret) row[c.Field] = c.After;
      rows.set(key, row);
    }
    const out = new Map<string, Record<string, string>>();
    for (const [key, row] of rows) out.set(key, Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)) as Record<string, string>);
    return out;
  }

  it('after a random sequence of writes of accounts, the site, settings, tokens, providers, webhooks, permissions and memberships', async () => {
    const random = rng(2811);
    const call = async (key: string, token = w.admin.token, extra: Record<string, unknown> = {}) => {
      const c = ROUTE_CASES[key];
      const params = { ...(c.params?.(w) ?? {}), ...(c.fresh ? await c.fresh(t, w) : {}) };
      const [method, template] = key.split(' ');
      const path = template.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(params[name]));
      const body = { ...(c.body?.(w, params) ?? {}), ...extra };
      const res = await t.http()[method.toLowerCase() as 'get'](path).set('Authorization', bearer(token)).send(body);
      if (res.status !== 200) throw new Error(`${key}: ${res.status} ${res.text}`);
    };
    const person = (id: string, patch: Record<string, unknown>) =>
      t.http().patch(`/v4/individuals/${id}`).set('Authorization', bearer(w.admin.token)).send(patch).expect(200);
    const ops: (() => Promise<unknown>)[] = [
      () => person(w.peer.individualId, { Password: `pw-${randomUUID()}` }),
      () => person(w.peer.individualId, { UserName: unique('renamed.') }),
      () => person(w.boss.individualId, { UserEmail: `${unique('mail')}@example.com` }),
      async () => {
        // The boss logs in (the last logout ended their tokens) and ends every token of the account.
        const login = await t.http().post('/v4/auth/token').send({ UserName: w.boss.userName, Password: w.boss.password }).expect(200);
        await call('POST /v4/auth/logout-everywhere', login.body.access_token as string);
      },
      () => call('PATCH /v4/sites/:siteid', t.adminToken, { Name: unique('Site ') }),
      () => call('PUT /v4/sites/:siteid', t.adminToken, { PerformanceManagement: true }),
      () => call('PUT /v4/dashboards/settings'),
      () => call('PATCH /v4/dashboards/settings'),
      () => call('POST /v4/apitokens', w.admin.token, { Name: unique('token ') }),
      () => call('DELETE /v4/apitokens/:id'),
      () => call('POST /v4/identityproviders'),
      () => call('PATCH /v4/identityproviders/:id', w.admin.token, { Name: unique('IdP ') }),
      () => call('DELETE /v4/identityproviders/:id'),
      () => call('POST /v4/webhooks'),
      () => call('PATCH /v4/webhooks/:id', w.admin.token, { Description: unique('hook ') }),
      () => call('POST /v4/webhooks/:id/rotate-secret'),
      () => call('DELETE /v4/webhooks/:id'),
      () => call('POST /v4/permissions'),
      () => call('PATCH /v4/permissions/:id'),
      () => call('DELETE /v4/permissions/:id'),
      () => call('POST /v4/departmentmembers'),
      () => call('PATCH /v4/departmentmembers/:id'),
      () => call('DELETE /v4/departmentmembers/:id'),
      () => call('DELETE /v4/securitygroups/:id/members/:individualid'),
      () => call('PUT /v4/securitygroups/:id/members/:individualid'),
    ];
    // Each kind of write at least once, then a random sequence of them.
    for (const op of ops) await op();
    for (let i = 0; i < 30; i++) await ops[Math.floor(random() * ops.length)]();

    const entries = await trail(w);
    const kinds = new Set(entries.map((e) => e.Kind));
    for (const k of [
      'user',
      'site',
      'dashboard-settings',
      'api-token',
      'identity-provider',
      'webhook',
      'permission',
      'organization-member',
      'security-group-member',
    ])
      expect({ kind: k, recorded: kinds.has(k) }).toEqual({ kind: k, recorded: true });

    const replayed = replay(entries);
    const current = await currentRows(w.siteId);
    expect([...replayed.keys()].sort()).toEqual([...current.keys()].sort());
    for (const [key, row] of current) expect({ key, fields: replayed.get(key) }).toEqual({ key, fields: row });
  });

  it('records a password or a secret only as changed, never a value', async () => {
    const password = `pw-${randomUUID()}`;
    await t.http().patch(`/v4/individuals/${w.worker.individualId}`).set('Authorization', bearer(w.admin.token)).send({ Password: password }).expect(200);
    const entries = await trail(w);
    const change = entries
      .filter((e) => e.Kind === 'user')
      .flatMap((e) => e.Changes)
      .filter((c) => c.Field === 'PasswordHash');
    expect(change.length).toBeGreaterThan(0);
    expect(change.every((c) => c.Secret && c.Before === null && c.After === null)).toBe(true);
    const user = await t.ds.getRepository(UserEntity).findOneByOrFail({ id: w.worker.userId });
    const all = JSON.stringify(entries);
    expect(all).not.toContain(password);
    expect(all).not.toContain(user.passwordHash!.split('$').pop()!);
    const hook = await t.ds.getRepository(WebhookEntity).findOneByOrFail({ id: w.ids.webhook });
    expect(all).not.toContain(hook.secret.slice(6));
  });

  it('leaves nothing of a rolled-back write to a login account or a site', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(w.siteId);
    const before = await trail(w);
    const id = randomUUID();
    await expect(
      db.transaction(ctx, async () => {
        await accounts(db, ctx).update(w.boss.userId, { email: 'rolled-back@example.com' });
        await accounts(db, ctx).insert({
          id,
          siteId: w.siteId,
          userName: unique('ghost.'),
          userNameKey: unique('ghost.'),
          email: null,
          passwordHash: null,
          isGlobalAdmin: false,
          created: new Date(),
          updated: new Date(),
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const after = await trail(w);
    expect(after.length).toBe(before.length);
    expect(after[after.length - 1].Seq).toBe(before[before.length - 1].Seq);
    expect(await t.ds.getRepository(UserEntity).countBy({ id })).toBe(0);
    expect((await t.ds.getRepository(UserEntity).findOneByOrFail({ id: w.boss.userId })).email).not.toBe('rolled-back@example.com');
  });

  it('keeps each site’s changes in its own trail, also a global administrator’s change of another site', async () => {
    const name = unique('Other site ');
    await t.http().patch(`/v4/sites/${other.siteId}`).set('Authorization', bearer(t.adminToken)).send({ Name: name }).expect(200);
    await t
      .http()
      .patch(`/v4/individuals/${other.peer.individualId}`)
      .set('Authorization', bearer(other.admin.token))
      .send({ Password: `pw-${randomUUID()}` })
      .expect(200);
    const theirs = await trail(other);
    expect(theirs.some((e) => e.Kind === 'site' && e.RowID === other.siteId && e.Changes.some((c) => c.After === name))).toBe(true);
    const mine = await trail(w);
    const otherIds = new Set((await currentRows(other.siteId)).keys());
    expect(mine.filter((e) => otherIds.has(`${e.Kind}:${e.RowID}`))).toEqual([]);
    expect(JSON.stringify(mine)).not.toContain(name);
    // The global administrator's own site does not hold it either.
    const defaults = await t.http().get(`/v4/audit?kind=site&limit=200`).set('Authorization', bearer(t.adminToken)).expect(200);
    expect((defaults.body as Entry[]).some((e) => e.RowID === other.siteId)).toBe(false);
    // And the other site's replay holds too.
    const replayed = replay(theirs);
    const current = await currentRows(other.siteId);
    expect([...replayed.keys()].sort()).toEqual([...current.keys()].sort());
    for (const [key, row] of current) expect({ key, fields: replayed.get(key) }).toEqual({ key, fields: row });
  });
});
