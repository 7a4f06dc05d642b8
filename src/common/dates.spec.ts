import { formatDate, formatDateOnce, INPUT_DATE_PATTERN, offsetAt, parseInputDate, parseTimeZone, type TimeZone, UnknownTimeZoneError, UTC } from './dates.js';

const instant = new Date('2026-11-21T15:00:00.123Z');

describe('formatDate', () => {
  it('writes UTC with milliseconds and +00:00 by default', () => {
    expect(formatDate(instant)).toBe('2026-11-21T15:00:00.123+00:00');
  });

  it('renders an IANA zone with its offset at that instant (winter and summer)', () => {
    const berlin = parseTimeZone('Europe/Berlin');
    expect(formatDate(instant, berlin)).toBe('2026-11-21T16:00:00.123+01:00');
    expect(formatDate(new Date('2026-07-01T12:00:00.000Z'), berlin)).toBe('2026-07-01T14:00:00.000+02:00');
  });

  it('renders fixed offsets, including half hours and negatives across midnight', () => {
    expect(formatDate(instant, parseTimeZone('+05:30'))).toBe('2026-11-21T20:30:00.123+05:30');
    expect(formatDate(new Date('2026-11-21T02:00:00.000Z'), parseTimeZone('-0500'))).toBe('2026-11-20T21:00:00.000-05:00');
  });

  it('renders a Windows zone id as its IANA zone', () => {
    expect(formatDate(instant, parseTimeZone('Eastern Standard Time'))).toBe('2026-11-21T10:00:00.123-05:00');
    expect(formatDate(instant, parseTimeZone('W. Europe Standard Time'))).toBe('2026-11-21T16:00:00.123+01:00');
  });

  it('writes an instant it wrote before the same, per zone: a kept text never answers another zone', () => {
    const at = new Date('2026-03-29T00:59:59.999Z');
    expect([formatDate(at), formatDate(at, parseTimeZone('Europe/Berlin')), formatDate(at, parseTimeZone('+05:30'))]).toEqual([
      '2026-03-29T00:59:59.999+00:00',
      '2026-03-29T01:59:59.999+01:00',
      '2026-03-29T06:29:59.999+05:30',
    ]);
    // Again, in another order, and a millisecond later (summer time in Berlin).
    expect(formatDate(at, parseTimeZone('+05:30'))).toBe('2026-03-29T06:29:59.999+05:30');
    expect(formatDate(at, parseTimeZone('Europe/Berlin'))).toBe('2026-03-29T01:59:59.999+01:00');
    expect(formatDate(new Date(at.getTime() + 1), parseTimeZone('Europe/Berlin'))).toBe('2026-03-29T03:00:00.000+02:00');
    expect(formatDate(at)).toBe('2026-03-29T00:59:59.999+00:00');
  });

  it('stays right past the number of texts it keeps (they are dropped, then written again)', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < 45_000; k += 1) {
        const at = new Date(start + k * 61_001);
        const text = formatDate(at);
        if (text !== at.toISOString().replace('Z', '+00:00')) throw new Error(`${at.toISOString()} written ${text}`);
      }
    }
    expect(formatDate(new Date(start))).toBe('2026-01-01T00:00:00.000+00:00');
  });
});

describe('parseTimeZone', () => {
  it.each(['Z', 'UTC', 'utc', 'GMT'])('reads %s as UTC', (tz) => {
    expect(offsetAt(parseTimeZone(tz), instant)).toBe(0);
  });

  it.each([
    [' 02:00', 120],
    [' 0530', 330],
    ['UTC 02', 120],
    ['gmt 14:00', 840],
    ['+02:00', 120],
  ])('reads the space a query string makes of "+" as the sign: %j', (tz, minutes) => {
    expect(offsetAt(parseTimeZone(tz), instant)).toBe(minutes);
  });

  it.each(['Mars/Olympus', 'Not A Zone', '  02:00', '02:00', ' 15:00', '+15:00', '+02:75', '<script>', 'x'.repeat(80)])('refuses %s', (tz) => {
    expect(() => parseTimeZone(tz)).toThrow(UnknownTimeZoneError);
  });
});

