/**
 * Charts of what people would rather look at than read: budgets by label and by year,
 * transactions by type and year, projects per recipient region, disaggregation targets per
 * dimension value; for every project or one. Each says in a sentence what it shows, draws one
 * unit only (one currency, picked; projects; targets), names instead of codes and ids, and its
 * largest bars with one for the rest, so none is taller than a screen. Drawn as SVG by Observable
 * Plot (loaded with this view only), each with its numbers in a table for those who cannot see it.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { call, messageOf, readAll, type Page, type Row } from '../api';
import {
  budgetByLabel, budgetByYear, budgetCurrency, coloursOf, currencies, NO_CURRENCY, NO_DATE, PALETTE, projectsPerRegion, targetsPerDimensionValue,
  transactionCurrency, transactionCurrencyCodes, transactionsByTypeAndYear, type Bar, type ChartData, type Currency, type DimensionNames,
} from '../charts-data';
import { Status } from '../components';

/** More records than this are not read for a chart: it says so, and a project narrows it. */
const MOST = 20_000;

export type Plot = typeof import('@observablehq/plot');

/**
 * The class of every drawing (Plot's `className`): Plot's own rules for it, which it puts in
 * `<style>` elements, are in style.css instead (PlotDrawing takes the elements out: the page's
 * Content-Security-Policy runs no inline style).
 */
export const PLOT_CLASS = 'plot-drawing';

interface Records {
  rows: Row[];
  count: number;
  /** The names of dimension values (targets only; empty for the other charts). */
  names: DimensionNames;
}

type CurrencyOf = (row: Row) => { key: string; code: string; name: string };

interface ChartSpec {
  id: string;
  title: string;
  list: string;
  /** The filter that narrows the list to one project. */
  byProject: string;
  /** What the records are called ("budget items"). */
  noun: string;
  /** Money charts: each record's currency (the chart is of one, picked). */
  currencyOf?: (rows: readonly Row[]) => CurrencyOf;
  data: (records: Records, currency: string) => ChartData;
  /** Bars along x (a horizontal chart: one row per key) or along y (one column per key). */
  horizontal: boolean;
  /** The value axis's label: one unit. */
  unit: (currency: Currency | null) => string;
  /** The table's heading of keys, and of series when there are several. */
  keyHeading: string;
  seriesHeading?: string;
  /** What the chart shows, in one sentence. */
  sentence: (currency: Currency | null, records: Records, choices: number) => string;
  /** Also reads the names of dimension values. */
  names?: boolean;
}

/** "in EUR only: the other currencies are the picker's other choices", or the only currency. */
function inCurrency(currency: Currency | null, choices: number, noun: string): string {
  const unit = !currency || currency.unit === NO_CURRENCY ? `of ${noun} that state no currency (nor does their project)` : `in ${currency.unit}`;
  return choices > 1 ? `${unit} only; ${noun} in other currencies are under the other choices of the currency picker` : `${unit}, the only currency of these ${noun}`;
}

const budgetCurrencyOf = () => budgetCurrency;
const transactionCurrencyOf = (rows: readonly Row[]) => {
  const codes = transactionCurrencyCodes(rows);
  return (row: Row) => transactionCurrency(row, codes);
};
const money = (word: string) => (currency: Currency | null) => `${word} (${currency?.unit ?? NO_CURRENCY})`;

const CHARTS: ChartSpec[] = [
  {
    id: 'budget-label', title: 'Budget by label', list: 'budget_item', byProject: 'project', noun: 'budget items',
    currencyOf: budgetCurrencyOf, data: ({ rows }, currency) => budgetByLabel(rows, currency), horizontal: true, unit: money('Amount'), keyHeading: 'Budget label',
    sentence: (currency, _, choices) => `Sum of budget item amounts per budget label, ${inCurrency(currency, choices, 'items')}.`,
  },
  {
    id: 'budget-year', title: 'Budget by year', list: 'budget_item', byProject: 'project', noun: 'budget items',
    currencyOf: budgetCurrencyOf, data: ({ rows }, currency) => budgetByYear(rows, currency), horizontal: false, unit: money('Amount'), keyHeading: 'Year',
    sentence: (currency, _, choices) => `Sum of budget item amounts per year in which the item's period starts, ${inCurrency(currency, choices, 'items')}.`,
  },
  {
    id: 'transactions', title: 'Transactions by type and year', list: 'transaction', byProject: 'project', noun: 'transactions',
    currencyOf: transactionCurrencyOf,
    data: ({ rows }, currency) => transactionsByTypeAndYear(rows, currency, transactionCurrencyCodes(rows)),
    horizontal: false, unit: money('Value'), keyHeading: 'Year', seriesHeading: 'Transaction type',
    sentence: (currency, _, choices) => `Sum of transaction values per year of the transaction date, stacked by transaction type, ${inCurrency(currency, choices, 'transactions')}.`,
  },
  {
    id: 'regions', title: 'Projects per recipient region', list: 'recipient_region', byProject: 'project', noun: 'recipient regions',
    data: ({ rows }) => projectsPerRegion(rows), horizontal: true, unit: () => 'Projects', keyHeading: 'Region', seriesHeading: "The region's share of the project",
    sentence: () => "Number of projects with a share in each recipient region, split by whether the region has all of the project (100 %) or part of it; a project counts once per region, whatever its share.",
  },
  {
    id: 'targets', title: 'Disaggregation targets per dimension value', list: 'disaggregation_target', byProject: 'period__indicator__result__project', noun: 'disaggregation targets',
    data: ({ rows, names }) => targetsPerDimensionValue(rows, names), horizontal: true, unit: () => 'Targets', keyHeading: 'Dimension: value', names: true,
    sentence: () =>
      "Number of disaggregation targets set for each dimension value (counted, not added: each target is in its own indicator's unit).",
  },
];

