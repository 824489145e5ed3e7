/**
 * What each chart draws, computed from the records the API gives (pure functions: no requests,
 * no drawing). The rules that keep a chart honest live here:
 *  - money is never added across currencies: a money chart is of one currency, picked from the
 *    currencies its records have (the project's currency when an item states none, as the API's
 *    `currency_label` gives it; records with no currency at all are a choice of their own);
 *  - shares are not added across projects: projects are counted;
 *  - target values are not added across indicators (each is in its own indicator's unit): targets are counted;
 *  - code lists' names, not codes; a long distribution is cut to its largest bars and one for the rest.
 */
import type { Row } from './api';

/** One bar (or one segment of a stacked bar). */
export interface Bar {
  key: string;
  series: string;
  value: number;
}

/** What a chart draws: its bars, the order of its keys (along the band axis) and of its series. */
export interface ChartData {
  bars: Bar[];
  keys: string[];
  series: string[];
}

/** One choice of a chart's currency picker. */
export interface Currency {
  /** What records are grouped by (see budgetCurrency and transactionCurrency). */
  key: string;
  /** The ISO 4217 code, or the name when no record tells the code, or "currency not stated". */
  unit: string;
  /** "EUR – Euro (6,340 records)". */
  label: string;
  count: number;
}

export const NO_CURRENCY = 'currency not stated';
export const NO_DATE = 'No date';

const numberOf = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : null);
/** The year of an ISO date, or "No date". */
export const yearOf = (date: unknown) => (typeof date === 'string' && /^\d{4}/.test(date) ? date.slice(0, 4) : NO_DATE);
/** "298 - Africa, regional" → "Africa, regional" (a code list's label without its code). */
export const nameOf = (label: unknown) => (typeof label === 'string' ? label.replace(/^[^\s]+ - /, '') : '');

/** Years in order, "No date" last. */
const byYear = (a: string, b: string) => (a === NO_DATE ? 1 : b === NO_DATE ? -1 : a.localeCompare(b));

// --- Currencies -----------------------------------------------------------------------------

/** A budget item's currency: its `currency_label` ("EUR - Euro", its project's when it states none). */
export function budgetCurrency(row: Row): { key: string; code: string; name: string } {
  const label = typeof row.currency_label === 'string' ? row.currency_label : '';
  const [code, ...name] = label.split(' - ');
  return { key: code ?? '', code: code ?? '', name: name.join(' - ') };
}

/**
 * A transaction's currency: its `currency_label` is the currency's name alone ("Euro", its
 * project's when it states none); the code is known from the records that state it.
 */
export function transactionCurrency(row: Row, codes: ReadonlyMap<string, string>): { key: string; code: string; name: string } {
  const name = typeof row.currency_label === 'string' ? row.currency_label : '';
  return { key: name, code: codes.get(name) ?? '', name };
}

/** Currency names → codes, from the transactions that state their own currency. */
export function transactionCurrencyCodes(rows: readonly Row[]): Map<string, string> {
  const codes = new Map<string, string>();
  for (const row of rows) if (typeof row.currency === 'string' && row.currency && typeof row.currency_label === 'string' && row.currency_label) codes.set(row.currency_label, row.currency);
  return codes;
}

/** The currencies of `rows`, the most frequent first (then by unit): the picker's choices. */
export function currencies(rows: readonly Row[], currencyOf: (row: Row) => { key: string; code: string; name: string }, noun = 'records'): Currency[] {
  const found = new Map<string, { code: string; name: string; count: number }>();
  for (const row of rows) {
    const { key, code, name } = currencyOf(row);
    const known = found.get(key) ?? { code, name, count: 0 };
    known.count += 1;
    found.set(key, known);
  }
  return [...found]
    .map(([key, { code, name, count }]) => {
      const title = code && name ? `${code} – ${name}` : code || name || 'No currency stated';
      return { key, unit: code || name || NO_CURRENCY, count, label: `${title} (${count.toLocaleString('en')} ${count === 1 ? noun.replace(/s$/, '') : noun})` };
    })
    .sort((a, b) => b.count - a.count || a.unit.localeCompare(b.unit));
}

// --- Sums and cuts --------------------------------------------------------------------------

/** Sums `value` per (key, series); a missing value counts as 0. Keys and series in the order they first appear. */
export function sums(rows: readonly Row[], key: (row: Row) => string, series: (row: Row) => string, value: (row: Row) => number | null): ChartData {
  const totals = new Map<string, Bar>();
  const keys = new Set<string>();
  const named = new Set<string>();
  for (const row of rows) {
    const bar = { key: key(row), series: series(row) };
    const id = JSON.stringify([bar.key, bar.series]);
    const known = totals.get(id) ?? { ...bar, value: 0 };
    known.value += value(row) ?? 0;
    totals.set(id, known);
    keys.add(bar.key);
    named.add(bar.series);
  }
  return { bars: [...totals.values()], keys: [...keys], series: [...named] };
}