describe('parseInputDate', () => {
  it('reads offsets, Z and no offset (as UTC)', () => {
    expect(parseInputDate('2026-11-21T16:00:00.5+01:00')?.toISOString()).toBe('2026-11-21T15:00:00.500Z');
    expect(parseInputDate('2026-11-21T15:00:00Z')?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(parseInputDate('2026-11-21T15:00:00')?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(parseInputDate('2026-11-21')?.toISOString()).toBe('2026-11-21T00:00:00.000Z');
  });

  it('reads .NET 7-digit fractions (truncated to milliseconds)', () => {
    expect(parseInputDate('2026-11-21T15:00:00.1234567-05:00')?.toISOString()).toBe('2026-11-21T20:00:00.123Z');
  });

  it('reads the unset .NET DateTime as null', () => {
    expect(parseInputDate('0001-01-01T00:00:00')).toBeNull();
  });

  it.each(['tomorrow', '2026-02-30', '2026-13-01T00:00:00Z', '2026-11-21T25:00:00Z', '2026-11-21T10:00:00+15:00', ''])('refuses %s', (text) => {
    expect(parseInputDate(text)).toBeUndefined();
  });

  it('checks the year range on the UTC instant that is stored, not on the local date', () => {
    expect(parseInputDate('9999-12-31T23:59:59.999-14:00')).toBeUndefined();
    expect(parseInputDate('1000-01-01T00:00:00+14:00')).toBeUndefined();
    expect(parseInputDate('9999-12-31T09:59:59.999-14:00')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseInputDate('1000-01-01T13:00:00+13:00')?.toISOString()).toBe('1000-01-01T00:00:00.000Z');
    expect(parseInputDate('10000-01-01T00:00:00Z')).toBeUndefined();
    expect(parseInputDate('0999-12-31T23:00:00-02:00')?.toISOString()).toBe('1000-01-01T01:00:00.000Z');
  });

  it('round-trips what formatDate writes', () => {
    const tz = parseTimeZone('Asia/Kolkata');
    expect(parseInputDate(formatDate(instant, tz))?.getTime()).toBe(instant.getTime());
    expect(parseInputDate(formatDate(instant, UTC))?.getTime()).toBe(instant.getTime());
  });
});

describe('formatDate across the calendar', () => {
  it('pads every part, negative and half-hour offsets included, outside four-digit years too', () => {
    expect(formatDate(new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03:04:05.006+00:00');
    expect(formatDate(new Date('2026-01-02T03:04:05.006Z'), parseTimeZone('-03:30'))).toBe('2026-01-01T23:34:05.006-03:30');
    expect(formatDate(new Date('0099-12-31T23:59:59.999Z'))).toBe('0099-12-31T23:59:59.999+00:00');
    expect(formatDate(new Date('+012345-06-07T08:09:10.011Z'))).toBe('12345-06-07T08:09:10.011+00:00');
    // Instants across a day: the same text as the engine’s own ISO writer (in UTC).
    for (let ms = Date.UTC(2026, 2, 29); ms < Date.UTC(2026, 2, 30); ms += 997 * 61) {
      const d = new Date(ms);
      expect(formatDate(d)).toBe(d.toISOString().replace('Z', '+00:00'));
    }
  });
});

describe('INPUT_DATE_PATTERN (what the OpenAPI document says an input date is)', () => {
  const pattern = new RegExp(INPUT_DATE_PATTERN);
  // The forms the service reads (a .NET DateTime without offset, 7 digits of fraction, a space, a date alone, lower case...).
  const read = [
    '2026-11-21T15:00:00.000+00:00',
    '2026-11-21T15:00:00Z',
    '2026-11-21T15:00:00',
    '2026-11-21T15:00:00.1234567',
    '2026-11-21T15:00:00,5+0530',
    '2026-11-21 15:00',
    '2026-11-21',
    '2026-11-21t15:00:00z',
    '2026-11-21T15:00:00 -05',
    ' 2026-11-21T15:00:00+05:30 ',
    '0001-01-01T00:00:00',
  ];
  // Texts that are no date: the service answers 400 and the pattern refuses them too.
  const refused = ['21/11/2026', '2026-11-21T15', '2026-11-21T15:00:00.1234567890', 'yesterday', '/Date(1763737200000)/', '2026-11-21T15:00:00+5'];

  it('admits every form the service reads, and the empty text a field reads as null', () => {
    for (const text of read) {
      expect({ text, read: parseInputDate(text) !== undefined }).toEqual({ text, read: true });
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: true });
    }
    expect(pattern.test('')).toBe(true);
  });

  it('refuses what is no date at all, as the service does', () => {
    for (const text of refused) {
      expect({ text, read: parseInputDate(text) }).toEqual({ text, read: undefined });
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: false });
    }
  });

  it('admits every date the service writes, in any zone', () => {
    for (const tz of [UTC, parseTimeZone('Europe/Berlin'), parseTimeZone('-05:00')]) expect(pattern.test(formatDate(instant, tz))).toBe(true);
  });
});

describe('formatDateOnce over many days', () => {
  // More distinct days than the writer keeps texts of (4,096), in two zones: every text as toISOString gives it, with the offset.
  it('writes every instant of 10,000 days as its ISO text in the zone', () => {
    const plus530: TimeZone = { kind: 'fixed', offsetMinutes: 330, label: '+05:30' };
    const iso = (ms: number, offset: number, text: string) => new Date(ms + offset * 60000).toISOString().slice(0, 23) + text;
    const wrong: string[] = [];
    for (let day = 0; day < 10_000; day++) {
      const ms = Date.UTC(1990, 0, 1) + day * 86_400_000 + ((day * 7_919_123) % 86_400_000);
      const d = new Date(ms);
      if (formatDateOnce(d, UTC) !== iso(ms, 0, '+00:00')) wrong.push(formatDateOnce(d, UTC));
      if (formatDateOnce(d, plus530) !== iso(ms, 330, '+05:30')) wrong.push(formatDateOnce(d, plus530));
    }
    expect(wrong).toEqual([]);
  });
});
