import { jsonText, keepRenders, keptRendersOf, WireCodec } from './codec.js';
import { etagOf } from './etag.js';
import { parseTimeZone, UTC } from '../../common/dates.js';
import { WireField, WireType } from './wire.js';
import { MemoStore, RecordMemo } from './record-memo.js';

@WireType('Person')
class Person {
  @WireField('guid') ID: string;
  @WireField('string') Name: string | null;
  @WireField('dateTimeOffset') Created: Date;
}

const KIND = { columns: ['id', 'name', 'created'] };
const row = (over: Record<string, unknown> = {}) => ({ id: 'p1', name: 'Ada', created: new Date('2026-01-02T03:04:05.678Z'), ...over });
const answer = (r: Record<string, unknown>) => Object.assign(new Person(), { ID: r.id, Name: r.name, Created: r.created });

describe('RecordMemo', () => {
  let capacity: number;
  let sut: RecordMemo<Person>;
  beforeEach(() => {
    capacity = 10;
    sut = new RecordMemo<Person>(KIND, () => capacity);
  });
  /** A read as the service makes it: the kept answer, or one built and offered to the memo. */
  const read = (id: string) => sut.get(id, row({ id }), 0) ?? sut.set(id, row({ id }), 0, answer(row({ id })));

  it('gives back the answer built from the very same row and variant, frozen', () => {
    const kept = sut.set('p1', row(), 1, answer(row()));
    expect(Object.isFrozen(kept)).toBe(true);
    // A new row object with equal values, dates equal by instant.
    expect(sut.get('p1', row(), 1)).toBe(kept);
    expect([sut.hits, sut.misses]).toEqual([1, 0]);
  });

  it('misses when any listed column differs, when the variant differs, or for another id', () => {
    sut.set('p1', row(), 1, answer(row()));
    expect(sut.get('p1', row({ name: 'Ada L.' }), 1)).toBeUndefined();
    expect(sut.get('p1', row({ name: null }), 1)).toBeUndefined();
    expect(sut.get('p1', row({ created: new Date('2026-01-02T03:04:05.679Z') }), 1)).toBeUndefined();
    expect(sut.get('p1', row(), 2)).toBeUndefined();
    expect(sut.get('p2', row({ id: 'p2' }), 1)).toBeUndefined();
    expect(sut.misses).toBe(5);
  });

  it('tells an empty string from null and a number from its text', () => {
    const kind = { columns: ['a'] };
    const memo = new RecordMemo<Person>(kind, () => 10);
    memo.set('1', { a: '' }, 0, answer(row()));
    expect(memo.get('1', { a: null }, 0)).toBeUndefined();
    memo.set('1', { a: 1 }, 0, answer(row()));
    expect(memo.get('1', { a: '1' }, 0)).toBeUndefined();
  });

  it('keeps at most its capacity, dropping first a record not read since it was kept', () => {
    capacity = 2;
    sut.set('a', row({ id: 'a' }), 0, answer(row({ id: 'a' })));
    sut.set('b', row({ id: 'b' }), 0, answer(row({ id: 'b' })));
    expect(sut.get('a', row({ id: 'a' }), 0)).toBeDefined(); // a is now the most recent
    // Full: c is refused once (built, not kept), then let in on its second read.
    const first = sut.set('c', row({ id: 'c' }), 0, answer(row({ id: 'c' })));
    expect(Object.isFrozen(first)).toBe(false);
    expect(sut.size).toBe(2);
    expect(sut.get('c', row({ id: 'c' }), 0)).toBeUndefined();
    sut.set('c', row({ id: 'c' }), 0, answer(row({ id: 'c' })));
    expect(sut.size).toBe(2);
    expect(sut.get('b', row({ id: 'b' }), 0)).toBeUndefined();
    expect(sut.get('a', row({ id: 'a' }), 0)).toBeDefined();
    expect(sut.get('c', row({ id: 'c' }), 0)).toBeDefined();
  });

  it('lets a full memo keep the records read again while a scan reads others once (admission on a second read)', () => {
    capacity = 3;
    for (const id of ['a', 'b', 'c']) read(id);
    // A scan of 100 records read once each, with a, b and c read between them.
    for (let i = 0; i < 100; i++) {
      read(`s${i}`);
      if (i % 10 === 9) for (const id of ['a', 'b', 'c']) read(id);
    }
    expect(sut.misses).toBe(103);
    expect(sut.hits).toBe(30);
    expect(['a', 'b', 'c'].every((id) => sut.get(id, row({ id }), 0) !== undefined)).toBe(true);
  });

  it('serves most reads of a cycle over more records than it holds from the memo', () => {
    // Before admission on a second read, a cycle over 12 records with room for 10 missed every
    // read: each newcomer pushed out the record the cycle needed next.
    for (let round = 0; round < 20; round++) for (let i = 0; i < 12; i++) read(`r${i}`);
    expect(sut.hits / (sut.hits + sut.misses)).toBeGreaterThan(0.6);
  });

  it('keeps nothing at capacity 0 (RECORD_MEMO=0), and forgets what it held', () => {
    sut.set('p1', row(), 0, answer(row()));
    capacity = 0;
    const value = sut.set('p2', row({ id: 'p2' }), 0, answer(row({ id: 'p2' })));
    expect(Object.isFrozen(value)).toBe(false);
    expect(keptRendersOf(value)).toBeUndefined();
    expect(sut.size).toBe(0);
    expect(sut.get('p1', row(), 0)).toBeUndefined();
  });

  it('lets the codec write a kept answer from its kept texts, the same text as a fresh one, per zone', () => {
    const codec = new WireCodec('urn:test');
    const berlin = parseTimeZone('Europe/Berlin');
    const fresh = answer(row());
    const kept = sut.set('p1', row(), 0, answer(row()));
    for (const tz of [UTC, berlin, UTC]) {
      expect(jsonText(kept, tz)).toBe(jsonText(fresh, tz));
      expect(jsonText([kept, kept], tz)).toBe(jsonText([fresh, fresh], tz));
      expect(codec.encode(kept, 'xml', tz)).toBe(codec.encode(fresh, 'xml', tz));
      expect(codec.encode([kept], 'xml', tz)).toBe(codec.encode([fresh], 'xml', tz));
    }
    expect(etagOf(kept)).toBe(etagOf(fresh));
    const renders = keptRendersOf(kept)!;
    expect(renders.json).toBe(jsonText(fresh, UTC));
    expect(renders.etag).toBe(etagOf(fresh));
    // The kept text is what is written: a second write does not render again.
    renders.json = '"sentinel"';
    expect(jsonText(kept, UTC)).toBe('"sentinel"');
  });

  it('refuses to keep the texts of an answer that could still change', () => {
    expect(() => keepRenders(answer(row()))).toThrow(/frozen/);
  });
});

