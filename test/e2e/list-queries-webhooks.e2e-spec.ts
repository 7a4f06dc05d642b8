import { RequestContext } from '../../src/common/context/request-context.js';
import { WebhookEntity } from '../../src/database/entities/webhook.entity.js';
import { WebhookDeliveryEntity } from '../../src/database/entities/webhook-delivery.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Webhook, WebhookDelivery } from '../../src/modules/webhooks/dto/webhook.dto.js';
import { WebhookEvents } from '../../src/modules/webhooks/webhook-events.js';
import { newSecret } from '../../src/modules/webhooks/signing.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectSorts,
  expectRefusedUncounted,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the webhook lists (docs/queries.md): the site's
 * webhooks (`GET /v4/webhooks`) and a webhook's delivery log (`GET /v4/webhooks/{id}/deliveries`),
 * administrators only. Every operator on every filterable field (guid, bool, string, date) against
 * the same filter in JavaScript, in JSON and XML; another webhook's and another site's records
 * before the filter and the total; the roles; the signing secrets, which no filter, sort, field
 * selection or export reads; keyset paging while others insert and delete; the CSV export; 400
 * problems.
 */
const TYPES = ['individual.updated', 'dialog.held', 'task.completed', 'webhook.ping'];

describe(`list queries on webhooks and their deliveries (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  /** A token with webhooks:read (an integration acts as an administrator within its scopes), and one without. */
  let reader: string;
  let stranger: string;
  /** The webhook whose log is listed, another of the site, and one of another site. */
  let hook: string;
  let sibling: string;
  let theirs: string;
  /** The site's webhooks and the log of `hook`, as the administrator reads them. */
  let webhooks: Json[];
  let log: Json[];
  /** Every signing secret written (current and previous). */
  const secrets: string[] = [];
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const deliveries = () => `/v4/webhooks/${hook}/deliveries`;
  const hooks = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), WebhookEntity);
  const attempts = (siteId = acme.siteId) =>
    t.app.get(TenantDb).repo(RequestContext.system(siteId), t.app.get(WebhookEvents).deliveryEntity as typeof WebhookDeliveryEntity);
  const webhook = (i: number): Partial<WebhookEntity> => {
    const secret = newSecret();
    const previous = i % 3 === 0 ? newSecret() : null;
    secrets.push(secret, ...(previous ? [previous] : []));
    return {
      url: `https://hooks.example.test/${i}`,
      // No test here commits a period.closed: the dispatcher sends these hooks nothing.
      eventTypes: 'period.closed',
      secret,
      previousSecret: previous,
      previousSecretExpires: previous ? new Date(Date.UTC(2030, 0, 1)) : null,
      description: i % 4 ? `Sync ${i}` : null,
      active: i % 3 !== 1,
    };
  };
  const attempt = (webhookId: string, i: number, created: Date) => ({
    webhookId,
    eventId: `msg_${Math.floor(i / 3)}`,
    eventType: TYPES[i % TYPES.length],
    seq: i,
    attempt: (i % 3) + 1,
    status: i % 3 === 2 ? 'delivered' : 'failed',
    responseCode: i % 3 === 2 ? 200 : i % 2 ? 500 : null,
    durationMs: 10 * i,
    error: i % 3 === 2 ? null : 'HTTP 500',
    payload: `{"n":${i}}`,
    created,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    const token = async (scopes: string) =>
      (await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body
        .Secret as string;
    reader = await token('webhooks:read');
    stranger = await token('individuals:read');
    for (let i = 0; i < 14; i++) {
      const id = (await hooks().insert(webhook(i))).id;
      // Created spread over 2025, two webhooks at each instant (the ID orders them).
      await t.ds.getRepository(WebhookEntity).update({ id }, { created: new Date(Date.UTC(2025, Math.floor(i / 2), 1 + i)) });
      if (i === 0) hook = id;
      if (i === 1) sibling = id;
    }
    for (let i = 0; i < 3; i++) elsewhere.push((await hooks(globex.siteId).insert(webhook(100 + i))).id);
    theirs = elsewhere[0];
    // The log: three attempts at each instant (Attempt orders them, then the ID), another webhook's and another site's.
    for (let i = 0; i < 30; i++) await attempts().insert(attempt(hook, i, new Date(Date.UTC(2025, 5, 1, 0, Math.floor(i / 3)))) as never);
    for (let i = 0; i < 4; i++) elsewhere.push((await attempts().insert(attempt(sibling, i, new Date(Date.UTC(2025, 5, 2))) as never)).id);
    for (let i = 0; i < 4; i++) elsewhere.push((await attempts(globex.siteId).insert(attempt(theirs, i, new Date(Date.UTC(2025, 5, 2))) as never)).id);
    webhooks = (await get('/v4/webhooks?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(webhooks.length).toBe(14);
    log = (await get(`${deliveries()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(log.length).toBe(30);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field as JavaScript does, in JSON and XML, with its total', async () => {
    for (const [resource, list, rows, element, kinds] of [
      [Webhook, '/v4/webhooks?limit=5000', webhooks, 'Webhook', ['bool', 'date', 'guid']],
      [WebhookDelivery, `${deliveries()}?limit=5000`, log, 'WebhookDelivery', ['dateTimeOffset', 'guid', 'string']],
    ] as const) {
      const filterable = [...resource.queryable.values()].filter((f) => f.filter);
      expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(kinds);
      const cases: Case[] = grammarCases(resource.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      if (resource === WebhookDelivery)
        cases.push(
          { filter: 'Status eq "FAILED" and not (EventType sw "dialog")', pred: (r) => r.Status === 'failed' && !String(r.EventType).startsWith('dialog') },
          {
            filter: '(EventID eq "msg_2" or EventID eq "msg_7") and Status ne "delivered"',
            pred: (r) => ['msg_2', 'msg_7'].includes(r.EventID as string) && r.Status !== 'delivered',
          },
        );
      else
        cases.push({
          filter: 'Active eq false or Created ge "2025-05-01"',
          pred: (r) => r.Active === false || new Date(r.Created as string) >= new Date('2025-05-01'),
        });
      await expectFilterCases(as(acme.admin.token), [list], cases, rows, element);
    }
    // An integration token with webhooks:read answers the same.
    const res = await get(`/v4/webhooks?filter=${q('Active eq true')}`, reader).expect(200);
    expect(ids(res.body as Json[])).toEqual(ids(webhooks.filter((r) => r.Active === true)));
  });

  it('is for administrators (and tokens with webhooks:read): others are refused whatever the filter, by offset or by cursor', async () => {
    const paths = ['/v4/webhooks?filter=' + q('Active eq true'), `${deliveries()}?cursor=start&filter=${q('Status eq "failed"')}`];
    await expectRefusedUncounted(t, paths, [
      ['member', member.token],
      ['token without webhooks:read', stranger],
    ]);
    for (const path of paths) {
      const ok = await get(path, reader);
      expect({ path, status: ok.status }).toEqual({ path, status: 200 });
    }
    await t.http().get('/v4/webhooks').set('Authorization', bearer(member.token)).set('Accept', 'text/csv').expect(403);
  });

  it('never finds another site’s webhooks, nor another webhook’s or another site’s deliveries', async () => {
    for (const id of elsewhere) {
      for (const list of ['/v4/webhooks', deliveries()]) {
        const res = await get(`${list}?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    // Another site's webhook's log is 404 however asked; a webhook's log holds only its own attempts.
    await get(`/v4/webhooks/${theirs}/deliveries?filter=${q('Status pr')}`, acme.admin.token).expect(404);
    await get(`/v4/webhooks/${theirs}/deliveries?cursor=start`, acme.admin.token).expect(404);
    const own = await get(`/v4/webhooks/${sibling}/deliveries?filter=${q('Seq pr')}`, acme.admin.token);
    expect(own.status).toBe(400);
    const sib = await get(`/v4/webhooks/${sibling}/deliveries?filter=${q('EventID eq "msg_0"')}`, acme.admin.token).expect(200);
    expect({ n: (sib.body as Json[]).length, total: sib.headers['x-total-count'] }).toEqual({ n: 3, total: '3' });
  });

  it('no filter, sort, field selection or export reads or probes a signing secret', async () => {
    expect(secrets.length).toBeGreaterThan(14);
    const bad: [string, string, RegExp][] = [];
    for (const name of ['Secret', 'secret', 'PreviousSecret', 'previous_secret'])
      bad.push(
        [`filter=${name} sw "whsec_"`, 'filter', new RegExp(`Unknown field ${name} \\(filterable: ID, Active, Created\\)`)],
        [`filter=${name} pr`, 'filter', new RegExp(`Unknown field ${name}`)],
        [`sort=${name}`, 'sort', new RegExp(`Unknown field ${name} \\(sortable: Created\\)`)],
      );
    bad.push(['fields=ID,PreviousSecret', 'fields', /Unknown field PreviousSecret/]);
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/webhooks'], bad);
    // Secret may be named in fields= (it is a member), and is null: in JSON, XML and every export.
    const asked = (await get('/v4/webhooks?fields=Secret,PreviousSecretExpires&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(asked.map((r) => Object.keys(r))).toEqual(webhooks.map(() => ['ID', 'Secret', 'PreviousSecretExpires']));
    expect(asked.every((r) => r.Secret === null)).toBe(true);
    const answers = [
      JSON.stringify(asked),
      (await get('/v4/webhooks?fields=Secret&limit=5000', acme.admin.token, true).expect(200)).text,
      (await get(`/v4/webhooks?sort=-Created&filter=${q('Active pr')}`, acme.admin.token).expect(200)).text,
    ];
    answers.push(...(await exportTexts(t, '/v4/webhooks?fields=Secret', acme.admin.token)));
    for (const text of answers) for (const s of secrets) expect(text.includes(s) || text.includes(s.slice(6, 30))).toBe(false);
  });

  it('sorts by Created (the log: then Attempt), in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => new Date(v as string).getTime();
    // Without sort=, a queried list keeps the plain list's order.
    expect(ids((await get(`/v4/webhooks?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[])).toEqual(ids(webhooks));
    expect(ids((await get(`${deliveries()}?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[])).toEqual(ids(log));
    const byCreated = (a: Json, b: Json) => cmp(time(a.Created), time(b.Created)) || cmp(a.ID, b.ID);
    expect(ids(webhooks)).toEqual(ids([...webhooks].sort(byCreated)));
    await expectSorts(
      as(acme.admin.token),
      '/v4/webhooks?limit=5000',
      webhooks,
      [
        ['Created', byCreated],
        ['-Created', (a, b) => -byCreated(a, b)],
      ],
      'Webhook',
    );
    const byAttempt = (a: Json, b: Json) => cmp(time(a.Created), time(b.Created)) || cmp(a.Attempt, b.Attempt) || cmp(a.ID, b.ID);
    expect(ids(log)).toEqual(ids([...log].sort((a, b) => -byAttempt(a, b))));
    await expectSorts(
      as(acme.admin.token),
      `${deliveries()}?limit=5000`,
      log,
      [
        ['Created', byAttempt],
        ['-Created', (a, b) => -byAttempt(a, b)],
      ],
      'WebhookDelivery',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/webhooks',
      webhooks,
      'Webhook',
      ['active,URL', ['ID', 'URL', 'Active']],
      ['URL,Active', ['Active', 'ID', 'URL']],
    );
    await expectFields(
      as(acme.admin.token),
      deliveries(),
      log,
      'WebhookDelivery',
      ['status,eventid,Created', ['ID', 'EventID', 'Status', 'Created']],
      ['Status,Attempt', ['Attempt', 'ID', 'Status']],
    );
  });

  it('exports the same records as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/webhooks?sort=-Created&filter=${q('Active eq true')}`, acme.admin.token, 'webhooks')).toBe(
      webhooks.filter((r) => r.Active === true).length,
    );
    expect(await expectCsvLikeJson(t, `${deliveries()}?filter=${q('Status eq "failed"')}`, acme.admin.token, 'deliveries')).toBe(
      log.filter((r) => r.Status === 'failed').length,
    );
    expect(await expectCsvLikeJson(t, `${deliveries()}?fields=EventType,Payload`, reader, 'deliveries')).toBe(log.length);
  });

  it('pages with a cursor while others insert and delete: every record present throughout exactly once', async () => {
    const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `/v4/webhooks?limit=4&cursor=start&filter=${q(`Created ge "${since}"`)}`,
      sorts: ['', '-Created'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await hooks().insert(webhook(200 + i))).id,
      remove: (id) => t.ds.getRepository(WebhookEntity).delete({ id }),
      label: { list: 'webhooks' },
    });
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `${deliveries()}?limit=4&cursor=start&filter=${q('EventType eq "churn.test"')}`,
      sorts: ['', 'Created'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await attempts().insert({ ...attempt(hook, i, new Date(Date.UTC(2025, 6, 1, 0, 0, i % 5))), eventType: 'churn.test' } as never)).id,
      remove: (id) => t.ds.getRepository(t.app.get(WebhookEvents).deliveryEntity).delete({ id }),
      label: { list: 'deliveries' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/webhooks'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Active, Created/],
        ['filter=URL sw "https"', 'filter', /Unknown field URL/],
        ['filter=Active eq "yes"', 'filter', /true or false/],
        ['filter=Created gt "soon"', 'filter', /date/],
        ['sort=Active', 'sort', /not sortable.*sortable: Created/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
      ],
    );
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      [deliveries()],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, EventID, EventType, Status, Created/],
        ['filter=Payload co "n"', 'filter', /Unknown field Payload/],
        ['filter=Status gt 3', 'filter', /quoted string/],
        ['sort=Status', 'sort', /not sortable.*sortable: Created/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=3', 'offset', /not taken with cursor/],
      ],
    );
  });
});
