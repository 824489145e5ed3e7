/**
 * Charts of what people would rather look at than read: budgets by label and by year,
 * transactions by type and year, projects per recipient region, disaggregation targets per
 * dimension value; for every project or one. Each says in a sentence what it shows, draws one
 * unit only (one currency, picked; projects; targets), names instead of codes and ids, and its
 * largest bars with one for the rest, so none is taller than a screen. Drawn as SVG by Observable
 * Plot (loaded with this view only), each with its numbers in a table for those who cannot see it.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { get, readAll, type Page, type Row } from '../api';
import {
  budgetByLabel, budgetByYear, budgetCurrency, coloursOf, currencies, noDate, PALETTE, projectsPerRegion, targetsPerDimensionValue,
  transactionCurrency, transactionCurrencyCodes, transactionsByTypeAndYear, type Bar, type ChartData, type Currency, type DimensionNames,
} from '../charts-data';
import { Failure, messageOfFailure, Status } from '../components';
import { num, t, type ChartNoun } from '../i18n';

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
  title: () => string;
  list: string;
  /** The filter that narrows the list to one project. */
  byProject: string;
  /** What the records are called ("budget items"). */
  noun: ChartNoun;
  /** Money charts: each record's currency (the chart is of one, picked). */
  currencyOf?: (rows: readonly Row[]) => CurrencyOf;
  data: (records: Records, currency: string) => ChartData;
  /** Bars along x (a horizontal chart: one row per key) or along y (one column per key). */
  horizontal: boolean;
  /** The value axis's label: one unit. */
  unit: (currency: Currency | null) => string;
  /** The table's heading of keys, and of series when there are several. */
  keyHeading: () => string;
  seriesHeading?: () => string;
  /** What the chart shows, in one sentence. */
  sentence: (currency: Currency | null, choices: number) => string;
  /** Also reads the names of dimension values. */
  names?: boolean;
}

/** "in EUR only: the other currencies are the picker's other choices", or the only currency. */
const inCurrency = (currency: Currency | null, choices: number, what: 'budget' | 'transactions') => t('charts.inCurrency', currency?.unit ?? null, choices > 1, what);

const budgetCurrencyOf = () => budgetCurrency;
const transactionCurrencyOf = (rows: readonly Row[]) => {
  const codes = transactionCurrencyCodes(rows);
  return (row: Row) => transactionCurrency(row, codes);
};
const money = (word: () => string) => (currency: Currency | null) => `${word()} (${currency?.unit ?? t('charts.noCurrencyUnit')})`;

const CHARTS: ChartSpec[] = [
  {
    id: 'budget-label', title: () => t('charts.budgetLabel'), list: 'budget_item', byProject: 'project', noun: 'budget',
    currencyOf: budgetCurrencyOf, data: ({ rows }, currency) => budgetByLabel(rows, currency), horizontal: true, unit: money(() => t('charts.amount')), keyHeading: () => t('charts.budgetLabelKey'),
    sentence: (currency, choices) => t('charts.budgetLabelSentence', inCurrency(currency, choices, 'budget')),
  },
  {
    id: 'budget-year', title: () => t('charts.budgetYear'), list: 'budget_item', byProject: 'project', noun: 'budget',
    currencyOf: budgetCurrencyOf, data: ({ rows }, currency) => budgetByYear(rows, currency), horizontal: false, unit: money(() => t('charts.amount')), keyHeading: () => t('charts.year'),
    sentence: (currency, choices) => t('charts.budgetYearSentence', inCurrency(currency, choices, 'budget')),
  },
  {
    id: 'transactions', title: () => t('charts.transactions'), list: 'transaction', byProject: 'project', noun: 'transactions',
    currencyOf: transactionCurrencyOf,
    data: ({ rows }, currency) => transactionsByTypeAndYear(rows, currency, transactionCurrencyCodes(rows)),
    horizontal: false, unit: money(() => t('charts.value')), keyHeading: () => t('charts.year'), seriesHeading: () => t('charts.transactionsSeries'),
    sentence: (currency, choices) => t('charts.transactionsSentence', inCurrency(currency, choices, 'transactions')),
  },
  {
    id: 'regions', title: () => t('charts.regions'), list: 'recipient_region', byProject: 'project', noun: 'regions',
    data: ({ rows }) => projectsPerRegion(rows), horizontal: true, unit: () => t('charts.projects'), keyHeading: () => t('charts.regionsKey'), seriesHeading: () => t('charts.regionsSeries'),
    sentence: () => t('charts.regionsSentence'),
  },
  {
    id: 'targets', title: () => t('charts.targets'), list: 'disaggregation_target', byProject: 'period__indicator__result__project', noun: 'targets',
    data: ({ rows, names }) => targetsPerDimensionValue(rows, names), horizontal: true, unit: () => t('charts.targetsUnit'), keyHeading: () => t('charts.targetsKey'), names: true,
    sentence: () => t('charts.targetsSentence'),
  },
];

