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