/** Whole numbers and money in short: 1.2M, 35k, 0.5 (not Plot's SI "500m"). */
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const exact = (value: number) => value.toLocaleString('en', { maximumFractionDigits: 2 });
const titleOf = (data: ChartData) => (bar: Bar) => `${bar.key}${data.series.length > 1 ? ` — ${bar.series}` : ''}: ${exact(bar.value)}`;

function draw(plot: Plot, chart: ChartSpec, data: ChartData, unit: string, colours: string[], width: number): SVGSVGElement | HTMLElement {
  const color = { domain: data.series, range: colours };
  if (chart.horizontal) {
    const longest = Math.max(4, ...data.keys.map((key) => key.length));
    const marginLeft = Math.round(Math.min(width * 0.45, longest * 6.2 + 14));
    return plot.plot({
      className: PLOT_CLASS,
      width,
      height: data.keys.length * 26 + 56,
      marginLeft,
      marginRight: 24,
      ariaLabel: chart.title,
      color,
      x: { label: unit, grid: true, tickFormat: (value: number) => compact.format(value), ticks: Math.max(2, Math.floor((width - marginLeft) / 80)) },
      y: { label: null, type: 'band', domain: data.keys },
      marks: [
        plot.axisY({ label: null, textOverflow: 'ellipsis', lineWidth: (marginLeft - 16) / 11 }),
        plot.barX(data.bars, { y: 'key', x: 'value', fill: 'series', order: data.series, title: titleOf(data) }),
        plot.ruleX([0]),
      ],
    });
  }
  const rotate = data.keys.length > Math.floor(width / 48);
  // Rotated labels need about 14 pixels each: where there is less, every other (or third…), "No date" always.
  const step = Math.max(1, Math.ceil((data.keys.length * 14) / (width - 70)));
  const undated = data.keys.at(-1) === NO_DATE ? data.keys.length - 1 : Infinity;
  const ticks = data.keys.filter((key, index) => index === undated || (index % step === 0 && index <= undated - step));
  return plot.plot({
    className: PLOT_CLASS,
    // A few columns are not stretched over the whole width.
    width: Math.min(width, 96 + data.keys.length * 96),
    height: 300,
    marginLeft: 56,
    marginBottom: rotate ? 56 : 32,
    ariaLabel: chart.title,
    color,
    x: { label: null, type: 'band', domain: data.keys, ticks, tickRotate: rotate ? -45 : 0 },
    y: { label: unit, grid: true, tickFormat: (value: number) => compact.format(value) },
    marks: [plot.barY(data.bars, { x: 'key', y: 'value', fill: 'series', order: data.series, title: titleOf(data) }), plot.ruleY([0])],
  });
}

/**
 * An SVG drawn by Plot (loaded on first use) as wide as its box; its `<style>` elements taken out
 * before it is shown (their rules are in style.css, under PLOT_CLASS).
 */
export function PlotDrawing({ draw }: { draw: (plot: Plot, width: number) => Element }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = box.current;
    if (!target) return;
    let current = true;
    import('@observablehq/plot').then((plot) => {
      if (!current) return;
      const drawing = draw(plot, Math.max(280, target.clientWidth));
      for (const style of drawing.querySelectorAll('style')) style.remove();
      target.replaceChildren(drawing);
    });
    return () => {
      current = false;
    };
  }, [draw]);
  return <div ref={box} class="plot" />;
}

interface DimensionValueName {
  id: number;
  dimension: string;
  value: string;
}

/** The names of the dimension values the caller may see, from /explorer/api/dimension-values/ (paged as the lists are). */
async function dimensionNames(project: string | null): Promise<DimensionNames> {
  const names = new Map<number, { dimension: string; value: string }>();
  let path: string | null = `/explorer/api/dimension-values/?${new URLSearchParams(project ? { name__project: project, limit: '1000' } : { limit: '1000' })}`;
  while (path) {
    const answer: { ok: boolean; status: number; body: Page<DimensionValueName> } = await call<Page<DimensionValueName>>(path);
    if (!answer.ok) throw new Error(messageOf(answer.body, answer.status));
    for (const row of answer.body.results) names.set(row.id, { dimension: row.dimension, value: row.value });
    path = answer.body.next;
  }
  return names;
}