/** Whole numbers and money in short: 1.2M, 35k, 0.5 (not Plot's SI "500m"), as the language writes them. */
const compact = (value: number) => num(value, { notation: 'compact', maximumFractionDigits: 1 });
const titleOf = (data: ChartData) => (bar: Bar) => `${bar.key}${data.series.length > 1 ? ` — ${bar.series}` : ''}: ${num(bar.value)}`;

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
      ariaLabel: chart.title(),
      color,
      x: { label: unit, grid: true, tickFormat: compact, ticks: Math.max(2, Math.floor((width - marginLeft) / 80)) },
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
  const undated = data.keys.at(-1) === noDate() ? data.keys.length - 1 : Infinity;
  const ticks = data.keys.filter((key, index) => index === undated || (index % step === 0 && index <= undated - step));
  return plot.plot({
    className: PLOT_CLASS,
    // A few columns are not stretched over the whole width.
    width: Math.min(width, 96 + data.keys.length * 96),
    height: 300,
    marginLeft: 56,
    marginBottom: rotate ? 56 : 32,
    ariaLabel: chart.title(),
    color,
    x: { label: null, type: 'band', domain: data.keys, ticks, tickRotate: rotate ? -45 : 0 },
    y: { label: unit, grid: true, tickFormat: compact },
    marks: [plot.barY(data.bars, { x: 'key', y: 'value', fill: 'series', order: data.series, title: titleOf(data) }), plot.ruleY([0])],
  });
}

/**
 * An SVG drawn by Plot (loaded on first use) as wide as its box; its `<style>` elements taken out
 * before it is shown (their rules are in style.css, under PLOT_CLASS).
 */
export function PlotDrawing({ draw }: { draw: (plot: Plot, width: number) => Element }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const target = box.current;
    if (!target) return;
    let current = true;
    import('@observablehq/plot').then(
      (plot) => {
        if (!current) return;
        const drawing = draw(plot, Math.max(280, target.clientWidth));
        for (const style of drawing.querySelectorAll('style')) style.remove();
        // Plot names its marks' groups ("bar", "rule", "x-axis tick") with aria-label on a plain
        // <g>, which has no role that may be named (axe: aria-prohibited-attr): named groups they are.
        for (const group of drawing.querySelectorAll('g[aria-label]:not([role])')) group.setAttribute('role', 'group');
        target.replaceChildren(drawing);
      },
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [draw, attempt]);
  return (
    <>
      {failed && <Failure message={t('error.drawing')} retry={() => (setFailed(false), setAttempt((count) => count + 1))} />}
      <div ref={box} class="plot" />
    </>
  );
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
    const page: Page<DimensionValueName> = await get<Page<DimensionValueName>>(path);
    for (const row of page.results) names.set(row.id, { dimension: row.dimension, value: row.value });
    path = page.next;
  }
  return names;
}

type Read = (list: string, query: URLSearchParams, progress: (read: number, count: number) => void) => Promise<{ rows: Row[]; count: number }>;

