/**
 * Numbers, sizes and dates as the chosen language writes them (Intl): "10,437" in English,
 * "10.437" in Spanish, "10 437" in French. Values the API gives stay what they are; only how
 * they are written changes.
 */
import { locale } from './locale';

export const num = (value: number, options?: Intl.NumberFormatOptions) => value.toLocaleString(locale(), { maximumFractionDigits: 2, ...options });

/** 1.2 MB, 35 kB. */
export function bytes(count: number): string {
  const [unit, size] = count >= 1e6 ? (['megabyte', count / 1e6] as const) : count >= 1e3 ? (['kilobyte', count / 1e3] as const) : (['byte', count] as const);
  return size.toLocaleString(locale(), { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 });
}

/** "a, b and c" ("a, b y c", "a, b et c"). */
export const list = (items: string[]) => new Intl.ListFormat(locale(), { type: 'conjunction' }).format(items);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * A date (2023-01-31) or timestamp of the API as the language writes it; any other text as it is.
 * A date is a day wherever the reader is (UTC: never the day before); a timestamp is shown in
 * the reader's time zone.
 */
export function date(value: string): string {
  if (DATE.test(value)) return new Date(`${value}T00:00:00Z`).toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' });
  if (TIMESTAMP.test(value)) {
    const moment = new Date(value);
    if (!Number.isNaN(moment.getTime())) return moment.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  }
  return value;
}
