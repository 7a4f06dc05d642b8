import { jsonText, keepRenders, keptRendersOf, toJsonValue, WireCodec, XmlInputError } from './codec.js';
import { formatDate, parseTimeZone, UTC, type TimeZone } from '../../common/dates.js';
import { ApiResult, WireField, wireFields, WireType } from './wire.js';

@WireType('Sample')
class Sample {
  @WireField('guid') ID: string;
  @WireField('string') Name: string | null;
  @WireField('int') Rank: number;
  @WireField('bool') Deleted: boolean;
  @WireField('date') Created: Date;
  @WireField('string') AncestorID: string;
  @WireField('dateTimeOffset') LastCommentDate: Date | null;
  @WireField('string') aLower: string;
}

const sample = (over: Partial<Sample> = {}) =>
  Object.assign(new Sample(), {
    ID: '11111111-2222-4333-8444-555555555555',
    Name: 'A & <B>',
    Rank: 3,
    Deleted: false,
    Created: new Date('2026-11-21T15:00:00.000Z'),
    AncestorID: 'anc',
    LastCommentDate: new Date('2026-11-21T15:00:00.000Z'),
    aLower: 'x',
    ...over,
  });

class Holder {
  @ApiResult(Sample, { collection: true, root: 'List' })
  list() {}
}

