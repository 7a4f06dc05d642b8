import xml2js from 'xml2js';
import { ordinalCompare } from '../../src/http/wire/wire.js';
import { bearer, startApp, TestApp } from './harness.js';

/**
 * The XML Schema of every XML body (docs/http-and-xml.md, "XML Schema"), as served: where it is,
 * what points to it, and that it says what the OpenAPI document says — the same roots, members in
 * ordinal order, nillable where null is allowed, the DataContract DateTimeOffset. Every XML answer
 * of every e2e test is validated against it with xmllint (xml-answers.ts); Mono's xsd generates
 * classes from it in the interop test (test/interop/xsd.interop-spec.ts).
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const FILES = ['pms-v4.xsd', 'pms-v4-system.xsd', 'pms-v4-problem.xsd'];

async function parse(text: string): Promise<Json> {
  return (await xml2js.parseStringPromise(text, { explicitArray: true })) as Json;
}

/** Global element → type, complex type → its member elements (name, type, nillable), of a parsed schema. */
function shapeOf(schema: Json) {
  const root = schema['xs:schema'];
  const elements = new Map<string, string>((root['xs:element'] ?? []).map((e: Json) => [e.$.name, e.$.type]));
  const types = new Map<string, { name: string; type?: string; nillable: boolean; minOccurs?: string }[]>();
  const choices = new Map<string, string[]>();
  for (const ct of root['xs:complexType'] ?? []) {
    const seq = ct['xs:sequence']?.[0]?.['xs:element'] ?? [];
    types.set(
      ct.$.name,
      seq.map((e: Json) => ({ name: e.$.name, type: e.$.type, nillable: e.$.nillable === 'true', minOccurs: e.$.minOccurs })),
    );
    const choice = ct['xs:choice']?.[0]?.['xs:element'];
    if (choice)
      choices.set(
        ct.$.name,
        choice.map((e: Json) => e.$.name),
      );
  }
  return { root, elements, types, choices };
}

