import { Page } from '../wire/pagination.js';
import { WireCodec } from '../wire/codec.js';
import { parseTimeZone, UTC } from '../../common/dates.js';
import { etagOf, RECORD_VERSION } from '../wire/etag.js';
import { isRevivable, reviveAnswer, storeAnswer } from './stored-answer.js';
import { RawBody } from './wire-writer.js';
import { WireField, WireType, type WireResultMeta } from '../wire/wire.js';

@WireType('Part')
class Part {
  @WireField('string') Label: string;
  @WireField('date') At: Date | null;
}

@WireType('Thing')
class Thing {
  @WireField('guid') ID: string;
  @WireField('string') Name: string | null;
  @WireField('int') Rank: number;
  @WireField('decimal') Score: number | null;
  @WireField('bool') Deleted: boolean;
  @WireField('date') Created: Date;
  @WireField('dateTimeOffset') LastCommentDate: Date | null;
  @WireField('object', { nested: () => Part }) Main: Part | null;
  @WireField('array', { nested: () => Part }) Parts: Part[];
}

class Other {
  @WireField('guid') ID: string;
}

const part = (label: string, at: string | null) => Object.assign(new Part(), { Label: label, At: at ? new Date(at) : null });
const thing = (over: Partial<Thing> = {}) =>
  Object.assign(new Thing(), {
    [RECORD_VERSION]: 7,
    ID: '11111111-2222-4333-8444-555555555555',
    Name: 'A & <B>',
    Rank: 3,
    Score: 1.25,
    Deleted: false,
    Created: new Date('2026-11-21T15:00:00.123Z'),
    LastCommentDate: new Date('2026-03-29T00:30:00.000Z'),
    Main: part('main', '2026-01-01T00:00:00.000Z'),
    Parts: [part('one', null), part('two', '2026-07-01T12:00:00.000Z')],
    ...over,
  });

const single: WireResultMeta = { type: Thing, collection: false, root: 'Thing' };
const list: WireResultMeta = { type: Thing, collection: true, root: 'List' };
const empty: WireResultMeta = { type: null, collection: false, root: 'Object' };
const codec = new WireCodec('urn:pms:v4');
const zones = [UTC, parseTimeZone('Europe/Berlin'), parseTimeZone('-05:30')];

describe('stored answers', () => {
  it('revive a record so that JSON and XML in any zone, and the ETag, are written as the original', () => {
    const original = thing();
    const revived = reviveAnswer(storeAnswer(original), single);
    expect(revived).toBeInstanceOf(Thing);
    expect((revived as Thing).Main).toBeInstanceOf(Part);
    for (const tz of zones) {
      for (const format of ['json', 'xml'] as const) {
        expect(codec.encode(revived, format, tz, single)).toBe(codec.encode(original, format, tz, single));
      }
    }
    expect(etagOf(revived)).toBe(etagOf(original));
    expect(etagOf(revived)).toMatch(/^"7-/);
  });

  it('keep nulls as nulls, not as dates or records', () => {
    const original = thing({ Name: null, Score: null, LastCommentDate: null, Main: null, Parts: [] });
    const revived = reviveAnswer(storeAnswer(original), single) as Thing;
    expect(revived.LastCommentDate).toBeNull();
    expect(revived.Main).toBeNull();
    expect(codec.encode(revived, 'xml', UTC, single)).toBe(codec.encode(original, 'xml', UTC, single));
  });

  it('revive a collection (root List) and a page with its numbers', () => {
    const items = [thing(), thing({ ID: '21111111-2222-4333-8444-555555555555', Rank: 4 })];
    const revived = reviveAnswer(storeAnswer(items), list);
    expect(codec.encode(revived, 'xml', zones[1], list)).toBe(codec.encode(items, 'xml', zones[1], list));
    const page = new Page(items, 10, 2, 4);
    const back = reviveAnswer(storeAnswer(page), list) as Page<Thing>;
    expect(back).toBeInstanceOf(Page);
    expect([back.total, back.limit, back.offset, back.hasNext]).toEqual([10, 2, 4, true]);
    expect(codec.encode(back.items, 'json', zones[2], list)).toBe(codec.encode(items, 'json', zones[2], list));
  });

  it('revive the empty object and raw bodies', () => {
    expect(codec.encode(reviveAnswer(storeAnswer({}), empty), 'xml', UTC, empty)).toBe(codec.encode({}, 'xml', UTC, empty));
    const raw = reviveAnswer(storeAnswer(new RawBody('a b', 'text/plain; version=0.0.4')), empty);
    expect(raw).toEqual(new RawBody('a b', 'text/plain; version=0.0.4'));
  });

  it('tell an answer they cannot revive faithfully (another class, or a date outside a date field)', () => {
    expect(isRevivable(thing(), single)).toBe(true);
    expect(isRevivable([thing()], list)).toBe(true);
    expect(isRevivable(new Page([thing()], 1, 1, 0), list)).toBe(true);
    expect(isRevivable({}, empty)).toBe(true);
    expect(isRevivable(Object.assign(new Other(), { ID: 'x' }), single)).toBe(false);
    expect(isRevivable(thing({ Name: new Date() as unknown as string }), single)).toBe(false);
    expect(isRevivable({ when: new Date() }, empty)).toBe(false);
  });
});
