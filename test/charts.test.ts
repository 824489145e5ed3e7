/**
 * The explorer's charts cannot mislead: in a real browser (Debian's chromium through
 * playwright-core) against the real server on a demo dataset, every chart's numbers (its table
 * and its bars' titles) equal sums and counts computed here from the API's own records, read
 * page by page; each money chart is of one currency (every choice of its picker is checked), its
 * axis naming that one; shares and target values are counted, not added; names, not codes or
 * ids; one colour per series; no chart taller than a screen; a sentence saying what each shows.
 * For every project, and for one project with several currencies. The expectations are computed
 * here, not by the explorer's functions, so that a wrong chart fails.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { generateDemo } from '../demo/generate.ts';
import { ARTIFACTS, launchBrowser, openPage } from './support/browser.ts';
import { request, startServer, testStores, useServer } from './support/server.ts';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- records read back
type Dom = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- elements in the page (the tests have no DOM types)
declare const getComputedStyle: (element: Dom) => { backgroundColor: string };

const [store] = testStores();
const BUILT = new URL('../dist/explorer/index.html', import.meta.url).pathname;
/** A chart's drawing and the whole chart (closed table) at most this tall, in pixels. */
const SCREEN = 900;
/** Horizontal charts draw at most this many bars plus one for the rest; stacked ones this many series plus one. */
const MOST_BARS = 15;
const MOST_SERIES = 8;

/** Currency names → ISO codes, from the shared code list (transactions' currency_label is the name). */
const CURRENCY_CODES = new Map((JSON.parse(readFileSync(new URL('../codelists/currency.json', import.meta.url), 'utf8')) as { code: string; name: string }[]).map((row) => [row.name, row.code]));
/** IATI 1 transaction types (the API labels them with their code). */
const OLD_TYPES: Record<string, string> = {
  C: 'Commitment', CG: 'Credit Guarantee', D: 'Disbursement', E: 'Expenditure', IF: 'Incoming Funds',
  IR: 'Interest Repayment', LR: 'Loan Repayment', QP: 'Purchase of Equity', QS: 'Sale of Equity', R: 'Reimbursement',
};

const year = (date: unknown) => (typeof date === 'string' && date ? date.slice(0, 4) : 'No date');
const withoutCode = (label: string) => label.replace(/^\S+ - /, '');
const amount = (value: unknown) => (value === null || value === undefined || value === '' ? 0 : Number(value));
const number = (text: string) => Number(text.replace(/,/g, ''));
const close = (drawn: number, expected: number) => Math.abs(drawn - Math.round(expected * 100) / 100) < 0.011;
const add = <K>(totals: Map<K, number>, key: K, value: number) => totals.set(key, (totals.get(key) ?? 0) + value);
const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;

/** What a chart shows, read from the page. */
interface Drawn {
  sentence: string;
  svgHeight: number;
  figureHeight: number;
  headers: string[];
  rows: string[][];
  axisLabels: string[];
  bars: { fill: string | null; title: string }[];
  legend: { series: string; colour: string }[];
  options: { value: string; label: string }[];
  selected: string | null;
}

function readChart(figure: Locator): Promise<Drawn> {
  // No named functions in here: the test's compiler would wrap them in a helper the page lacks.
  return figure.evaluate((element: Dom) => {
    const svg = element.querySelector('div.plot svg');
    const select = element.querySelector('select[name=currency]');
    return {
      sentence: (element.querySelector('.chart-sentence')?.textContent ?? '').trim(),
      svgHeight: svg.getBoundingClientRect().height,
      figureHeight: element.getBoundingClientRect().height,
      headers: [...element.querySelectorAll('details table thead th')].map((cell: Dom) => cell.textContent.trim()),
      rows: [...element.querySelectorAll('details table tbody tr')].map((row: Dom) => [...row.querySelectorAll('td')].map((cell: Dom) => cell.textContent.trim())),
      axisLabels: [...svg.querySelectorAll('g[aria-label$="-axis label"] text')].map((label: Dom) => label.textContent.trim()),
      bars: [...svg.querySelectorAll('g[aria-label="bar"] rect')].map((rect: Dom) => ({ fill: rect.getAttribute('fill'), title: (rect.querySelector('title')?.textContent ?? '').trim() })),
      legend: [...element.querySelectorAll('ul.legend li')].map((item: Dom) => ({ series: item.dataset.series, colour: getComputedStyle(item.querySelector('.swatch')).backgroundColor })),
      options: select ? [...select.options].map((option: Dom) => ({ value: option.value, label: option.textContent.trim() })) : [],
      selected: select ? select.value : null,
    };
  });
}

