import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearer, startApp, TestApp } from '../e2e/harness.js';
import { createPeriods } from '../factories/goals.js';
import { createPerson, createSite } from '../factories/index.js';

/**
 * A real .NET client: Mono's DataContractSerializer reads our XML answers and writes the XML we
 * then accept (docs/http-and-xml.md). Each member it read is compared with the JSON answer of the same
 * record, so a field lost to element order, naming or shape fails here.
 */
const here = dirname(fileURLToPath(import.meta.url));
let work: string;
let exe: string;

export interface DotNetResult {
  records: Record<string, string>[];
  written: string;
}

function dotnet(type: string, xml: string, edit?: string): DotNetResult {
  const input = join(work, 'in.xml');
  const output = join(work, 'out.xml');
  rmSync(output, { force: true });
  writeFileSync(input, xml);
  const args = [exe, type, input, output, ...(edit ? [edit] : [])];
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

/** The .NET view of a JSON value, as RoundTrip.cs prints it (DateTimeOffset as instant|offset). */
function asDotNet(v: unknown, dateTimeOffset = false): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v))
    return v
      .map((item: Record<string, unknown>) =>
        Object.values(item)
          .map((m) => asDotNet(m))
          .join('|'),
      )
      .join(';');
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)) {
    const instant = new Date(v).toISOString();
    if (!dateTimeOffset) return instant;
    const m = /([+-])(\d\d):(\d\d)$/.exec(v)!;
    return `${instant}|${(m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))}`;
  }
  // RoundTrip.cs prints a line break inside a value as a backslash and n.
  return String(v).replace(/\n/g, '\\n');
}

