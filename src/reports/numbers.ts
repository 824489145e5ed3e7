/**
 * Decimal amounts as the reports show them (spec/reports.md, Numbers): summed exactly in cents,
 * never as floats, and written with two places (`1500.50`, not `1500.5000000001`).
 */

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