/** The drawn numbers as (key, series) → value: from the table, checked against the bars' titles. */
function numbersOf(drawn: Drawn, name: string): Map<string, number> {
  const stacked = drawn.headers.length === 3;
  const table = new Map<string, number>();
  for (const cells of drawn.rows) {
    const [key, series, value] = stacked ? cells : [cells[0], '', cells[1]];
    const id = JSON.stringify([key, series]);
    assert.ok(!table.has(id), `${name}: one row for ${id}`);
    table.set(id, number(value));
  }
  // Every bar is a row of the table, with its number.
  assert.equal(drawn.bars.length, table.size, `${name}: one bar per row of the table`);
  for (const bar of drawn.bars) {
    const at = bar.title.lastIndexOf(': ');
    const label = bar.title.slice(0, at);
    const [key, series] = stacked ? [label.slice(0, label.lastIndexOf(' — ')), label.slice(label.lastIndexOf(' — ') + 3)] : [label, ''];
    assert.equal(table.get(JSON.stringify([key, series])), number(bar.title.slice(at + 2)), `${name}: the bar "${bar.title}" has the table's number`);
  }
  return table;
}

/** The unit a value axis names: exactly one axis label (the value axis), arrows aside. */
function axisUnit(drawn: Drawn, name: string): string {
  assert.equal(drawn.axisLabels.length, 1, `${name}: one axis with a label, the value axis (${drawn.axisLabels.join(' | ')})`);
  const label = drawn.axisLabels[0].replace(/^↑\s*|\s*→$/g, '');
  assert.equal(drawn.headers.at(-1), label, `${name}: the table's number column is in the axis's unit`);
  return label;
}

