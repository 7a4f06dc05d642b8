import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, bearer, startApp, TestApp } from '../e2e/harness.js';
import { individualBody } from '../factories/individuals.js';

/**
 * Swagger UI in a real browser (Debian's Chromium, driven by playwright-core; no browser is ever
 * downloaded): a user opens /docs, logs in with the login operation's example, authorizes with the
 * token, and executes a GET and a POST — each in JSON and in XML — with the examples as shown, then
 * a filtered list of individuals in JSON and again as a CSV download.
 * `npm run test:browser`; .ci/run installs chromium when it is missing.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('Swagger UI at /docs in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  const blocked: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
    t = await startApp();
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'pms-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1400, height: 2000 },
    });
    // Nothing leaves this machine: Swagger UI and the API are served by the app itself.
    await browser.route('**/*', (route) => {
      if (route.request().url().startsWith(origin)) return route.continue();
      blocked.push(route.request().url());
      return route.abort();
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${origin}/docs`);
    await page.waitForSelector('.opblock');
  });
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.close();
  });

  /** Opens an operation and presses "Try it out". */
  async function tryOut(operationId: string): Promise<Locator> {
    const op = page.locator(`[id$="-${operationId}"]`);
    // Swagger UI renders only the tags near the viewport: scroll down until the operation exists.
    // A busy machine draws late, and a sweep may pass the operation before it is drawn: then the
    // page is swept again, waiting longer at each step.
    for (const pause of [100, 400, 1000]) {
      await page.evaluate('window.scrollTo(0, 0)');
      for (let i = 0; i < 200 && (await op.count()) === 0; i++) {
        const atBottom = await page.evaluate('window.scrollY + window.innerHeight >= document.documentElement.scrollHeight');
        if (atBottom) break;
        await page.evaluate('window.scrollBy(0, 700)');
        await page.waitForTimeout(pause);
      }
      if ((await op.count()) > 0) break;
    }
    await op.scrollIntoViewIfNeeded();
    if (!(await op.locator('.try-out__btn').isVisible())) await op.locator('.opblock-summary-control').click();
    const button = op.locator('.try-out__btn');
    if ((await button.innerText()).trim() === 'Try it out') await button.click();
    return op;
  }

  /** Presses Execute and waits for the answer; returns its status and body as Swagger UI shows them. */
  async function execute(op: Locator): Promise<{ status: number; body: string; curl: string }> {
    await op.locator('.execute-wrapper .execute, button.execute').first().click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    const body = await op.locator('.live-responses-table .response-col_description pre').first().innerText();
    const curl = await op.locator('.curl-command').innerText();
    const result = { status: Number((await status.innerText()).trim()), body, curl };
    await op.locator('.btn-clear').click();
    return result;
  }

  async function responseMediaType(op: Locator, mediaType: string): Promise<void> {
    await op.locator('tr.response[data-code="200"] select.content-type').selectOption(mediaType);
  }

  it('shows the API as OpenAPI 3.1 with no tz pre-filled', async () => {
    await expect(page.locator('.version-stamp, .title small').allInnerTexts()).resolves.toEqual(expect.arrayContaining([expect.stringMatching(/3\.1/)]));
    const op = await tryOut('SitesController_list');
    expect(await op.locator('input[placeholder="tz"], tr[data-param-name="tz"] input').first().inputValue()).toBe('');
  });

  it('logs in with the login example (password filled in), then authorizes with the token', async () => {
    const op = await tryOut('AuthController_token');
    const body = op.locator('.body-param textarea');
    const example = await body.inputValue();
    expect(JSON.parse(example)).toEqual({ UserName: 'admin', Password: 'ADMIN_PASSWORD' });
    await body.fill(example.replace('ADMIN_PASSWORD', ADMIN_PASSWORD));
    const login = await execute(op);
    expect(login.status).toBe(200);
    const token = JSON.parse(login.body).access_token as string;
    expect(token.split('.')).toHaveLength(3);

    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('#auth-bearer-value').fill(token);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.getByText('Authorized', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await dialog.locator('button.btn-done').click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('executes GET /v4/sites in JSON and in XML', async () => {
    const op = await tryOut('SitesController_list');
    const json = await execute(op);
    expect(json.status).toBe(200);
    expect(json.curl).toContain('Authorization: Bearer');
    expect(JSON.parse(json.body)).toEqual([expect.objectContaining({ ID: t.defaultSiteId, Name: 'Default', Created: expect.stringMatching(/\+00:00$/) })]);

    await responseMediaType(op, 'application/xml');
    // The documented example of the XML answer names the items as the service does.
    const documented = await op.locator('tr.response[data-code="200"]').first().innerText();
    expect(documented).toMatch(/<ArrayOfSite xmlns="urn:pms:v4">\s*<Site[ >]/);
    expect(documented).not.toMatch(/<ArrayOfSite[^>]*>\s*<ArrayOfSite/);
    const xml = await execute(op);
    expect(xml.status).toBe(200);
    expect(xml.curl).toContain('accept: application/xml');
    expect(xml.body).toMatch(/<ArrayOfSite xmlns="urn:pms:v4"[^>]*>\s*<Site>/);
    expect(xml.body).toContain(`<ID>${t.defaultSiteId}</ID>`);
  });

  it('executes POST /v4/departments with the JSON example and with the XML example, unchanged', async () => {
    const op = await tryOut('OrganizationsController_create');
    const json = await execute(op);
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body)).toMatchObject({ Name: 'Sales', RowType: 56, ParentID: null, ManagerID: null });

    await op.locator('.opblock-section-request-body select.content-type').selectOption('application/xml');
    // Swagger UI writes the XML example from its data with the schema's names: root, namespace, members in order.
    expect(await op.locator('.body-param textarea').inputValue()).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\s*<Organization xmlns="urn:pms:v4">\s*<Description>New business and renewals<\/Description>\s*<Name>Sales<\/Name>/,
    );
    await responseMediaType(op, 'application/xml');
    const xml = await execute(op);
    expect(xml.status).toBe(200);
    expect(xml.body).toMatch(/^<\?xml[^>]*>\s*<Organization xmlns="urn:pms:v4"/);
    expect(xml.body).toContain('<Name>Sales</Name>');
    expect(xml.body).toContain('<ParentID i:nil="true"/>');

    const created = await t.http().get('/v4/departments').set('Authorization', bearer(t.adminToken)).expect(200);
    expect(created.body.filter((d: { Name: string }) => d.Name === 'Sales')).toHaveLength(2);
  });

  it('executes GET /v4/individuals with a filter, in JSON and as a CSV download', async () => {
    const root = await t.http().get('/v4/organizations').set('Authorization', bearer(t.adminToken)).expect(200);
    const orgId = (root.body as Array<{ ID: string }>)[0].ID;
    const people: Record<string, string> = {};
    for (const lastName of ['Zander', 'Ziegler', 'Zamora']) {
      const created = await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', bearer(t.adminToken))
        .send(individualBody(orgId, { LastName: lastName }))
        .expect(200);
      people[lastName] = created.body.ID as string;
    }

    const op = await tryOut('IndividualsController_list');
    await op.locator('tr[data-param-name="filter"] input').fill('LastName sw "Za"');
    const json = await execute(op);
    expect(json.status).toBe(200);
    expect(json.curl).toContain('filter=LastName%20sw%20%22Za%22');
    // Exactly the two whose last name starts with Za, in the list's order (LastName, FirstName, ID).
    expect((JSON.parse(json.body) as Array<{ ID: string; LastName: string }>).map((p) => [p.LastName, p.ID])).toEqual([
      ['Zamora', people.Zamora],
      ['Zander', people.Zander],
    ]);

    // The same query as a CSV export: Swagger UI offers the answer as a file to download.
    await responseMediaType(op, 'text/csv');
    await op.locator('.execute-wrapper .execute, button.execute').first().click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    expect(await op.locator('.curl-command').innerText()).toContain('accept: text/csv');
    const link = op.locator('.live-responses-table .response-col_description a', { hasText: 'Download file' });
    await link.waitFor();
    expect(await link.getAttribute('download')).toBe('individuals.csv');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('individuals.csv');
    const text = readFileSync(await download.path(), 'utf8');
    // RFC 4180: a header row naming the members the JSON answer carries (docs/exports.md), then the same two people.
    const jsonMembers = Object.keys((JSON.parse(json.body) as object[])[0]).sort();
    expect(text.slice(0, text.indexOf('\r\n')).split(',').sort()).toEqual(jsonMembers);
    const records = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
    expect(records.map((r) => [r.LastName, r.ID])).toEqual([
      ['Zamora', people.Zamora],
      ['Zander', people.Zander],
    ]);
    await op.locator('.btn-clear').click();
  });

  it('draws its first operation soon after opening the page with a cold cache (the aim is 3 s), over compressed transfers', async () => {
    // Each load in a profile of its own: nothing cached. Chromium asks for br and gzip as every
    // browser does. All three loads are printed; the best of them is held to a bound that catches
    // a regression (7 s) without making the machine's other work decide the run: the aim, 3 s
    // (issue 49, item 4), is what docs/openapi.md records the measurements against.
    const draws: number[] = [];
    for (let round = 0; round < 3; round++) {
      const coldProfile = mkdtempSync(join(tmpdir(), 'pms-chromium-cold-'));
      const cold = await chromium.launchPersistentContext(coldProfile, {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        viewport: { width: 1400, height: 2000 },
      });
      try {
        const codings = new Map<string, string>();
        cold.on('response', (r) => {
          if (r.url().startsWith(`${origin}/docs`)) codings.set(new URL(r.url()).pathname, r.headers()['content-encoding'] ?? 'none');
        });
        const coldPage = cold.pages()[0] ?? (await cold.newPage());
        const started = Date.now();
        await coldPage.goto(`${origin}/docs`);
        await coldPage.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
        draws.push(Date.now() - started);
        // The heavy parts came compressed: the script that holds the document, and Swagger UI's own.
        expect(codings.get('/docs/swagger-ui-init.js')).toMatch(/^(br|gzip)$/);
        expect(codings.get('/docs/swagger-ui-bundle.js')).toMatch(/^(br|gzip)$/);
      } finally {
        await cold.close();
        rmSync(coldProfile, { recursive: true, force: true });
      }
    }
    process.stdout.write(`Swagger UI: first operation drawn ${draws.join(', ')} ms after opening /docs (cold cache, three loads)\n`);
    expect(Math.min(...draws)).toBeLessThanOrEqual(7000);
  });

  it('sent nothing anywhere but the app', () => {
    expect(blocked).toEqual([]);
  });
});
