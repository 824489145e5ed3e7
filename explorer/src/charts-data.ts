/**
 * What each chart draws, computed from the records the API gives (pure functions: no requests,
 * no drawing). The rules that keep a chart honest live here:
 *  - money is never added across currencies: a money chart is of one currency, picked from the
 *    currencies its records have (the project's currency when an item states none, as the API's
 *    `currency_label` gives it; records with no currency at all are a choice of their own);
 *  - shares are not added across projects: projects are counted;
 *  - target values are not added across indicators (each is in its own indicator's unit): targets are counted;
 *  - code lists' names, not codes; a long distribution is cut to its largest bars and one for the rest.
 * What the explorer names itself ("No date", "The other 12 labels") is in the language spoken
 * (i18n/); the names the API gives stay as it gives them.
 */
import type { Row } from './api';
import { t } from './i18n';

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
  /** The series standing for the others, cut (cutSeries): grey. */
  others?: string;
}

/** One choice of a chart's currency picker. */
export interface Currency {
  /** What records are grouped by (see budgetCurrency and transactionCurrency). */
  key: string;
  /** The ISO 4217 code, or the name when no record tells the code; null when none is stated. */
  unit: string | null;
  /** "EUR – Euro", "Euro", or "No currency stated". */
  title: string;
  count: number;
}

/** The key of the records of no year (last on a year axis). */
export const noDate = () => t('charts.noDate');

const numberOf = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : null);
/** The year of an ISO date, or "No date". */
export const yearOf = (date: unknown) => (typeof date === 'string' && /^\d{4}/.test(date) ? date.slice(0, 4) : noDate());
/** "298 - Africa, regional" → "Africa, regional" (a code list's label without its code). */
export const nameOf = (label: unknown) => (typeof label === 'string' ? label.replace(/^[^\s]+ - /, '') : '');

/** Years in order, "No date" last. */
const byYear = (a: string, b: string) => (a === noDate() ? 1 : b === noDate() ? -1 : a.localeCompare(b));

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
export function currencies(rows: readonly Row[], currencyOf: (row: Row) => { key: string; code: string; name: string }): Currency[] {
  const found = new Map<string, { code: string; name: string; count: number }>();
  for (const row of rows) {
    const { key, code, name } = currencyOf(row);
    const known = found.get(key) ?? { code, name, count: 0 };
    known.count += 1;
    found.set(key, known);
  }
  return [...found]
    .map(([key, { code, name, count }]) => ({ key, unit: code || name || null, count, title: code && name ? `${code} – ${name}` : code || name || t('charts.noCurrency') }))
    .sort((a, b) => b.count - a.count || (a.unit ?? '').localeCompare(b.unit ?? ''));
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
  return { bars: [...merged.values()], keys: data.keys, series: [...kept, other], others: other };
}

// --- The charts -----------------------------------------------------------------------------

/** Horizontal charts show this many bars at most, and one for the rest. */
export const MOST_BARS = 15;
/** Stacked charts show this many series at most, and one for the rest (one colour each: see PALETTE). */
export const MOST_SERIES = 8;

/** Budget items of one currency: the sum of their amounts per budget label, largest first. */
export function budgetByLabel(rows: readonly Row[], currency: string): ChartData {
  const mine = rows.filter((row) => budgetCurrency(row).key === currency);
  const data = sums(mine, (row) => (row.label === null || row.label === undefined ? t('charts.noLabel') : String(row.label_label)), () => 'Amount', (row) => numberOf(row.amount));
  return cutKeys(largestKeysFirst(data), MOST_BARS, (others) => t('charts.otherLabels', others));
}

/** Budget items of one currency: the sum of their amounts per year their period starts, "No date" last. */
export function budgetByYear(rows: readonly Row[], currency: string): ChartData {
  const mine = rows.filter((row) => budgetCurrency(row).key === currency);
  const data = sums(mine, (row) => yearOf(row.period_start), () => 'Amount', (row) => numberOf(row.amount));
  return { ...data, keys: [...data.keys].sort(byYear) };
}

/** IATI 1 transaction types, still found in old records (the API gives their code as the label): IATI's English names, as the API's labels of the others are. */
const OLD_TRANSACTION_TYPES: Readonly<Record<string, string>> = {
  C: 'Commitment', CG: 'Credit Guarantee', D: 'Disbursement', E: 'Expenditure', IF: 'Incoming Funds',
  IR: 'Interest Repayment', LR: 'Loan Repayment', QP: 'Purchase of Equity', QS: 'Sale of Equity', R: 'Reimbursement',
};