const totalsOf = (data: ChartData, of: 'key' | 'series') => {
  const totals = new Map<string, number>();
  for (const bar of data.bars) totals.set(bar[of], (totals.get(bar[of]) ?? 0) + Math.abs(bar.value));
  return totals;
};

/** Keys by their bars' total size, largest first (ties by name). */
export function largestKeysFirst(data: ChartData): ChartData {
  const totals = totalsOf(data, 'key');
  return { ...data, keys: [...data.keys].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b)) };
}

/**
 * The first `most` keys as they are and one bar `rest(n)` for the n others (only when n ≥ 2: one
 * key is shown as itself); the rest's values are the sums of the keys cut (so only for values
 * that add up: projectsPerRegion counts its rest from the records instead).
 */
export function cutKeys(data: ChartData, most: number, rest: (others: number) => string): ChartData {
  if (data.keys.length <= most + 1) return data;
  const kept = new Set(data.keys.slice(0, most));
  const other = rest(data.keys.length - most);
  const merged = new Map<string, Bar>();
  for (const bar of data.bars) {
    const key = kept.has(bar.key) ? bar.key : other;
    const id = JSON.stringify([key, bar.series]);
    const known = merged.get(id) ?? { key, series: bar.series, value: 0 };
    known.value += bar.value;
    merged.set(id, known);
  }
  return { bars: [...merged.values()], keys: [...kept, other], series: data.series };
}

/** As cutKeys, for series: the largest `most` series and "rest(n)" for the others (n ≥ 2). */
export function cutSeries(data: ChartData, most: number, rest: (others: number) => string): ChartData {
  const totals = totalsOf(data, 'series');
  const ordered = [...data.series].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  if (ordered.length <= most + 1) return { ...data, series: ordered };
  const kept = new Set(ordered.slice(0, most));
  const other = rest(ordered.length - most);
  const merged = new Map<string, Bar>();
  for (const bar of data.bars) {
    const series = kept.has(bar.series) ? bar.series : other;
    const id = JSON.stringify([bar.key, series]);
    const known = merged.get(id) ?? { key: bar.key, series, value: 0 };
    known.value += bar.value;
    merged.set(id, known);
  }
  return { bars: [...merged.values()], keys: data.keys, series: [...kept, other] };
}

// --- The charts -----------------------------------------------------------------------------

/** Horizontal charts show this many bars at most, and one for the rest. */
export const MOST_BARS = 15;
/** Stacked charts show this many series at most, and one for the rest (one colour each: see PALETTE). */
export const MOST_SERIES = 8;

/** Budget items of one currency: the sum of their amounts per budget label, largest first. */
export function budgetByLabel(rows: readonly Row[], currency: string): ChartData {
  const mine = rows.filter((row) => budgetCurrency(row).key === currency);
  const data = sums(mine, (row) => (row.label === null || row.label === undefined ? 'No label stated' : String(row.label_label)), () => 'Amount', (row) => numberOf(row.amount));
  return cutKeys(largestKeysFirst(data), MOST_BARS, (others) => `The other ${others} labels`);
}

/** Budget items of one currency: the sum of their amounts per year their period starts, "No date" last. */
export function budgetByYear(rows: readonly Row[], currency: string): ChartData {
  const mine = rows.filter((row) => budgetCurrency(row).key === currency);
  const data = sums(mine, (row) => yearOf(row.period_start), () => 'Amount', (row) => numberOf(row.amount));
  return { ...data, keys: [...data.keys].sort(byYear) };
}

/** IATI 1 transaction types, still found in old records (the API gives their code as the label). */
const OLD_TRANSACTION_TYPES: Readonly<Record<string, string>> = {
  C: 'Commitment', CG: 'Credit Guarantee', D: 'Disbursement', E: 'Expenditure', IF: 'Incoming Funds',
  IR: 'Interest Repayment', LR: 'Loan Repayment', QP: 'Purchase of Equity', QS: 'Sale of Equity', R: 'Reimbursement',
};

/** "3 - Disbursement" → "Disbursement"; an IATI 1 code "D" → "Disbursement (IATI 1 code D)"; none → "No type stated". */
export function transactionTypeName(row: Row): string {
  const code = typeof row.transaction_type === 'string' ? row.transaction_type : '';
  if (!code) return 'No type stated';
  if (Object.hasOwn(OLD_TRANSACTION_TYPES, code)) return `${OLD_TRANSACTION_TYPES[code]} (IATI 1 code ${code})`;
  const label = typeof row.transaction_type_label === 'string' ? row.transaction_type_label : '';
  return label && label !== code ? nameOf(label) : `Type ${code}`;
}

