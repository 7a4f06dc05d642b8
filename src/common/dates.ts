import { findIana } from 'windows-iana';

/**
 * Dates on the wire (docs/http-and-xml.md): written `YYYY-MM-DDTHH:mm:ss.SSS±HH:MM` in the response's time
 * zone (UTC unless `tz` names another), read leniently as a .NET client writes them.
 */
export type TimeZone = { kind: 'fixed'; offsetMinutes: number; label: string } | { kind: 'iana'; name: string; label: string };

export const UTC: TimeZone = { kind: 'fixed', offsetMinutes: 0, label: 'UTC' };

/** Thrown for a `tz` value that names no known zone; the caller maps it to a 400. */
export class UnknownTimeZoneError extends Error {}

const formatters = new Map<string, Intl.DateTimeFormat>();

function ianaFormatter(name: string): Intl.DateTimeFormat {
  let f = formatters.get(name);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(name, f);
  }
  return f;
}

function isIana(name: string): boolean {
  try {
    ianaFormatter(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses the `tz` query parameter: a fixed offset (`+02:00`, `-0530`, `Z`, `UTC`), an IANA name
 * (`Europe/Berlin`) or a Windows zone id (`W. Europe Standard Time`). Throws UnknownTimeZoneError.
 *
 * A `+` in a query string is the form encoding of a space, so `?tz=+02:00` written as is arrives
 * as `" 02:00"` (and `?tz=UTC+02` as `"UTC 02"`): one space right before the hours is read as the
 * plus sign it was. (Percent-encoded, `%2B02:00`, the `+` arrives intact.)
 */
export function parseTimeZone(input: string): TimeZone {
  const raw = input.replace(/^((?:utc|gmt)?) (?=\d)/i, '$1+').trim();
  if (raw === '' || /^(z|utc|gmt)$/i.test(raw)) return UTC;
  const m = /^(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(raw);
  if (m) {
    const hours = Number(m[2]);
    const minutes = Number(m[3] ?? '0');
    if (hours > 14 || minutes > 59 || hours * 60 + minutes > 14 * 60) throw new UnknownTimeZoneError(`"${input}" is outside ±14:00`);
    const offsetMinutes = (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
    return { kind: 'fixed', offsetMinutes, label: formatOffset(offsetMinutes) };
  }
  if (raw.length <= 64 && /^[A-Za-z0-9_+\-/. ()]+$/.test(raw)) {
    if (raw.includes('/') && isIana(raw)) return { kind: 'iana', name: raw, label: raw };
    const fromWindows = findIana(raw);
    if (fromWindows && fromWindows.length > 0 && isIana(fromWindows[0])) {
      return { kind: 'iana', name: fromWindows[0], label: raw };
    }
    if (isIana(raw)) return { kind: 'iana', name: raw, label: raw };
  }
  throw new UnknownTimeZoneError(`"${input}" is not a known time zone (use an IANA name, a Windows zone id or an offset like +02:00)`);
}

/** The zone's offset from UTC, in minutes, at the given instant. */
export function offsetAt(tz: TimeZone, date: Date): number {
  if (tz.kind === 'fixed') return tz.offsetMinutes;
  const parts = ianaFormatter(tz.name).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const wholeSeconds = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((asUtc - wholeSeconds) / 60000);
}

export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Two- and three-digit zero-padded numbers, so a page of dates does not pad field by field. */
const D2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const D3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const offsetTexts = new Map<number, string>();

/**
 * The texts of instants already written, per zone (an offset's minutes or an IANA name): a
 * record's dates are written again each time it is read, and the dates of a list repeat (a goal's
 * five measures share a few days). A text is a function of the instant and the zone alone, so it
 * is never stale; at most MAX_KEPT_DATES texts in all, all dropped when full. Kept flat (see
 * `flat` in codec.ts), so writing a page of them does not walk each text's pieces again.
 */
const keptDates = new Map<string | number, Map<number, string>>();
let keptDateCount = 0;
const MAX_KEPT_DATES = 20_000;

/** Writes an instant as `YYYY-MM-DDTHH:mm:ss.SSS±HH:MM` in the given zone. */
export function formatDate(date: Date, tz: TimeZone = UTC): string {
  const zone = tz.kind === 'fixed' ? tz.offsetMinutes : tz.name;
  let texts = keptDates.get(zone);
  if (texts === undefined) keptDates.set(zone, (texts = new Map()));
  const instant = date.getTime();
  let text = texts.get(instant);
  if (text === undefined) {
    text = writeDate(date, tz);
    void Number(text); // flattens the text in place (V8)
    if (keptDateCount >= MAX_KEPT_DATES) {
      for (const kept of keptDates.values()) kept.clear();
      keptDateCount = 0;
    }
    // An invalid Date (NaN) is written each time, never kept.
    if (instant === instant) {
      texts.set(instant, text);
      keptDateCount++;
    }
  }
  return text;
}

/**
 * formatDate without the kept texts, for dates written once (an export's rows, each record read
 * once): looking each instant up and keeping its text cost more than writing it (a 100,000-row
 * export filled and cleared the kept texts fifteen times). The same text as formatDate.
 */
export function formatDateOnce(date: Date, tz: TimeZone = UTC): string {
  return writeDate(date, tz);
}

function writeDate(date: Date, tz: TimeZone): string {
  const offset = offsetAt(tz, date);
  const local = offset === 0 ? date : new Date(date.getTime() + offset * 60000);
  const year = local.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) {
    return (
      `${pad(year, 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
      `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
      `.${pad(local.getUTCMilliseconds(), 3)}${formatOffset(offset)}`
    );
  }
  let zone = offsetTexts.get(offset);
  if (zone === undefined) offsetTexts.set(offset, (zone = formatOffset(offset)));
  // Four pieces rather than fourteen: each joint of a text is an object to collect, and an export
  // writes four dates a record (docs/exports.md).
  const dayKey = year * 512 + local.getUTCMonth() * 32 + local.getUTCDate();
  let day = dayTexts.get(dayKey);
  if (day === undefined) {
    if (dayTexts.size >= MAX_DAY_TEXTS) dayTexts.clear();
    day = `${year}-${D2[local.getUTCMonth() + 1]}-${D2[local.getUTCDate()]}T`;
    dayTexts.set(dayKey, day);
  }
  return day + HOUR_MINUTE[local.getUTCHours() * 60 + local.getUTCMinutes()] + SECOND[local.getUTCSeconds()] + D3[local.getUTCMilliseconds()] + zone;
}

/** `YYYY-MM-DDT` of the days written lately (at most MAX_DAY_TEXTS, then begun again). */
const dayTexts = new Map<number, string>();
const MAX_DAY_TEXTS = 4096;
/** `HH:MM:` of each minute of a day, and `SS.` of each second. */
const HOUR_MINUTE = Array.from({ length: 1440 }, (_, m) => `${D2[Math.floor(m / 60)]}:${D2[m % 60]}:`);
const SECOND = Array.from({ length: 60 }, (_, sec) => `${D2[sec]}.`);

/** The DataContract `DateTime` child of a DateTimeOffset: the UTC instant with `Z`. */
export function formatUtcInstant(date: Date): string {
  return date.toISOString();
}

/** The years an input instant may fall in, in UTC (the DATETIME range both databases store). */
export const MIN_YEAR = 1000;
export const MAX_YEAR = 9999;

/**
 * What the OpenAPI document says an input date is (`pattern`, in place of `format: date-time`,
 * which answers keep): every text parseInputDate reads — with or without an offset, date-only, a
 * space for `T`, a comma or up to 9 digits of fraction (.NET writes 7), `z`/`t` in lower case,
 * blanks around it — and the empty text, which a field reads as null. It admits no text the
 * service refuses for its shape; the calendar and the year range are checked by the service (400).
 */
export const INPUT_DATE_PATTERN =
  '^\\s*(?:\\d{4}-\\d{2}-\\d{2}(?:[Tt ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d{1,9})?)?)?\\s*(?:[Zz]|[+-]\\d{2}(?::?\\d{2})?)?)?\\s*$';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Reads an input date leniently: with an offset or `Z`, or without one (read as UTC), date-only
 * too. `0001-01-01T00:00:00` (an unset .NET DateTime) reads as null. Returns undefined when the
 * text is not a date at all, so the caller can name the field in a 400 — and when the instant it
 * names falls outside the years 1000–9999 in UTC, which is what the database stores
 * (`9999-12-31T23:59:59-14:00` is in the year 10000 there; docs/http-and-xml.md, "Dates").
 */
export function parseInputDate(text: string): Date | null | undefined {
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  if (year === 1 && mo === '01' && d === '01') return null;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let offset = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    offset = (zm[1] === '-' ? -1 : 1) * (Number(zm[2]) * 60 + Number(zm[3] ?? '0'));
    if (Math.abs(offset) > 14 * 60) return undefined;
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset * 60000;
  const date = new Date(utc);
  // Reject impossible calendar dates such as 2026-02-30.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1) return undefined;
  const stored = date.getUTCFullYear();
  if (stored < MIN_YEAR || stored > MAX_YEAR) return undefined;
  return date;
}