describe('the XML Schema (/docs/pms-v4.xsd)', () => {
  let t: TestApp;
  let doc: Json;
  let main: ReturnType<typeof shapeOf>;

  beforeAll(async () => {
    t = await startApp();
    doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    main = shapeOf(await parse((await t.http().get('/docs/pms-v4.xsd').expect(200)).text));
  });
  afterAll(async () => {
    await t.close();
  });

  it('is served with the schemas it imports, without a token, as application/xml, and the OpenAPI document points to it', async () => {
    for (const file of FILES) {
      const res = await t.http().get(`/docs/${file}`).expect(200);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(res.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<xs:schema /);
    }
    const imports = (main.root['xs:import'] as Json[]).map((i) => i.$);
    expect(imports).toEqual([
      { namespace: 'http://schemas.datacontract.org/2004/07/System', schemaLocation: 'pms-v4-system.xsd' },
      { namespace: 'urn:ietf:rfc:7807', schemaLocation: 'pms-v4-problem.xsd' },
    ]);
    expect(doc['x-xml-schema']).toEqual({
      url: '/docs/pms-v4.xsd',
      imports: ['/docs/pms-v4-system.xsd', '/docs/pms-v4-problem.xsd'],
      targetNamespace: 'urn:pms:v4',
      description: expect.any(String),
    });
    expect(doc.info.description).toContain('(/docs/pms-v4.xsd)');
    // Nothing else under /docs is made up: an unknown schema is the usual 404.
    await t.http().get('/docs/pms-v5.xsd').expect(404);
  });

  it('declares a root element for every XML root the OpenAPI document names (answers and request bodies), and for nothing else', () => {
    const roots = new Set<string>();
    const named = (s: Json | undefined) => {
      if (!s) return;
      const target = s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
      if (target?.xml?.name) roots.add(target.xml.name);
      for (const alt of s.anyOf ?? []) named(alt);
    };
    for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
      for (const op of Object.values(item)) {
        named(op.responses?.['200']?.content?.['application/xml']?.schema);
        named(op.requestBody?.content?.['application/xml']?.schema);
      }
    }
    expect([...main.elements.keys()].sort(ordinalCompare)).toEqual([...roots].sort(ordinalCompare));
    expect(main.elements.get('ArrayOfIndividual')).toBe('tns:ArrayOfIndividual');
    expect(main.types.get('ArrayOfIndividual')).toEqual([{ name: 'Individual', type: 'tns:Individual', nillable: true, minOccurs: '0' }]);
    expect(main.types.get('Dashboards')).toEqual([{ name: 'Dashboard', type: 'tns:Dashboard', nillable: true, minOccurs: '0' }]);
    // A List holds list items, and the one restored comment of PUT /comments/{id}/undelete.
    expect(main.choices.get('List')).toEqual(['Comment', 'ListItem']);
  });

  it('gives each type its members in ordinal order, nillable exactly where the OpenAPI schema allows null, DateTimeOffsets in the DataContract form', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    // The types of answers (every schema an answer refers to, through its members too): DataContract
    // writes every member. A type only requests use (a bulk request's items) may leave its nullable members out.
    const answered = new Set<string>();
    const refer = (node: unknown) => {
      for (const m of JSON.stringify(node ?? {}).matchAll(/#\/components\/schemas\/(\w+)/g)) {
        if (answered.has(m[1])) continue;
        answered.add(m[1]);
        refer(schemas[m[1]]);
      }
    };
    for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) for (const op of Object.values(item)) refer(op.responses);
    refer((doc.components as Json).responses);
    expect(answered.has('Individual')).toBe(true);
    expect(answered.has('BulkItemOfIndividual')).toBe(false);
    // Types answered by a list that takes fields= (docs/queries.md): every member but ID may be left out.
    const partial = new Set<string>();
    for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
      for (const op of Object.values(item)) {
        if (!(op.parameters ?? []).some((p: Json) => p.name === 'fields' || p.$ref === '#/components/parameters/ListFields')) continue;
        const ref = JSON.stringify(op.responses?.['200']?.content?.['application/json']?.schema ?? {});
        for (const m of ref.matchAll(/#\/components\/schemas\/(\w+)/g)) if (m[1] !== 'SyncEntry') partial.add(m[1]);
      }
    }
    expect(partial.has('Individual')).toBe(true);
    const checked: string[] = [];
    for (const [name, members] of main.types) {
      const schema = schemas[name];
      if (!schema?.properties || name === 'TokenRequest') continue;
      checked.push(name);
      const props = Object.entries(schema.properties as Record<string, Json>);
      expect({ name, members: members.map((m) => m.name) }).toEqual({ name, members: props.map(([k]) => k).sort(ordinalCompare) });
      for (const [field, p] of props) {
        const nullable = [p.type].flat().includes('null') || (p.anyOf ?? []).some((a: Json) => a.type === 'null');
        const member = members.find((m) => m.name === field)!;
        expect({ name, field, nillable: member.nillable, required: member.minOccurs === undefined }).toEqual({
          name,
          field,
          nillable: nullable,
          required: partial.has(name) ? field === 'ID' : answered.has(name) || !nullable,
        });
        if (/DataContract DateTimeOffset/.test(p.description ?? ''))
          expect({ name, field, type: member.type }).toEqual({ name, field, type: 'sys:DateTimeOffset' });
      }
    }
    expect(checked.length).toBeGreaterThan(40);
    const individual = new Map(main.types.get('Individual')!.map((m) => [m.name, m]));
    expect(individual.get('LastCommentDate')).toMatchObject({ type: 'sys:DateTimeOffset', nillable: true });
    expect(individual.get('ID')).toMatchObject({ type: 'tns:guid', nillable: false });
    expect(individual.get('HireDate')).toMatchObject({ type: 'xs:dateTime', nillable: true });
    expect(new Map(main.types.get('Assessment')!.map((m) => [m.name, m.type])).get('Ratings')).toBe('tns:ArrayOfAssessmentRating');
    // The login's body is no answer: its members may be left out.
    expect(main.types.get('TokenRequest')!.map((m) => [m.name, m.minOccurs])).toEqual(
      ['Password', 'SiteID', 'UserName', 'grant_type', 'password', 'username'].map((n) => [n, '0']),
    );
  });

  it('describes the DataContract DateTimeOffset and the problem document in schemas of their own namespaces', async () => {
    const system = shapeOf(await parse((await t.http().get('/docs/pms-v4-system.xsd')).text));
    expect(system.root.$.targetNamespace).toBe('http://schemas.datacontract.org/2004/07/System');
    expect(system.types.get('DateTimeOffset')).toEqual([
      { name: 'DateTime', type: 'xs:dateTime', nillable: false, minOccurs: undefined },
      { name: 'OffsetMinutes', type: 'xs:short', nillable: false, minOccurs: undefined },
    ]);
    const problem = shapeOf(await parse((await t.http().get('/docs/pms-v4-problem.xsd')).text));
    expect(problem.root.$.targetNamespace).toBe('urn:ietf:rfc:7807');
    expect(problem.elements.get('problem')).toBe('tns:Problem');
    expect(problem.types.get('Problem')!.map((m) => [m.name, m.minOccurs ?? '1'])).toEqual([
      ['type', '1'],
      ['title', '1'],
      ['status', '1'],
      ['detail', '0'],
      ['instance', '0'],
      ['requestId', '0'],
      ['errors', '0'],
    ]);
    // The same members the service writes, in its order.
    const answer = await t.http().get('/v4/individuals/x').set('Authorization', bearer(t.adminToken)).set('Accept', 'application/xml').expect(400);
    const written = [...answer.text.matchAll(/<(type|title|status|detail|instance|requestId|errors)>/g)].map((m) => m[1]);
    expect(written).toEqual(['type', 'title', 'status', 'detail', 'instance', 'requestId', 'errors']);
  });

  it('takes the deployment’s XML_NAMESPACE as its target namespace', async () => {
    const other = await startApp({ XML_NAMESPACE: 'urn:example:pms' });
    try {
      const schema = await parse((await other.http().get('/docs/pms-v4.xsd').expect(200)).text);
      expect(schema['xs:schema'].$).toMatchObject({ targetNamespace: 'urn:example:pms', 'xmlns:tns': 'urn:example:pms' });
      // Its answers are in that namespace, and close() validates them against this schema.
      const xml = await other.http().get('/v4/sites').set('Authorization', bearer(other.adminToken)).set('Accept', 'application/xml').expect(200);
      expect(xml.text).toContain('<ArrayOfSite xmlns="urn:example:pms"');
      expect((await other.http().get('/docs/openapi.json')).body['x-xml-schema'].targetNamespace).toBe('urn:example:pms');
    } finally {
      await other.close();
    }
  });
});