/** Every member .NET read equals the JSON answer's value of the same record. */
function expectSameRecord(dotnetRecord: Record<string, string>, json: Record<string, unknown>, dateTimeOffsets: string[] = []): void {
  for (const [field, value] of Object.entries(json)) {
    expect({ field, value: dotnetRecord[field] }).toEqual({ field, value: asDotNet(value, dateTimeOffsets.includes(field)) });
  }
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

    const { records, written } = dotnet('Site', xml.text, 'Name=Renamed by .NET');
    expect(records).toHaveLength(1);
    expectSameRecord(records[0], json);

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

  it('reads every ListItem member from a List answer, and its ListItem XML is accepted back', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site);
    const created = await t
      .http()
      .post('/v4/accountabilities')
      .set('Authorization', bearer(person.token))
      .send({ AncestorID: person.individualId, Rank: 2, Name: 'Budget & forecasting', Description: 'Quarterly <plan>' })
      .expect(200);
    const id = created.body.ID as string;
    const xml = await t.http().get(`/v4/accountabilities/${id}`).set('Authorization', bearer(person.token)).set('Accept', 'application/xml').expect(200);
    const [json] = (await t.http().get(`/v4/accountabilities/${id}`).set('Authorization', bearer(person.token)).expect(200)).body as Record<string, unknown>[];

    const { records, written } = dotnet('List', xml.text, 'Description=Set by .NET');
    expect(records).toHaveLength(1);
    expectSameRecord(records[0], json);

    const put = await t
      .http()
      .put(`/v4/accountabilities/${id}`)
      .set('Authorization', bearer(person.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ ID: id, Name: 'Budget & forecasting', Rank: 2, Description: 'Set by .NET', AncestorID: person.individualId });
  });

  it('reads every Individual member, LastCommentDate as a DateTimeOffset in the tz of the request, and its XML is accepted back', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site, { firstName: 'Zoë', lastName: 'Ōtani' });
    await t
      .http()
      .post('/v4/comments')
      .set('Authorization', bearer(site.admin.token))
      .send({ AncestorID: person.individualId, AncestorType: 'individuals', Body: 'Well done' })
      .expect(200);
    const url = `/v4/individuals/${person.individualId}?tz=America/New_York`;
    const xml = await t.http().get(url).set('Authorization', bearer(site.admin.token)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get(url).set('Authorization', bearer(site.admin.token)).expect(200)).body as Record<string, unknown>;
    expect(json.LastComment).toBe('Well done');

    const { records, written } = dotnet('Individual', xml.text, 'PrimaryTitle=Lead tester');
    expectSameRecord(records[0], json, ['LastCommentDate']);
    expect(records[0].LastCommentDate).toMatch(/\|-300$/);

    const put = await t
      .http()
      .put(`/v4/individuals/${person.individualId}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ ID: person.individualId, FirstName: 'Zoë', LastName: 'Ōtani', PrimaryTitle: 'Lead tester', UserName: person.userName });
  });

  it('reads every BasicRole member from our XML (one and a collection), and its XML is accepted back', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site);
    const created = await t
      .http()
      .post('/v4/basicroles')
      .set('Authorization', bearer(person.token))
      .send({ IndividualID: person.individualId, Name: 'Coach & <mentor>', Description: 'Line one\nline two', Rank: 2, DialogsPerPeriod: 3 })
      .expect(200);
    const id = created.body.ID as string;
    const url = `/v4/basicroles/${id}?tz=Europe/Berlin`;
    const xml = await t.http().get(url).set('Authorization', bearer(person.token)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get(url).set('Authorization', bearer(person.token)).expect(200)).body as Record<string, unknown>;

    const { records, written } = dotnet('BasicRole', xml.text, 'Name=Renamed by .NET');
    expect(records).toHaveLength(1);
    expectSameRecord(records[0], json);

    const put = await t
      .http()
      .put(`/v4/basicroles/${id}`)
      .set('Authorization', bearer(person.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({
      ID: id,
      Name: 'Renamed by .NET',
      Description: 'Line one\nline two',
      Rank: 2,
      DialogsPerPeriod: 3,
      IndividualID: person.individualId,
    });

    const list = await t
      .http()
      .get(`/v4/individuals/${person.individualId}/basicroles`)
      .set('Authorization', bearer(person.token))
      .set('Accept', 'application/xml')
      .expect(200);
    const listJson = (await t.http().get(`/v4/individuals/${person.individualId}/basicroles`).set('Authorization', bearer(person.token)).expect(200))
      .body as Record<string, unknown>[];
    const many = dotnet('ArrayOfBasicRole', list.text).records;
    expect(many).toHaveLength(1);
    expectSameRecord(many[0], listJson[0]);
  });

  it('reads every Assessment member with its nested Ratings, and its XML (nested ratings included) is accepted back', async () => {
    const site = await createSite(t);
    const manager = await createPerson(t, site, { firstName: 'Mia', lastName: 'Manager' });
    const report = await createPerson(t, site, { reportsTo: manager.individualId });
    const period = (await createPeriods(t, site.siteId)).current.id;
    const role = (
      await t.http().post('/v4/basicroles').set('Authorization', bearer(manager.token)).send({ IndividualID: report.individualId, Name: 'Scribe' }).expect(200)
    ).body.ID as string;
    const ratings = [
      { ItemKind: 'basicrole', ItemID: role, Rating: 4 },
      { ItemKind: 'general', ItemID: null, Rating: 3 },
    ];
    const created = await t
      .http()
      .post('/v4/assessments')
      .set('Authorization', bearer(manager.token))
      .send({ Kind: 'leader', SubjectID: report.individualId, PeriodID: period, Ratings: ratings })
      .expect(200);
    const id = created.body.ID as string;
    const xml = await t.http().get(`/v4/assessments/${id}`).set('Authorization', bearer(manager.token)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get(`/v4/assessments/${id}`).set('Authorization', bearer(manager.token)).expect(200)).body as Record<string, unknown>;
    expect(json.Ratings).toEqual(ratings);

    const { records, written } = dotnet('Assessment', xml.text, 'Ratings.1.Rating=5');
    expect(records).toHaveLength(1);
    expectSameRecord(records[0], json);
    expect(records[0].Ratings).toBe(`basicrole|${role}|4;general|null|3`);

    const put = await t
      .http()
      .put(`/v4/assessments/${id}`)
      .set('Authorization', bearer(manager.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ ID: id, Kind: 'leader', SubjectID: report.individualId, AssessorID: manager.individualId, PeriodID: period });
    expect(put.body.Ratings).toEqual([ratings[0], { ...ratings[1], Rating: 5 }]);

    const list = await t
      .http()
      .get(`/v4/individuals/${report.individualId}/assessments?period=${period}`)
      .set('Authorization', bearer(manager.token))
      .set('Accept', 'application/xml')
      .expect(200);
    const many = dotnet('ArrayOfAssessment', list.text).records;
    expect(many.map((r) => r.Ratings)).toEqual([`basicrole|${role}|4;general|null|5`]);
  });

  it('reads every Permission member (a nil ChildType included) and its XML is accepted back; a SecurityGroup with its Members too', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site, { firstName: 'Hal', lastName: 'Human' });
    const group = await t.http().post('/v4/securitygroups').set('Authorization', bearer(site.admin.token)).send({ Name: 'Auditors & <friends>' }).expect(200);
    const groupId = group.body.ID as string;
    await t.http().put(`/v4/securitygroups/${groupId}/members/${person.individualId}`).set('Authorization', bearer(site.admin.token)).expect(200);
    const created = await t
      .http()
      .post('/v4/permissions')
      .set('Authorization', bearer(site.admin.token))
      .send({
        RowID: person.individualId,
        PrincipalID: groupId,
        ChildType: null,
        CreateState: 0,
        ReadState: 1,
        UpdateState: 2,
        DeleteState: 0,
        DelegateState: 1,
      })
      .expect(200);
    const id = created.body.ID as string;
    const xml = await t.http().get(`/v4/permissions/${id}`).set('Authorization', bearer(site.admin.token)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get(`/v4/permissions/${id}`).set('Authorization', bearer(site.admin.token)).expect(200)).body as Record<string, unknown>;

    const { records, written } = dotnet('Permission', xml.text, 'UpdateState=1');
    expect(records).toHaveLength(1);
    expectSameRecord(records[0], json);
    expect(records[0]).toMatchObject({ ChildType: 'null', PrincipalName: 'Auditors & <friends>', RowName: 'Hal Human', ReadText: 'Allow' });

    const put = await t
      .http()
      .put(`/v4/permissions/${id}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ ID: id, ChildType: null, UpdateState: 1, UpdateText: 'Allow', ReadState: 1, DelegateState: 1, RowType: 39 });

    const list = await t
      .http()
      .get(`/v4/permissions?rowid=${person.individualId}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Accept', 'application/xml')
      .expect(200);
    expect(dotnet('ArrayOfPermission', list.text).records.map((r) => r.ID)).toEqual([id]);

    const groupXml = await t
      .http()
      .get(`/v4/securitygroups/${groupId}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Accept', 'application/xml')
      .expect(200);
    const groupJson = (await t.http().get(`/v4/securitygroups/${groupId}`).set('Authorization', bearer(site.admin.token)).expect(200)).body as Record<
      string,
      unknown
    >;
    const g = dotnet('SecurityGroup', groupXml.text, 'Description=Set by .NET');
    expectSameRecord(g.records[0], groupJson);
    expect(g.records[0].Members).toBe(`${person.individualId}|Hal Human`);
    const renamed = await t
      .http()
      .put(`/v4/securitygroups/${groupId}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .send(g.written)
      .expect(200);
    expect(renamed.body).toMatchObject({
      Name: 'Auditors & <friends>',
      Description: 'Set by .NET',
      Members: [{ IndividualID: person.individualId, FullName: 'Hal Human' }],
    });
  });

  it('reads every Dashboard member (decimals, nulls, colors) and a Dashboards list, and writes DashboardSettings we accept', async () => {
    const site = await createSite(t);
    const person = await createPerson(t, site, { firstName: 'Dana', lastName: 'Board' });
    const period = (await createPeriods(t, site.siteId)).current.id;
    // Goals 2 of 3, one of three dialogs held (33.33 %: a decimal with a fraction), nothing else (nulls).
    for (const completed of [true, true, false]) {
      await t
        .http()
        .post('/v4/goals')
        .set('Authorization', bearer(site.admin.token))
        .send({
          IndividualID: person.individualId,
          PeriodID: period,
          Name: 'Goal',
          Completed: completed,
          Comment: '',
          Why: '',
          DueDate: '2026-12-31T00:00:00Z',
          ...Object.fromEntries(
            [1, 2, 3, 4, 5].flatMap((k) => [
              [`Measure${k}`, ''],
              [`Measure${k}Completed`, false],
              [`Measure${k}StartDate`, '2026-01-01T00:00:00Z'],
              [`Measure${k}EndDate`, '2026-01-02T00:00:00Z'],
            ]),
          ),
        })
        .expect(200);
    }
    for (const OccurredDate of [null, null, '2026-03-02T10:00:00Z']) {
      await t
        .http()
        .post('/v4/dialogs')
        .set('Authorization', bearer(site.admin.token))
        .send({
          Kind: 'individual',
          AncestorID: person.individualId,
          LeaderID: site.admin.individualId,
          PeriodID: period,
          ScheduledDate: '2026-03-01T10:00:00Z',
          OccurredDate,
        })
        .expect(200);
    }
    await t
      .http()
      .post('/v4/commitments')
      .set('Authorization', bearer(site.admin.token))
      .send({ Type: 'individual', AncestorID: person.individualId, PeriodID: period, Name: 'Ship it', Completed: true })
      .expect(200);
    const url = `/v4/individuals/${person.individualId}/dashboards?period=${period}`;
    const xml = await t.http().get(url).set('Authorization', bearer(person.token)).set('Accept', 'application/xml').expect(200);
    const json = (await t.http().get(url).set('Authorization', bearer(person.token)).expect(200)).body as Record<string, unknown>;
    expect(json).toMatchObject({
      PersonalGoalsCompleted: 2,
      PersonalGoalsTotal: 3,
      DialogsCompletedPercent: 33.33,
      IndividualCommitmentsColorValue: 0x00ff00,
      EvaluationCriteriaPercent: null,
    });
    const { records } = dotnet('Dashboard', xml.text);
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0])).toHaveLength(71); // the spec's 70 and SelfAssessmentPercent
    expect(records[0].DialogsCompletedPercent).toBe('33.33');
    expect(records[0].EvaluationCriteriaPercent).toBe('null');
    expectSameRecord(records[0], json);

    const list = await t
      .http()
      .get(`/v4/dashboards?period=${period}`)
      .set('Authorization', bearer(site.admin.token))
      .set('Accept', 'application/xml')
      .expect(200);
    const listJson = (await t.http().get(`/v4/dashboards?period=${period}`).set('Authorization', bearer(site.admin.token)).expect(200)).body as Record<
      string,
      unknown
    >[];
    const many = dotnet('Dashboards', list.text).records;
    expect(many.length).toBeGreaterThanOrEqual(2);
    expect(many).toHaveLength(listJson.length);
    many.forEach((r, k) => expectSameRecord(r, listJson[k]));

    const settings = await t.http().get('/v4/dashboards/settings').set('Authorization', bearer(site.admin.token)).set('Accept', 'application/xml').expect(200);
    const { written } = dotnet('DashboardSettings', settings.text, 'Threshold3=125');
    const put = await t
      .http()
      .put('/v4/dashboards/settings')
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .send(written)
      .expect(200);
    expect(put.body).toMatchObject({ SiteID: site.siteId, Threshold1: 70, Threshold2: 90, Threshold3: 125, ShowGoals: true });
  });

  it('loses members when elements arrive out of ordinal order (why the codec sorts them)', () => {
    const id = '6f9619ff-8b86-4d01-b42d-00c04fc964ff';
    const outOfOrder = `<Site xmlns="urn:pms:v4"><Name>Name first</Name><ID>${id}</ID><PerformanceManagement>true</PerformanceManagement></Site>`;
    const { records } = dotnet('Site', outOfOrder);
    expect(records[0].Name).toBe('Name first');
    expect(records[0].ID).toBe('00000000-0000-0000-0000-000000000000');
  });
});