type Read = (list: string, query: URLSearchParams, progress: (read: number, count: number) => void) => Promise<{ rows: Row[]; count: number }>;

function Chart({ chart, project, read }: { chart: ChartSpec; project: string | null; read: Read }) {
  const [records, setRecords] = useState<Records | null>(null);
  const [note, setNote] = useState<string>('');
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);

  useEffect(() => {
    setRecords(null);
    setPicked(null);
    const query = new URLSearchParams(project ? { [chart.byProject]: project } : {});
    let current = true;
    const progress = (done: number, count: number) => current && setNote(`Read ${done.toLocaleString('en')} of ${count.toLocaleString('en')} ${chart.noun}…`);
    Promise.all([read(chart.list, query, progress), chart.names ? dimensionNames(project) : new Map()]).then(
      ([{ rows, count }, names]) => {
        if (!current) return;
        setRecords({ rows, count, names });
        setNote(rows.length < count ? `The first ${rows.length.toLocaleString('en')} of ${count.toLocaleString('en')} ${chart.noun}: choose a project to see all of its.` : `${count.toLocaleString('en')} ${count === 1 ? chart.noun.replace(/s$/, '') : chart.noun}.`);
      },
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [chart.id, project]);

  const choices = useMemo(() => (records && chart.currencyOf ? currencies(records.rows, chart.currencyOf(records.rows), chart.noun) : []), [records]);
  const currency = choices.find((choice) => choice.key === picked) ?? choices[0] ?? null;
  const data = useMemo(() => (records ? chart.data(records, currency?.key ?? '') : null), [records, currency?.key]);
  const unit = chart.unit(currency);
  const colours = data ? (data.series.length > 1 ? coloursOf(data.series) : [PALETTE[0]]) : [];
  const drawing = useMemo(() => (data ? (plot: Plot, width: number) => draw(plot, chart, data, unit, colours, width) : null), [data]);
  const stacked = Boolean(data && data.series.length > 1);

  return (
    <figure class="chart" aria-labelledby={`${chart.id}-title`} aria-describedby={`${chart.id}-sentence`} data-chart={chart.id}>
      <figcaption id={`${chart.id}-title`}>{chart.title}</figcaption>
      {records && (
        <p id={`${chart.id}-sentence`} class="small chart-sentence">
          {chart.sentence(currency, records, choices.length)}
        </p>
      )}
      <Status loading={!records && !error} error={error} />
      <p class="muted small">{note}</p>
      {choices.length > 0 && (
        <p class="small">
          <label>
            Currency{' '}
            <select name="currency" value={currency?.key} onChange={(event) => setPicked(event.currentTarget.value)}>
              {choices.map((choice) => (
                <option value={choice.key}>{choice.label}</option>
              ))}
            </select>
          </label>
        </p>
      )}
      {data && data.bars.length === 0 && <p class="muted">Nothing to show.</p>}
      {stacked && (
        <ul class="legend small" aria-label={chart.seriesHeading}>
          {data!.series.map((series, index) => (
            <li data-series={series}>
              {/* The colour is set through the DOM (element.style), which the CSP allows; a style attribute it would not. */}
              <span aria-hidden="true" class="swatch" style={{ background: colours[index] }} />
              {series}
            </li>
          ))}
        </ul>
      )}
      {data && data.bars.length > 0 && drawing && <PlotDrawing draw={drawing} />}
      {data && data.bars.length > 0 && (
        <details>
          <summary>The numbers</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{chart.keyHeading}</th>
                {stacked && <th scope="col">{chart.seriesHeading}</th>}
                <th scope="col" class="number">
                  {unit}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.keys.flatMap((key) =>
                data.series.flatMap((series) =>
                  data.bars
                    .filter((bar) => bar.key === key && bar.series === series)
                    .map((bar) => (
                      <tr>
                        <td>{bar.key}</td>
                        {stacked && <td>{bar.series}</td>}
                        <td class="number">{exact(bar.value)}</td>
                      </tr>
                    )),
                ),
              )}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}

export function Charts({ project, heading = true }: { project: string | null; heading?: boolean }) {
  // Two charts of one list read it once.
  const read = useMemo<Read>(() => {
    const reads = new Map<string, Promise<{ rows: Row[]; count: number }>>();
    return (list, query, progress) => {
      const key = `${list}?${query}`;
      if (!reads.has(key)) reads.set(key, readAll(list, query, MOST, progress));
      return reads.get(key)!;
    };
  }, [project]);
  return (
    <section aria-labelledby={heading ? 'charts-title' : undefined}>
      {heading && (
        <h1 id="charts-title" tabIndex={-1}>
          Charts{project ? ` of project ${project}` : ''}
        </h1>
      )}
      {heading && <p class="muted">{project ? 'Only this project\u2019s records.' : 'Every project you may see. Open a project (from any of its records) for its own.'}</p>}
      <div class="charts">
        {CHARTS.map((chart) => (
          <Chart chart={chart} project={project} read={read} />
        ))}
      </div>
    </section>
  );
}