describe('WireCodec', () => {
  const sut = new WireCodec('urn:pms:v4');

  it('writes JSON in declaration order with formatted dates and nulls', () => {
    const json = JSON.parse(sut.encode(sample({ Name: null }), 'json'));
    expect(Object.keys(json)).toEqual(['ID', 'Name', 'Rank', 'Deleted', 'Created', 'AncestorID', 'LastCommentDate', 'aLower']);
    expect(json).toMatchObject({ Name: null, Created: '2026-11-21T15:00:00.000+00:00', LastCommentDate: '2026-11-21T15:00:00.000+00:00' });
  });

  it('writes XML elements in ordinal order (upper case before lower case), escaped, with i:nil for null', () => {
    const xml = sut.encode(sample({ Name: null }), 'xml');
    const order = [...xml.matchAll(/<([A-Za-z]+)[ >/]/g)].map((m) => m[1]).filter((n) => n !== 'Sample');
    expect(order.filter((n) => !['DateTime', 'OffsetMinutes'].includes(n))).toEqual([
      'AncestorID',
      'Created',
      'Deleted',
      'ID',
      'LastCommentDate',
      'Name',
      'Rank',
      'aLower',
    ]);
    expect(xml).toContain('<Name i:nil="true"/>');
    expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?><Sample xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">')).toBe(true);
    expect(sut.encode(sample(), 'xml')).toContain('<Name>A &amp; &lt;B&gt;</Name>');
  });

  it('writes a DateTimeOffset in the DataContract shape: UTC instant plus offset minutes of the zone', () => {
    const xml = sut.encode(sample(), 'xml', parseTimeZone('America/New_York'));
    expect(xml).toContain(
      '<LastCommentDate xmlns:a="http://schemas.datacontract.org/2004/07/System"><a:DateTime>2026-11-21T15:00:00.000Z</a:DateTime><a:OffsetMinutes>-300</a:OffsetMinutes></LastCommentDate>',
    );
    expect(xml).toContain('<Created>2026-11-21T10:00:00.000-05:00</Created>');
  });

  it('writes collections under the declared root (List) or ArrayOf{Type}, empty ones too', () => {
    const meta = Reflect.getMetadata('wire:result', Holder.prototype.list);
    expect(sut.encode([sample()], 'xml', undefined, meta)).toMatch(/<List xmlns="urn:pms:v4"[^>]*><Sample><AncestorID>/);
    expect(sut.encode([], 'xml', undefined, meta)).toBe(
      '<?xml version="1.0" encoding="utf-8"?><List xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"/>',
    );
    expect(sut.encode([sample()], 'xml')).toContain('<ArrayOfSample ');
  });

  it('writes the empty object of deletes as {} and <Object/>', () => {
    expect(sut.encode({}, 'json')).toBe('{}');
    expect(sut.encode({}, 'xml')).toBe(
      '<?xml version="1.0" encoding="utf-8"?><Object xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"/>',
    );
  });

  it('keeps CR of multi-line text through XML (as &#xD;, since parsers fold a raw CRLF to LF)', async () => {
    const xml = sut.encode(sample({ Name: 'line 1\r\nline 2' }), 'xml');
    expect(xml).toContain('<Name>line 1&#xD;\nline 2</Name>');
    expect(((await sut.decodeXml(xml)) as { Name: string }).Name).toBe('line 1\r\nline 2');
  });

  it('writes empty strings as empty elements, not as nil', () => {
    expect(sut.encode(sample({ Name: '' }), 'xml')).toContain('<Name/>');
  });

  it('drops characters XML cannot carry instead of writing a broken document', () => {
    expect(sut.encode(sample({ Name: 'a\u0001b' }), 'xml')).toContain('<Name>ab</Name>');
  });

  it('reads XML bodies: namespaces and order ignored, i:nil as null, text as strings', async () => {
    const body = await sut.decodeXml(
      '<p:Sample xmlns:p="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><p:Rank>3</p:Rank><p:Name i:nil="true"/><p:ID>abc</p:ID><p:Empty/></p:Sample>',
    );
    expect(body).toEqual({ Rank: '3', Name: null, ID: 'abc', Empty: '' });
  });

  it('reads collection roots as arrays', async () => {
    expect(await sut.decodeXml('<List xmlns="urn:pms:v4"><ListItem><Name>a</Name></ListItem><ListItem><Name>b</Name></ListItem></List>')).toEqual([
      { Name: 'a' },
      { Name: 'b' },
    ]);
  });

  it.each([
    ['<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Sample>&e;</Sample>', /not allowed/],
    ['<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><a>&lol2;</a>', /not allowed/],
    ['<Sample><Name>x</Sample>', /Malformed XML/],
    ['not xml at all', /Malformed XML/],
  ])('refuses %s', async (xml, message) => {
    await expect(sut.decodeXml(xml)).rejects.toThrow(XmlInputError);
    await expect(sut.decodeXml(xml)).rejects.toThrow(message);
  });

  it('writes problem details in XML per RFC 9457 (urn:ietf:rfc:7807, errors as <i>)', () => {
    const xml = sut.encodeProblem({ type: 't', title: 'T', status: 400, errors: [{ field: 'Name', message: 'Name is required' }] }, 'xml');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807"><type>t</type><title>T</title><status>400</status><errors><i><field>Name</field><message>Name is required</message></i></errors></problem>',
    );
  });

  it('writes JSON text byte for byte as a plain walk over the declared fields would (ETags hash it)', () => {
    // The oracle: the declared members in order, undefined as null, dates in the zone, recursively.
    const oracle = (v: unknown, tz: TimeZone): unknown => {
      if (v === undefined || v === null) return null;
      if (v instanceof Date) return formatDate(v, tz);
      if (Array.isArray(v)) return v.map((x) => oracle(x, tz));
      if (typeof v !== 'object') return v;
      const declared = wireFields(v.constructor);
      const out: Record<string, unknown> = {};
      if (declared.length) for (const f of declared) out[f.name] = oracle((v as Record<string, unknown>)[f.name], tz);
      else for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = oracle(x, tz);
      return out;
    };
    const paris = parseTimeZone('Europe/Paris');
    const values: unknown[] = [
      sample(),
      sample({ Name: null, LastCommentDate: null, Rank: -0, aLower: 'quote " backslash \\ \u0001 \u2028 é 😀' }),
      [sample({ Rank: 1.5e21 }), sample({ Rank: Number.NaN, Created: new Date(Date.UTC(99, 0, 1)) }), null, undefined],
      { b: 1, a: [sample(), { nested: new Date('1999-12-31T23:59:59.999Z'), skipped: undefined, kept: null }], c: 'x' },
      Object.assign(new Sample(), { ID: 'only-id' }),
      [],
      {},
      'text',
      42,
      true,
    ];
    for (const value of values) {
      for (const tz of [undefined, paris, parseTimeZone('-03:30')]) {
        expect(jsonText(value, tz)).toBe(JSON.stringify(oracle(value, tz ?? UTC)));
        expect(JSON.stringify(toJsonValue(value, tz))).toBe(jsonText(value, tz));
      }
    }
  });

  it('writes a list of kept records as bytes equal to its text, per format, zone and root, then from the kept bytes', () => {
    const meta = Reflect.getMetadata('wire:result', Holder.prototype.list);
    const kept = (over: Partial<Sample> = {}) => {
      const v = Object.freeze(sample(over));
      keepRenders(v);
      return v;
    };
    const lists: unknown[][] = [
      [kept(), kept({ Name: 'é 😀 & <x>', LastCommentDate: null }), kept({ ID: 'third', Rank: 7 })],
      [kept(), sample({ Name: 'not kept' }), null],
      [kept({ Name: '' })],
    ];
    for (const list of lists) {
      for (const tz of [UTC, parseTimeZone('Europe/Paris'), parseTimeZone('-03:30'), UTC]) {
        for (const format of ['json', 'xml'] as const) {
          for (const m of [undefined, meta]) {
            const bytes = sut.encodeBytes(list, format, tz, m);
            expect(bytes?.toString('utf8')).toBe(sut.encode(list, format, tz, m));
          }
        }
      }
    }
    // The second list of the same records is copied from the very buffers kept the first time.
    const records = [kept(), kept({ ID: 'other' })];
    sut.encodeBytes(records, 'json');
    const renders = keptRendersOf(records[0])!;
    const first = renders.jsonBytes;
    expect(first).toBeInstanceOf(Buffer);
    sut.encodeBytes(records, 'json');
    expect(renders.jsonBytes).toBe(first);
    // Another zone renders again; its bytes are not the other zone's.
    expect(sut.encodeBytes(records, 'json', parseTimeZone('Asia/Kolkata'))!.toString()).toContain('+05:30');
    expect(renders.jsonBytes).not.toBe(first);
  });

  it('answers no bytes for what is not a non-empty list of kept records', () => {
    expect(sut.encodeBytes([], 'json')).toBeUndefined();
    expect(sut.encodeBytes([sample()], 'json')).toBeUndefined();
    expect(sut.encodeBytes(Object.freeze(sample()), 'xml')).toBeUndefined();
  });
});
