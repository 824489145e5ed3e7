/** The sums each chart draws, from the records the API gives: one row per bar (or segment). */
import type { Row } from './api';

export interface Bar {
  key: string;
  series: string;
  value: number;
}

/** Sums `value` per (key, series), in the order keys first appear; a missing value counts as 0. */
export function sums(rows: readonly Row[], key: (row: Row) => string, series: (row: Row) => string, value: (row: Row) => number | null): Bar[] {
  const totals = new Map<string, Bar>();
  for (const row of rows) {
    const bar = { key: key(row), series: series(row) };
    const id = JSON.stringify([bar.key, bar.series]);
    const known = totals.get(id) ?? { ...bar, value: 0 };
    known.value += value(row) ?? 0;
    totals.set(id, known);
  }
  return [...totals.values()];
}

/** "EUR - Euro" → "EUR"; none → "no currency". */
export const currencyCode = (label: unknown) => (typeof label === 'string' && label ? label.split(' - ')[0] : 'no currency');
/** The year of an ISO date, or "no date". */
export const yearOf = (date: unknown) => (typeof date === 'string' && date.length >= 4 ? date.slice(0, 4) : 'no date');
export const amount = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : null);

export const budgetByLabel = (rows: readonly Row[]) =>
  sums(rows, (row) => (row.label === null ? 'No label' : String(row.label_label)), (row) => currencyCode(row.currency_label), (row) => amount(row.amount));
export const budgetByYear = (rows: readonly Row[]) => sums(rows, (row) => yearOf(row.period_start), (row) => currencyCode(row.currency_label), (row) => amount(row.amount));
export const transactionsByTypeAndYear = (rows: readonly Row[]) =>
  sums(rows, (row) => yearOf(row.transaction_date), (row) => `type ${row.transaction_type || '?'}`, (row) => amount(row.value));
export const regionShares = (rows: readonly Row[]) => sums(rows, (row) => String(row.region_label || row.region || 'unknown'), () => 'share', (row) => amount(row.percentage));
export const targetsByDimension = (rows: readonly Row[]) => sums(rows, (row) => String(row.dimension_name ?? 'unknown'), () => 'target', (row) => amount(row.value));
