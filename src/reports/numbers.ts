/**
 * Decimal amounts as the reports show them (spec/reports.md, Numbers): summed exactly in cents,
 * never as floats, and written with two places (`1500.50`, not `1500.5000000001`).
 */
import type { Row } from '../resources/define.ts';

/** A stored decimal (number or text; null is zero) in cents. */
export const toCents = (value: number | string | null): bigint => BigInt(Math.round(Number(value ?? 0) * 100));

export const sumCents = (values: readonly (number | string | null)[]): bigint => values.reduce<bigint>((total, value) => total + toCents(value), 0n);

/** `12500.50`, or with `thousands` `12,500.50` (money in PDF and Word). */
export function centsText(cents: bigint, thousands = false): string {
  const sign = cents < 0n ? '-' : '';
  const magnitude = cents < 0n ? -cents : cents;
  const whole = String(magnitude / 100n);
  return `${sign}${thousands ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : whole}.${String(magnitude % 100n).padStart(2, '0')}`;
}

/** `85.5 %`; empty where there is no percentage. */
export const percentText = (value: number | null): string => (value === null ? '' : `${value.toFixed(1)} %`);

/** `2024-01-01 – 2024-12-31`; a missing date is `…`, and none at all `not set`. */
export const periodText = (start: string | null, end: string | null): string => (start === null && end === null ? 'not set' : `${start ?? '…'} – ${end ?? '…'}`);

/** A decimal amount with thousands separators and two places (PDF and Word money). */
export const moneyText = (value: number | string | null): string => centsText(toCents(value), true);

/** `2024-01-01 - 2024-12-31` as the Excel tables write a reporting period (a missing date empty). */
export const reportingPeriod = (start: string | null, end: string | null): string => `${start ?? ''} - ${end ?? ''}`;

/** Amounts summed per currency, currencies in code order: budgets, funding, totals. */
export function totalsByCurrency(amounts: Iterable<readonly [currency: string, cents: bigint]>): [currency: string, cents: bigint][] {
  const totals = new Map<string, bigint>();
  for (const [currency, cents] of amounts) totals.set(currency, (totals.get(currency) ?? 0n) + cents);
  return [...totals].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** A budget item's currency: its own, or where it names none, its project's. */
export const itemCurrency = (item: Row, project: Row): string => item.currency || project.currency;

export type Grade = 'high' | 'medium' | 'low';

/** high 85–100 %, medium 50–84 %, low 0–49 % (and beyond 100 % is high). */
export function grade(percent: number | null): Grade | null {
  if (percent === null) return null;
  return percent >= 85 ? 'high' : percent >= 50 ? 'medium' : 'low';
}