describe('MemoStore: one bound for every memo of a database', () => {
  const PLACE = { columns: ['id', 'name'] };
  let capacity: number;
  let store: MemoStore;
  let people: RecordMemo<Person>;
  let places: RecordMemo<Person>;
  beforeEach(() => {
    capacity = 3;
    store = new MemoStore(() => capacity);
    people = new RecordMemo<Person>(KIND, store);
    places = new RecordMemo<Person>(PLACE, store);
  });
  const keep = (memo: RecordMemo<Person>, id: string) => memo.set(id, row({ id }), 0, answer(row({ id })));
  const has = (memo: RecordMemo<Person>, id: string) => memo.get(id, row({ id }), 0) !== undefined;

  it('keeps at most its capacity in all: a record of one kind makes room by dropping the oldest unread of any kind', () => {
    keep(people, 'a');
    keep(people, 'b');
    keep(places, 'x');
    expect(has(people, 'a')).toBe(true); // read: spared once
    keep(places, 'y'); // full: refused once
    expect([people.size, places.size, store.size]).toEqual([2, 1, 3]);
    keep(places, 'y'); // read again: let in
    expect([people.size, places.size, store.size]).toEqual([1, 2, 3]);
    expect(has(people, 'b')).toBe(false);
    expect(has(people, 'a')).toBe(true);
    expect(has(places, 'x')).toBe(true);
    expect(has(places, 'y')).toBe(true);
  });

  it('counts a record kept again once, and forgets one kind on clear() without the other', () => {
    keep(people, 'a');
    keep(people, 'a');
    keep(places, 'x');
    expect(store.size).toBe(2);
    people.clear();
    expect([people.size, places.size, store.size]).toEqual([0, 1, 1]);
    expect(has(places, 'x')).toBe(true);
    // The order still runs through what is left: three more records, and the oldest unread leaves.
    keep(people, 'b');
    keep(people, 'c');
    keep(places, 'z');
    keep(places, 'z');
    expect(store.size).toBe(3);
    expect(has(people, 'b')).toBe(false);
  });

  it('lets a record in on its second read of its own kind only: an id refused in one memo is new to another', () => {
    keep(people, 'a');
    keep(people, 'b');
    keep(people, 'c');
    keep(places, 'a'); // refused as a place
    keep(people, 'd'); // refused as a person
    expect(has(places, 'a')).toBe(false);
    keep(people, 'a'); // kept already as a person: kept again, nothing to admit
    expect(has(places, 'a')).toBe(false);
    keep(places, 'a');
    expect(has(places, 'a')).toBe(true);
    expect(store.size).toBe(3);
  });

  it('remembers at most its capacity of refused records, the oldest forgotten first', () => {
    for (const id of ['a', 'b', 'c']) keep(people, id);
    for (const id of ['p', 'q', 'r', 's']) keep(places, id); // four refused, room to remember three
    expect(store.refused.size).toBe(3);
    keep(places, 'p'); // forgotten: refused again
    expect(has(places, 'p')).toBe(false);
    keep(places, 's'); // remembered: let in
    expect(has(places, 's')).toBe(true);
  });

  it('keeps nothing of any kind at capacity 0', () => {
    keep(people, 'a');
    keep(places, 'x');
    capacity = 0;
    keep(places, 'y');
    expect([people.size, places.size, store.size]).toEqual([0, 0, 0]);
  });
});