/** Common to every chart: a sentence, one unit, bounded height, one colour per series (legend and bars). */
function checkShape(drawn: Drawn, name: string) {
  assert.match(drawn.sentence, /^[A-Z][^]*\.$/, `${name}: says what it shows`);
  assert.equal(drawn.sentence.split(/\.\s/).length, 1, `${name}: in one sentence: ${drawn.sentence}`);
  assert.ok(drawn.svgHeight > 0 && drawn.svgHeight <= SCREEN, `${name}: drawing ${drawn.svgHeight}px tall`);
  assert.ok(drawn.figureHeight <= SCREEN, `${name}: chart ${drawn.figureHeight}px tall`);
  const stacked = drawn.headers.length === 3;
  if (stacked) {
    const colours = drawn.legend.map((item) => item.colour);
    assert.equal(new Set(colours).size, colours.length, `${name}: no colour for two series (${colours.join(' ')})`);
    const colourOf = new Map(drawn.legend.map((item) => [item.series, item.colour]));
    for (const bar of drawn.bars) {
      const series = bar.title.slice(bar.title.lastIndexOf(' — ') + 3, bar.title.lastIndexOf(': '));
      assert.equal(hexToRgb(bar.fill ?? ''), colourOf.get(series), `${name}: "${bar.title}" in its series' colour`);
    }
    assert.deepEqual(new Set(drawn.rows.map((cells) => cells[1])), new Set(colourOf.keys()), `${name}: the legend names the series drawn`);
  } else {
    assert.equal(drawn.legend.length, 0, `${name}: one series, no legend`);
    assert.equal(new Set(drawn.bars.map((bar) => bar.fill)).size, 1, `${name}: one series, one colour`);
  }
  for (const cells of drawn.rows) {
    for (const cell of cells.slice(0, -1)) assert.doesNotMatch(cell, /^\d+ - |^Type \S+$|^Value #|^undefined$|^null$/, `${name}: a name, not a code or id: "${cell}"`);
  }
}

/**
 * Drawn keys against expected sums per key: each key drawn has its sum; a "The other N …" bar,
 * when there is one, stands for the N ≥ 2 keys not drawn, with their sum, and they are no larger
 * than any drawn. `restOf` sums what the rest stands for (counts of distinct things do not add).
 */
function checkCut(drawn: Map<string, number>, expected: Map<string, number>, rest: RegExp, name: string, restOf?: (hidden: string[]) => number) {
  const restKeys = [...drawn.keys()].filter((key) => rest.test(key));
  assert.ok(restKeys.length <= 1, name);
  assert.ok(drawn.size <= MOST_BARS + 1, `${name}: ${drawn.size} bars`);
  const shown = [...drawn.keys()].filter((key) => !rest.test(key));
  for (const key of shown) assert.ok(expected.has(key) && close(drawn.get(key)!, expected.get(key)!), `${name}: "${key}" drawn ${drawn.get(key)}, computed ${expected.get(key)}`);
  const hidden = [...expected.keys()].filter((key) => !drawn.has(key));
  if (!restKeys.length) {
    assert.deepEqual(hidden, [], `${name}: every key drawn`);
    return;
  }
  assert.equal(Number(rest.exec(restKeys[0])![1]), hidden.length, `${name}: the rest says how many`);
  assert.ok(hidden.length >= 2, name);
  const restTotal = restOf ? restOf(hidden) : hidden.reduce((sum, key) => sum + expected.get(key)!, 0);
  assert.ok(close(drawn.get(restKeys[0])!, restTotal), `${name}: the rest drawn ${drawn.get(restKeys[0])}, computed ${restTotal}`);
  const smallestShown = Math.min(...shown.map((key) => Math.abs(expected.get(key)!)));
  for (const key of hidden) assert.ok(Math.abs(expected.get(key)!) <= smallestShown, `${name}: "${key}" is no larger than those drawn`);
}

const single = (totals: Map<string, number>) => new Map([...totals].map(([key, value]) => [JSON.stringify([key, '']), value]));
const unpair = (drawn: Map<string, number>) => new Map([...drawn].map(([id, value]) => [JSON.parse(id)[0] as string, value]));

/**
 * Nineteen regions, more than a chart draws: fifteen with 20 down to 6 projects wholly in each;
 * the four smallest with a project split between two of them (it counts once in their bar, with
 * all its share) and one split with the largest; a project whose share is not stated.
 */
function regionsDataset() {
  const codes = (JSON.parse(readFileSync(new URL('../codelists/region.json', import.meta.url), 'utf8')) as { code: string }[]).map((row) => row.code).slice(0, 19);
  const projects: Row[] = [];
  const regions: Row[] = [];
  const project = (...shares: [region: number, percentage: number | null][]) => {
    const id = projects.length + 1;
    projects.push({ id, title: `Project ${id}`, is_public: true, publishing_status: 'published' });
    for (const [region, percentage] of shares) regions.push({ id: regions.length + 1, project: id, region: codes[region], percentage, region_vocabulary: '1' });
  };
  for (let region = 0; region < 15; region += 1) for (let count = 0; count < 20 - region; count += 1) project([region, 100]);
  for (const [region, count] of [[15, 3], [16, 2], [17, 1], [18, 1]]) for (let index = 0; index < count; index += 1) project([region, 100]);
  project([16, 50], [17, 50]);
  project([0, 60], [18, 40]);
  project([1, null]);
  return [
    { file: 'project', label: 'project', records: projects },
    { file: 'recipient_region', label: 'recipient_region', records: regions },
  ];
}

describe('charts (browser)', () => {
  const server = useServer(store, () => generateDemo({ scale: 0.2, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
  let browser: Browser;
  /** Every record of a list through the API, page by page. */
  const all = async (list: string, query = '', base = server.base): Promise<Row[]> => {
    const rows: Row[] = [];
    let path: string | null = `/rest/v1/${list}/?limit=1000${query}`;
    while (path) {
      const page = await request(base, path);
      assert.equal(page.status, 200, path);
      rows.push(...page.body.results);
      path = page.body.next ? page.body.next.slice(new URL(page.body.next).origin.length) : null;
    }
    return rows;
  };

  before(async () => {
    assert.ok(existsSync(BUILT), 'the explorer is built (npm run build:explorer; npm install does it)');
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  /** A chart drawn, read once its value axis names `unit` (when given). */
  async function drawn(page: Page, chart: string, unit?: string): Promise<Drawn> {
    const figure = page.locator(`figure[data-chart="${chart}"]`);
    await figure.locator('div.plot svg').first().waitFor({ timeout: 60_000 });
    if (unit) await figure.locator('div.plot svg g[aria-label$="-axis label"] text', { hasText: unit }).waitFor();
    return readChart(figure);
  }

  /**
   * A money chart, once per choice of its picker: the choices are the records' currencies with
   * their counts, the most frequent first and picked; each draws what `expect` computes from
   * that currency's records alone, and its axis names that currency.
   */
  async function checkMoney(page: Page, chart: string, rows: Row[], currencyOf: (row: Row) => { key: string; unit: string }, word: string, noun: string, check: (drawn: Drawn, mine: Row[], name: string) => void) {
    const counts = new Map<string, number>();
    for (const row of rows) add(counts, currencyOf(row).key, 1);
    const unitOf = new Map(rows.map((row) => [currencyOf(row).key, currencyOf(row).unit]));
    const first = await drawn(page, chart);
    assert.deepEqual(new Set(first.options.map((option) => option.value)), new Set(counts.keys()), `${chart}: a choice per currency`);
    const byCount = first.options.map((option) => counts.get(option.value)!);
    assert.deepEqual(byCount, [...byCount].sort((a, b) => b - a), `${chart}: the most frequent currency first`);
    assert.equal(first.selected, first.options[0].value, `${chart}: the most frequent currency picked`);
    for (const option of first.options) {
      const unit = unitOf.get(option.value)!;
      const count = counts.get(option.value)!;
      assert.ok(option.label.startsWith(unit) && option.label.endsWith(`(${count.toLocaleString('en')} ${count === 1 ? noun.replace(/s$/, '') : noun})`), `${chart}: "${option.label}" names ${unit} and its ${count} ${noun}`);
    }
    for (const option of first.options) {
      const unit = unitOf.get(option.value)!;
      await page.locator(`figure[data-chart="${chart}"] select[name=currency]`).selectOption(option.value);
      const now = await drawn(page, chart, `${word} (${unit})`);
      const name = `${chart} in ${unit}`;
      assert.equal(axisUnit(now, name), `${word} (${unit})`, `${name}: the axis names the one currency`);
      assert.ok(now.sentence.includes(unit === 'currency not stated' ? 'state no currency' : `in ${unit}`), `${name}: the sentence names the currency: ${now.sentence}`);
      checkShape(now, name);
      check(now, rows.filter((row) => currencyOf(row).key === option.value), name);
    }
  }

  const budgetCurrency = (row: Row) => {
    const code = String(row.currency_label ?? '').split(' - ')[0];
    return { key: code, unit: code || 'currency not stated' };
  };
  const transactionCurrency = (row: Row) => {
    const name = String(row.currency_label ?? '');
    return { key: name, unit: CURRENCY_CODES.get(name) ?? (name || 'currency not stated') };
  };
  const typeName = (row: Row) => {
    const code = String(row.transaction_type ?? '');
    if (!code) return 'No type stated';
    if (OLD_TYPES[code]) return `${OLD_TYPES[code]} (IATI 1 code ${code})`;
    return withoutCode(String(row.transaction_type_label));
  };

  const checkBudgetLabels = (now: Drawn, mine: Row[], name: string) => {
    const expected = new Map<string, number>();
    for (const row of mine) add(expected, row.label === null ? 'No label stated' : String(row.label_label), amount(row.amount));
    checkCut(unpair(numbersOf(now, name)), expected, /^The other (\d+) labels$/, name);
  };
  const checkBudgetYears = (now: Drawn, mine: Row[], name: string) => {
    const expected = new Map<string, number>();
    for (const row of mine) add(expected, year(row.period_start), amount(row.amount));
    const table = numbersOf(now, name);
    assert.equal(table.size, expected.size, `${name}: a bar per year`);
    for (const [key, value] of single(expected)) assert.ok(close(table.get(key)!, value), `${name}: ${key} drawn ${table.get(key)}, computed ${value}`);
    const years = now.rows.map((cells) => cells[0]);
    assert.deepEqual(years, [...years].sort((a, b) => (a === 'No date' ? 1 : b === 'No date' ? -1 : a.localeCompare(b))), `${name}: years in order`);
  };
  const checkTransactions = (now: Drawn, mine: Row[], name: string) => {
    const expected = new Map<string, number>();
    const typeTotals = new Map<string, number>();
    for (const row of mine) {
      add(expected, JSON.stringify([year(row.transaction_date), typeName(row)]), amount(row.value));
      add(typeTotals, typeName(row), Math.abs(amount(row.value)));
    }
    const table = numbersOf(now, name);
    const drawnTypes = new Set([...table.keys()].map((id) => JSON.parse(id)[1] as string));
    const rest = [...drawnTypes].find((type) => /^The other \d+ types$/.test(type));
    const hidden = [...typeTotals.keys()].filter((type) => !drawnTypes.has(type));
    assert.ok(drawnTypes.size <= MOST_SERIES + 1, `${name}: ${drawnTypes.size} series`);
    if (rest) {
      assert.equal(Number(/\d+/.exec(rest)![0]), hidden.length, `${name}: the rest says how many types`);
      assert.ok(hidden.length >= 2);
      const smallest = Math.min(...[...drawnTypes].filter((type) => type !== rest).map((type) => typeTotals.get(type)!));
      for (const type of hidden) assert.ok(typeTotals.get(type)! <= smallest, `${name}: ${type} is no larger than the types drawn`);
    } else assert.deepEqual(hidden, [], `${name}: every type drawn`);
    const wanted = new Map<string, number>();
    for (const [id, value] of expected) {
      const [key, type] = JSON.parse(id) as [string, string];
      add(wanted, JSON.stringify([key, hidden.includes(type) ? rest : type]), value);
    }
    assert.deepEqual(new Set(table.keys()), new Set(wanted.keys()), `${name}: a segment per year and type`);
    for (const [id, value] of wanted) assert.ok(close(table.get(id)!, value), `${name}: ${id} drawn ${table.get(id)}, computed ${value}`);
  };

  /** Projects per region, as all of the project (shares there add to 100 %) or part of it. */
  const checkRegions = (now: Drawn, regions: Row[], name: string) => {
    const regionOf = (row: Row) => withoutCode(String(row.region_label)) || String(row.region) || 'No region stated';
    const classes = (rows: Row[]) => {
      const shares = new Map<unknown, number | null>();
      for (const row of rows) shares.set(row.project, row.percentage === null ? (shares.get(row.project) ?? null) : (shares.get(row.project) ?? 0) + Number(row.percentage));
      const counted = new Map<string, number>();
      for (const share of shares.values()) add(counted, share === null ? 'Share not stated' : share >= 99.95 ? 'All of the project (100 %)' : 'Part of the project (under 100 %)', 1);
      return counted;
    };
    assert.equal(axisUnit(now, name), 'Projects');
    checkShape(now, name);
    const table = numbersOf(now, name);
    const projects = new Map<string, number>();
    for (const region of new Set(regions.map(regionOf))) projects.set(region, new Set(regions.filter((row) => regionOf(row) === region).map((row) => row.project)).size);
    const totals = new Map<string, number>();
    for (const [id, value] of table) add(totals, JSON.parse(id)[0] as string, value);
    // Per region, the projects counted once; every region drawn but the smallest, which are one bar.
    checkCut(totals, projects, /^The other (\d+) regions$/, name, (hidden) => new Set(regions.filter((row) => hidden.includes(regionOf(row))).map((row) => row.project)).size);
    for (const region of totals.keys()) {
      const mine = /^The other \d+ regions$/.test(region) ? regions.filter((row) => !totals.has(regionOf(row))) : regions.filter((row) => regionOf(row) === region);
      for (const [kind, count] of classes(mine)) assert.equal(table.get(JSON.stringify([region, kind])), count, `${name}: ${region}, ${kind}`);
    }
    assert.match(now.sentence, /^Number of projects/);
  };

  /** Targets counted per dimension value, named "dimension: value" from /explorer/api/dimension-values/. */
  const checkTargets = async (now: Drawn, targets: Row[], name: string, project: string | null) => {
    const answer = await request(server.base, `/explorer/api/dimension-values/?limit=1000${project ? `&name__project=${project}` : ''}`);
    assert.equal(answer.status, 200, `${name}: the names of dimension values`);
    const names = new Map<number, string>();
    for (const row of await readNames(answer.body)) names.set(row.id, `${row.dimension}: ${row.value}`);
    const keyOf = (row: Row) => (row.dimension_value === null ? 'No dimension value stated' : names.get(row.dimension_value) ?? `Value #${row.dimension_value} of dimension #${row.dimension_name}`);
    const expected = new Map<string, number>();
    for (const row of targets) add(expected, keyOf(row), 1);
    assert.equal(axisUnit(now, name), 'Targets');
    checkShape(now, name);
    const drawn = unpair(numbersOf(now, name));
    checkCut(drawn, expected, /^The other (\d+) values$/, name);
    assert.ok(![...drawn.keys()].some((key) => key.startsWith('Value #')), `${name}: every value named`);
  };
  const readNames = async (first: Row): Promise<Row[]> => {
    const rows: Row[] = [...first.results];
    for (let next = first.next; next; ) {
      const page = (await request(server.base, next.slice(new URL(next).origin.length))).body;
      rows.push(...page.results);
      next = page.next;
    }
    return rows;
  };

  test('every project: each chart\'s numbers are the API\'s records summed or counted, one unit an axis, no taller than a screen', async () => {
    const { page } = await openPage(browser);
    await page.goto(`${server.base}/explore/charts/`);
    const budget = await all('budget_item');
    const transactions = await all('transaction');
    assert.ok(new Set(budget.map((row) => row.currency_label)).size > 2, 'the dataset has several currencies');
    await checkMoney(page, 'budget-label', budget, budgetCurrency, 'Amount', 'budget items', checkBudgetLabels);
    await checkMoney(page, 'budget-year', budget, budgetCurrency, 'Amount', 'budget items', checkBudgetYears);
    await checkMoney(page, 'transactions', transactions, transactionCurrency, 'Value', 'transactions', checkTransactions);
    checkRegions(await drawn(page, 'regions'), await all('recipient_region'), 'regions');
    await checkTargets(await drawn(page, 'targets'), await all('disaggregation_target'), 'targets', null);
    await page.screenshot({ path: `${ARTIFACTS}explorer-charts.png`, fullPage: true });
  });

  test('one project with several currencies: its own records only, a chart per currency', async () => {
    const budget = await all('budget_item');
    const transactions = await all('transaction');
    const currenciesOf = (rows: Row[], project: unknown) => new Set(rows.filter((row) => row.project === project).map((row) => row.currency_label)).size;
    const project = [...new Set(budget.map((row) => row.project))].find((id) => currenciesOf(budget, id) > 1 && currenciesOf(transactions, id) > 1);
    assert.ok(project, 'a project with budget items and transactions in several currencies');
    const { page } = await openPage(browser);
    await page.goto(`${server.base}/explore/project/${project}/`);
    const mine = (rows: Row[]) => rows.filter((row) => row.project === project);
    await checkMoney(page, 'budget-label', await all('budget_item', `&project=${project}`), budgetCurrency, 'Amount', 'budget items', checkBudgetLabels);
    assert.equal((await all('budget_item', `&project=${project}`)).length, mine(budget).length);
    await checkMoney(page, 'budget-year', mine(budget), budgetCurrency, 'Amount', 'budget items', checkBudgetYears);
    await checkMoney(page, 'transactions', mine(transactions), transactionCurrency, 'Value', 'transactions', checkTransactions);
    const regions = await all('recipient_region', `&project=${project}`);
    if (regions.length) checkRegions(await drawn(page, 'regions'), regions, `regions of project ${project}`);
    const targets = await all('disaggregation_target', `&period__indicator__result__project=${project}`);
    if (targets.length) await checkTargets(await drawn(page, 'targets'), targets, `targets of project ${project}`, String(project));
  });

  test('many regions: the largest drawn, the rest one bar counting each of its projects once; shares not stated said so', async () => {
    const other = await startServer(store, regionsDataset());
    try {
      const { page } = await openPage(browser);
      await page.goto(`${other.base}/explore/charts/`);
      const now = await drawn(page, 'regions');
      checkRegions(now, await all('recipient_region', '', other.base), 'many regions');
      assert.ok(now.rows.some((cells) => /^The other \d+ regions$/.test(cells[0])), 'the smallest regions are one bar');
      assert.deepEqual(now.legend.map((item) => item.series), ['All of the project (100 %)', 'Part of the project (under 100 %)', 'Share not stated']);
    } finally {
      await other.close();
    }
  });

  test('on a phone: every chart as wide as the screen at most, and no taller than one', async () => {
    const { page } = await openPage(browser, { width: 390, height: 844 });
    await page.goto(`${server.base}/explore/charts/`);
    for (const chart of ['budget-label', 'budget-year', 'transactions', 'regions', 'targets']) {
      const now = await drawn(page, chart);
      checkShape(now, `${chart} on a phone`);
    }
    const widths = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: Dom }).document;
      return { page: root.documentElement.scrollWidth, svgs: [...root.querySelectorAll('figure[data-chart] svg')].map((svg: Dom) => svg.getBoundingClientRect().right) };
    });
    assert.ok(widths.page <= 390, `the page is ${widths.page}px wide`);
    for (const right of widths.svgs) assert.ok(right <= 390, `a chart reaches ${right}px`);
    await page.screenshot({ path: `${ARTIFACTS}explorer-charts-phone.png`, fullPage: true });
  });
});
