import { Page } from '../wire/pagination.js';
import { keepRenders, WireCodec } from '../wire/codec.js';
import { ApiResult, WireField, WireType } from '../wire/wire.js';
import { WireWriter } from './wire-writer.js';

@WireType('Row')
class Row {
  @WireField('guid') ID: string;
  @WireField('string') Name: string;
  @WireField('dateTimeOffset') Created: Date;
}

class Routes {
  @ApiResult(Row, { collection: true, root: 'List' })
  list() {}
  @ApiResult(Row)
  one() {}
}

const row = (n: number) =>
  Object.assign(new Row(), { ID: `00000000-0000-4000-8000-00000000000${n}`, Name: `é ${n} & <b>`, Created: new Date(Date.UTC(2026, 10, n)) });
const kept = (n: number) => {
  const r = Object.freeze(row(n));
  keepRenders(r);
  return r;
};

class Headers {
  readonly set = new Map<string, string>();
  setHeader(name: string, value: string) {
    this.set.set(name.toLowerCase(), value);
  }
}

describe('WireWriter', () => {
  const codec = new WireCodec('urn:pms:v4');
  const sut = new WireWriter(codec);
  const listMeta = Reflect.getMetadata('wire:result', Routes.prototype.list);
  const oneMeta = Reflect.getMetadata('wire:result', Routes.prototype.one);
  const req = (accept: string) => ({ method: 'GET', url: '/v4/rows', headers: { accept } });

  it.each(['application/json', 'application/xml'])('answers a page of kept records (%s) as bytes equal to the text of the same page not kept', (accept) => {
    const keptHeaders = new Headers();
    const plainHeaders = new Headers();
    const bytes = sut.render(req(accept), keptHeaders, new Page([kept(1), kept(2), kept(3)], 3, 20, 0), listMeta);
    const text = sut.render(req(accept), plainHeaders, new Page([row(1), row(2), row(3)], 3, 20, 0), listMeta);
    // Copied from each record's kept bytes: the page's text is never joined and encoded again.
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(typeof text).toBe('string');
    expect(bytes.toString()).toBe(text);
    expect([...keptHeaders.set]).toEqual([...plainHeaders.set]);
    expect(keptHeaders.set.get('x-total-count')).toBe('3');
  });

  it('answers a single kept record, and a list of records not kept, as text', () => {
    const headers = new Headers();
    const one = sut.render(req('application/json'), headers, kept(4), oneMeta);
    expect(typeof one).toBe('string');
    expect(JSON.parse(one as string).Name).toBe('é 4 & <b>');
    expect(headers.set.get('etag')).toMatch(/^"[\w-]{22}"$/);
    expect(typeof sut.render(req('application/json'), new Headers(), new Page([row(1)], 1, 20, 0), listMeta)).toBe('string');
    expect(typeof sut.render(req('application/json'), new Headers(), new Page([], 0, 20, 0), listMeta)).toBe('string');
  });
});