function Chart({ chart, project, read }: { chart: ChartSpec; project: string | null; read: Read }) {
  const [records, setRecords] = useState<Records | null>(null);
  const [note, setNote] = useState<string>('');
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    setRecords(null);
    setPicked(null);
    setError(null);
    setNote('');
    const query = new URLSearchParams(project ? { [chart.byProject]: project } : {});
    let current = true;
    const progress = (done: number, count: number) => current && setNote(t('charts.reading', done, count, chart.noun));
    Promise.all([read(chart.list, query, progress), chart.names ? dimensionNames(project) : new Map()]).then(
      ([{ rows, count }, names]) => {
        if (!current) return;
        setRecords({ rows, count, names });
        setNote(rows.length < count ? t('charts.first', rows.length, count, chart.noun) : t('charts.count', count, chart.noun));
      },
      (failure: unknown) => current && setError(messageOfFailure(failure)),
    );
    return () => {
      current = false;
    };
  }, [chart.id, project, attempt]);

  const choices = useMemo(() => (records && chart.currencyOf ? currencies(records.rows, chart.currencyOf(records.rows)) : []), [records]);
  const currency = choices.find((choice) => choice.key === picked) ?? choices[0] ?? null;
  const data = useMemo(() => (records ? chart.data(records, currency?.key ?? '') : null), [records, currency?.key]);
  const unit = chart.unit(currency);
  const colours = data ? (data.series.length > 1 ? coloursOf(data.series, data.others) : [PALETTE[0]]) : [];
  const drawing = useMemo(() => (data ? (plot: Plot, width: number) => draw(plot, chart, data, unit, colours, width) : null), [data]);
  const stacked = Boolean(data && data.series.length > 1);

  return (
    <figure class="chart" aria-labelledby={`${chart.id}-title`} aria-describedby={`${chart.id}-sentence`} data-chart={chart.id}>
      <figcaption id={`${chart.id}-title`}>{chart.title()}</figcaption>
      {records && (
        <p id={`${chart.id}-sentence`} class="small chart-sentence">
          {chart.sentence(currency, choices.length)}
        </p>
      )}
      <Status loading={!records && !error} error={error} retry={() => setAttempt((count) => count + 1)} />
      <p class="muted small">{note}</p>
      {choices.length > 0 && (
        <p class="small">
          <label>
            {t('charts.currency')}{' '}
            <select name="currency" value={currency?.key} onChange={(event) => setPicked(event.currentTarget.value)}>
              {choices.map((choice) => (
                <option value={choice.key}>{t('charts.choice', choice.title, choice.count, chart.noun)}</option>
              ))}
            </select>
          </label>
        </p>
      )}
      {data && data.bars.length === 0 && <p class="muted">{t('charts.nothing')}</p>}
      {stacked && (
        <ul class="legend small" aria-label={chart.seriesHeading?.()}>
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
          <summary>{t('charts.numbers')}</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{chart.keyHeading()}</th>
                {stacked && <th scope="col">{chart.seriesHeading?.()}</th>}
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
                        <td class="number">{num(bar.value)}</td>
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
      if (!reads.has(key)) {
        const reading = readAll(list, query, MOST, progress);
        // A failed read is not kept: Retry reads again.
        reading.catch(() => reads.delete(key));
        reads.set(key, reading);
      }
      return reads.get(key)!;
    };
  }, [project]);
  return (
    <section aria-labelledby={heading ? 'charts-title' : undefined}>
      {heading && (
        <h1 id="charts-title" tabIndex={-1}>
          {project ? t('charts.ofProject', project) : t('charts.title')}
        </h1>
      )}
      {heading && <p class="muted">{project ? t('charts.onlyProject') : t('charts.everyProject')}</p>}
      <div class="charts">
        {CHARTS.map((chart) => (
          <Chart chart={chart} project={project} read={read} />
        ))}
      </div>
    </section>
  );
}