/** "3 - Disbursement" → "Disbursement"; an IATI 1 code "D" → "Disbursement (IATI 1 code D)"; none → "No type stated". */
export function transactionTypeName(row: Row): string {
  const code = typeof row.transaction_type === 'string' ? row.transaction_type : '';
  if (!code) return t('charts.noType');
  if (Object.hasOwn(OLD_TRANSACTION_TYPES, code)) return t('charts.oldType', OLD_TRANSACTION_TYPES[code], code);
  const label = typeof row.transaction_type_label === 'string' ? row.transaction_type_label : '';
  return label && label !== code ? nameOf(label) : t('charts.type', code);
}

/** Transactions of one currency: the sum of their values per year and type; the largest types, the others as one. */
export function transactionsByTypeAndYear(rows: readonly Row[], currency: string, codes: ReadonlyMap<string, string>): ChartData {
  const mine = rows.filter((row) => transactionCurrency(row, codes).key === currency);
  const data = sums(mine, (row) => yearOf(row.transaction_date), transactionTypeName, (row) => numberOf(row.value));
  return cutSeries({ ...data, keys: [...data.keys].sort(byYear) }, MOST_SERIES, (others) => t('charts.otherTypes', others));
}

/**
 * Projects per recipient region: each project once per region it has a share in, as "all of
 * it" (its shares there add to 100 %) or "part of it"; the largest regions, the others as one
 * bar counting each project once however many of those regions it has.
 */
export function projectsPerRegion(rows: readonly Row[]): ChartData {
  const regionOf = (row: Row) => nameOf(row.region_label) || (typeof row.region === 'string' && row.region) || t('charts.noRegion');
  const regionTotals = new Map<string, Set<unknown>>();
  for (const row of rows) regionTotals.set(regionOf(row), (regionTotals.get(regionOf(row)) ?? new Set()).add(row.project));
  const ordered = [...regionTotals.keys()].sort((a, b) => regionTotals.get(b)!.size - regionTotals.get(a)!.size || a.localeCompare(b));
  const cut = ordered.length > MOST_BARS + 1;
  const kept = new Set(cut ? ordered.slice(0, MOST_BARS) : ordered);
  const other = t('charts.otherRegions', ordered.length - MOST_BARS);
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
  const [whole, part, unstated] = [t('charts.whole'), t('charts.part'), t('charts.unstated')];
  const data = sums(
    [...shares.values()].map((share, index) => ({ id: index, ...share })),
    (row) => String(row.group),
    (row) => (row.share === null ? unstated : (row.share as number) >= 99.95 ? whole : part),
    () => 1,
  );
  const keys = cut ? [...kept, other] : ordered;
  return { ...data, keys, series: [whole, part, unstated].filter((name) => data.series.includes(name)) };
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
    if (row.dimension_value === null || row.dimension_value === undefined) return t('charts.noDimensionValue');
    const named = names.get(Number(row.dimension_value));
    return named ? `${named.dimension}: ${named.value}` : t('charts.unnamedValue', String(row.dimension_value), String(row.dimension_name ?? '?'));
  };
  return cutKeys(largestKeysFirst(sums(rows, keyOf, () => 'Targets', () => 1)), MOST_BARS, (others) => t('charts.otherValues', others));
}

// --- Colours --------------------------------------------------------------------------------

/** Tableau's ten colours, each distinct: nine for series, the grey kept for "the others". */
export const PALETTE = ['#4e79a7', '#f28e2c', '#e15759', '#76b7b2', '#59a14f', '#edc949', '#af7aa1', '#ff9da7', '#9c755f'] as const;
export const OTHERS_COLOUR = '#bab0ab';

/** One colour per series, never two series with one colour (series beyond the palette are cut first: MOST_SERIES); the others' grey. */
export function coloursOf(series: readonly string[], others?: string): string[] {
  if (series.length > PALETTE.length) throw new RangeError(`${series.length} series: cut them to ${PALETTE.length} first`);
  return series.map((name, index) => (name === others ? OTHERS_COLOUR : PALETTE[index]));
}