/** Transactions of one currency: the sum of their values per year and type; the largest types, the others as one. */
export function transactionsByTypeAndYear(rows: readonly Row[], currency: string, codes: ReadonlyMap<string, string>): ChartData {
  const mine = rows.filter((row) => transactionCurrency(row, codes).key === currency);
  const data = sums(mine, (row) => yearOf(row.transaction_date), transactionTypeName, (row) => numberOf(row.value));
  return cutSeries({ ...data, keys: [...data.keys].sort(byYear) }, MOST_SERIES, (others) => `The other ${others} types`);
}

export const WHOLE = 'All of the project (100 %)';
export const PART = 'Part of the project (under 100 %)';
export const UNSTATED = 'Share not stated';

/**
 * Projects per recipient region: each project once per region it has a share in, as "all of
 * it" (its shares there add to 100 %) or "part of it"; the largest regions, the others as one
 * bar counting each project once however many of those regions it has.
 */
export function projectsPerRegion(rows: readonly Row[]): ChartData {
  const regionOf = (row: Row) => nameOf(row.region_label) || (typeof row.region === 'string' && row.region) || 'No region stated';
  const regionTotals = new Map<string, Set<unknown>>();
  for (const row of rows) regionTotals.set(regionOf(row), (regionTotals.get(regionOf(row)) ?? new Set()).add(row.project));
  const ordered = [...regionTotals.keys()].sort((a, b) => regionTotals.get(b)!.size - regionTotals.get(a)!.size || a.localeCompare(b));
  const cut = ordered.length > MOST_BARS + 1;
  const kept = new Set(cut ? ordered.slice(0, MOST_BARS) : ordered);
  const other = `The other ${ordered.length - MOST_BARS} regions`;
  const groupOf = (row: Row) => (kept.has(regionOf(row)) ? regionOf(row) : other);
  // Each project's share per group: the sum of its percentages there (null when none is stated).
  const shares = new Map<string, { group: string; share: number | null }>();
  for (const row of rows) {
    const id = JSON.stringify([groupOf(row), row.project]);
    const known = shares.get(id) ?? { group: groupOf(row), share: null };
    const percentage = numberOf(row.percentage);
    if (percentage !== null) known.share = (known.share ?? 0) + percentage;
    shares.set(id, known);
  }
  const data = sums(
    [...shares.values()].map((share, index) => ({ id: index, ...share })),
    (row) => String(row.group),
    (row) => (row.share === null ? UNSTATED : (row.share as number) >= 99.95 ? WHOLE : PART),
    () => 1,
  );
  const keys = cut ? [...kept, other] : ordered;
  return { ...data, keys, series: [WHOLE, PART, UNSTATED].filter((name) => data.series.includes(name)) };
}

/** The names of dimension values, by value id: "Sex" and "Female". */
export type DimensionNames = ReadonlyMap<number, { dimension: string; value: string }>;

/**
 * Disaggregation targets counted per dimension value ("Sex: Female"), largest first; their values
 * are not added (each target is in its own indicator's unit). A value missing from the names (made
 * since they were read) is shown by its ids.
 */
export function targetsPerDimensionValue(rows: readonly Row[], names: DimensionNames): ChartData {
  const keyOf = (row: Row) => {
    if (row.dimension_value === null || row.dimension_value === undefined) return 'No dimension value stated';
    const named = names.get(Number(row.dimension_value));
    return named ? `${named.dimension}: ${named.value}` : `Value #${row.dimension_value} of dimension #${row.dimension_name ?? '?'}`;
  };
  return cutKeys(largestKeysFirst(sums(rows, keyOf, () => 'Targets', () => 1)), MOST_BARS, (others) => `The other ${others} values`);
}

// --- Colours --------------------------------------------------------------------------------

/** Tableau's ten colours, each distinct: nine for series, the grey kept for "the others". */
export const PALETTE = ['#4e79a7', '#f28e2c', '#e15759', '#76b7b2', '#59a14f', '#edc949', '#af7aa1', '#ff9da7', '#9c755f'] as const;
export const OTHERS_COLOUR = '#bab0ab';

/** One colour per series, never two series with one colour (series beyond the palette are cut first: MOST_SERIES). */
export function coloursOf(series: readonly string[]): string[] {
  if (series.length > PALETTE.length) throw new RangeError(`${series.length} series: cut them to ${PALETTE.length} first`);
  return series.map((name, index) => (/^The other \d+ /.test(name) ? OTHERS_COLOUR : PALETTE[index]));
}
