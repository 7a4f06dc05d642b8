import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearer, startApp, TestApp } from '../e2e/harness.js';

/**
 * A real .NET client: Mono's DataContractSerializer reads our XML answers and writes the XML we
 * then accept (DESIGN §2). Each member it read is compared with the JSON answer of the same
 * record, so a field lost to element order, naming or shape fails here.
 */
const here = dirname(fileURLToPath(import.meta.url));
let work: string;
let exe: string;

export interface DotNetResult {
  records: Record<string, string>[];
  written: string;
}

function dotnet(type: string, xml: string, newName?: string): DotNetResult {
  const input = join(work, 'in.xml');
  const output = join(work, 'out.xml');
  rmSync(output, { force: true });
  writeFileSync(input, xml);
  const args = [exe, type, input, output, ...(newName ? [newName] : [])];
  const stdout = execFileSync('mono', args, { encoding: 'utf8' });
  const records: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    if (line === '--') {
      records.push(current);
      current = {};
    } else if (line.includes('=')) {
      const i = line.indexOf('=');
      current[line.slice(0, i)] = line.slice(i + 1);
    }
  }
  return { records, written: existsSync(output) ? readFileSync(output, 'utf8') : '' };
}

/** The .NET view of a JSON value, as RoundTrip.cs prints it. */
function asDotNet(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)) return new Date(v).toISOString();
  return String(v);
}

describe('.NET DataContractSerializer interop', () => {
  let t: TestApp;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pms-interop-'));
    exe = join(work, 'roundtrip.exe');
    execFileSync('mcs', ['-r:System.Runtime.Serialization.dll', '-r:System.Xml.dll', `-out:${exe}`, join(here, 'RoundTrip.cs')]);
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('reads every Site member from our XML, and its XML is accepted back', async () => {
    const created = await t
      .http()
      .post('/v4/sites')
      .set('Authorization', bearer(t.adminToken))
      .send({ Name: 'Ünïcode & <Co> "quoted"', PerformanceManagement: false })
      .expect(200);
    const id = created.body.ID as string;
    const xml = await t
      .http()
      .get(`/v4/sites/${id}?tz=America/New_York`)
      .set('Authorization', bearer(t.adminToken))
      .set('Accept', 'application/xml')
      .expect(200);
    const json = (await t.http().get(`/v4/sites/${id}`).set('Authorization', bearer(t.adminToken)).expect(200)).body as Record<string, unknown>;

    const { records, written } = dotnet('Site', xml.text, 'Renamed by .NET');
    expect(records).toHaveLength(1);
    for (const [field, value] of Object.entries(json)) expect({ field, value: records[0][field] }).toEqual({ field, value: asDotNet(value) });

    const put = await t
      .http()
      .put(`/v4/sites/${id}`)
      .set('Authorization', bearer(t.adminToken))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ ID: id, Name: 'Renamed by .NET', PerformanceManagement: false });
  });

  it('reads an ArrayOfSite collection', async () => {
    const xml = await t.http().get('/v4/sites').set('Authorization', bearer(t.adminToken)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get('/v4/sites').set('Authorization', bearer(t.adminToken)).expect(200)).body as { ID: string }[];
    const { records } = dotnet('ArrayOfSite', xml.text);
    expect(records.map((r) => r.ID)).toEqual(json.map((s) => s.ID));
  });

  it('loses members when elements arrive out of ordinal order (why the codec sorts them)', () => {
    const id = '6f9619ff-8b86-4d01-b42d-00c04fc964ff';
    const outOfOrder = `<Site xmlns="urn:pms:v4"><Name>Name first</Name><ID>${id}</ID><PerformanceManagement>true</PerformanceManagement></Site>`;
    const { records } = dotnet('Site', outOfOrder);
    expect(records[0].Name).toBe('Name first');
    expect(records[0].ID).toBe('00000000-0000-0000-0000-000000000000');
  });
});
