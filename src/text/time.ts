/**
 * Timestamps are stored as canonical UTC text, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds, so
 * they sort as text and keep the precision the original has), and rendered in the service's
 * zone (decision D4): ISO 8601 with the zone's offset, `Z` for UTC, microseconds when non-zero.
 */
const INPUT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?(Z|[+-]\d{2}(?::?\d{2})?)$/;
const CANONICAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})\.(\d{6})Z$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** An ISO 8601 timestamp with an offset -> canonical UTC text; null when it is not one. */
export function toCanonicalUtc(text: string): string | null {
  const match = INPUT.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone] = match;
  const [y, mo, d, h, mi, s] = [Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)];
  const days = mo === 2 && !isLeap(y) ? 28 : DAYS_IN_MONTH[mo - 1];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) return null;
  const offset = offsetMinutes(zone);
  if (offset === 0 && zone === 'Z' && fraction.length === 6 && text.length === 27) return text;
  const instant = new Date(Date.UTC(y, mo - 1, d, h, mi, s) - offset * 60_000);
  if (y < 100) instant.setUTCFullYear(instant.getUTCFullYear() - 1900);
  if (Number.isNaN(instant.getTime()) || instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999) return null;
  return `${instant.toISOString().slice(0, 19)}.${fraction.padEnd(6, '0')}Z`;
}

function offsetMinutes(zone: string): number {
  if (zone === 'Z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

const HOUR_MS = 3_600_000;
const HOURS_A_DAY = 24;
/** A day's hours not asked yet (no offset is this far from UTC). */
const UNKNOWN = -32768;
/** Days remembered per zone before they are all forgotten: 110 years of data, a few MiB. */
const MAX_CACHED_DAYS = 40_000;
/** Per zone, per day since the epoch, the offset of each of its hours (UNKNOWN: not asked yet). */
const hourOffsets = new Map<string, Map<number, Int16Array>>();

/**
 * Minutes east of UTC of `zone` at `epochMs`. Asking Intl costs microseconds and a page holds
 * many timestamps, so an hour whose start and end have the same offset is remembered whole
 * (no zone changes its offset twice within an hour); an hour with a change is asked each time.
 * Hours are kept by day, numbers in a typed array: comments of 16 years span 140,000 hours, and
 * a cache of hours keyed by text, emptied at 100,000, asked Intl again for about half of them.
 */
function zoneOffset(zone: string, epochMs: number): number {
  const hour = Math.floor(epochMs / HOUR_MS);
  const day = Math.floor(hour / HOURS_A_DAY);
  let days = hourOffsets.get(zone);
  if (!days) hourOffsets.set(zone, (days = new Map()));
  let hours = days.get(day);
  if (!hours) {
    if (days.size >= MAX_CACHED_DAYS) days.clear();
    days.set(day, (hours = new Int16Array(HOURS_A_DAY).fill(UNKNOWN)));
  }
  const cached = hours[hour - day * HOURS_A_DAY];
  if (cached !== UNKNOWN) return cached;
  const start = intlOffset(zone, hour * HOUR_MS);
  if (start !== intlOffset(zone, (hour + 1) * HOUR_MS - 1)) return intlOffset(zone, epochMs);
  hours[hour - day * HOURS_A_DAY] = start;
  return start;
}

function intlOffset(zone: string, epochMs: number): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  const name = format.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** Canonical UTC text -> ISO 8601 in `zone`. */
export function renderTimestamp(canonical: string, zone: string): string {
  const match = CANONICAL.exec(canonical);
  if (!match) return canonical;
  const [, day, time, micros] = match;
  const epoch = Date.parse(`${day}T${time}Z`);
  const fraction = micros === '000000' ? '' : `.${micros}`;
  const offset = zone === 'UTC' ? 0 : zoneOffset(zone, epoch);
  const local = new Date(epoch + offset * 60_000).toISOString().slice(0, 19);
  if (zone === 'UTC') return `${local}${fraction}Z`;
  const sign = offset < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${local}${fraction}${sign}${hours}:${minutes}`;
}

/** `YYYY-MM-DD` naming a real calendar day. */
export function isIsoDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const day = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** The current instant as timestamps are stored (canonical UTC; JavaScript's clock has milliseconds). */
export const nowCanonical = (): string => `${new Date().toISOString().slice(0, 23)}000Z`;
