/**
 * What every report download reads from its query string (spec/reports.md, "Rules common to
 * every report"): dates that fall back to defaults, booleans, the download cookie, the file name.
 */
import { isIsoDate } from '../text/time.ts';

export interface DateRange {
  start: string;
  end: string;
}

/** A date a client may have left as `{start_date}` or empty: anything not `YYYY-MM-DD` is the default. */
export function reportDate(value: string | undefined, fallback: string): string {
  return value !== undefined && isIsoDate(value) ? value : fallback;
}

/** Start 1900-01-01 and end ten years from today, where the request names no usable date. */
export function dateRange(start: string | undefined, end: string | undefined, today: string): DateRange {
  const tenYears = `${Number(today.slice(0, 4)) + 10}${today.slice(4)}`;
  return { start: reportDate(start, '1900-01-01'), end: reportDate(end, tenYears.endsWith('02-29') ? tenYears.replace('02-29', '02-28') : tenYears) };
}

/** Whether `date` (null: no date) lies in the range: a missing date is kept, as the original keeps it. */
export function within(range: DateRange, start: string | null, end: string | null = start): boolean {
  return (start === null || start >= range.start) && (end === null || end <= range.end);
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
export const reportBoolean = (value: string | undefined) => value !== undefined && TRUE.has(value.toLowerCase());

/** `did=<token>`: letters, digits, `-` and `_`, at most 64; anything else sets no cookie. */
export function downloadCookie(did: string | undefined): string | null {
  return did !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(did) ? `${did}=True; Path=/` : null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Today in a time zone, as `YYYY-MM-DD`. */
export function todayIn(zone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** `{YYYYMonDD}-{id}-{name}.{extension}`, e.g. `2026Nov22-123-results-indicators-overview.pdf`. */
export function reportFilename(today: string, id: number, name: string, extension: string): string {
  return `${today.slice(0, 4)}${MONTHS[Number(today.slice(5, 7)) - 1]}${today.slice(8, 10)}-${id}-${name}.${extension}`;
}
