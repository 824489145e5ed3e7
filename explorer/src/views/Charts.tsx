/**
 * Charts of what people would rather look at than read: budgets by label and currency and by
 * year, transactions by type and year, recipient regions' shares, disaggregation targets per
 * dimension; for every project or one. Drawn as SVG by Observable Plot (loaded with this view
 * only), each with its numbers in a table beside it for those who cannot see the chart.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { readAll, type Row } from '../api';
import { budgetByLabel, budgetByYear, regionShares, targetsByDimension, transactionsByTypeAndYear, type Bar } from '../charts-data';
import { Status } from '../components';

/** More records than this are not read for a chart: it says so, and a project narrows it. */
const MOST = 20_000;

export type Plot = typeof import('@observablehq/plot');

interface ChartSpec {
  id: string;
  title: string;
  list: string;
  /** The filter that narrows the list to one project. */
  byProject: string;
  bars: (rows: readonly Row[]) => Bar[];
  /** Bars along x (a horizontal chart: one row per key) or along y (one column per key). */
  horizontal: boolean;
  unit: string;
}

const CHARTS: ChartSpec[] = [
  { id: 'budget-label', title: 'Budget by label and currency', list: 'budget_item', byProject: 'project', bars: budgetByLabel, horizontal: true, unit: 'amount' },
  { id: 'budget-year', title: 'Budget by year and currency', list: 'budget_item', byProject: 'project', bars: budgetByYear, horizontal: false, unit: 'amount' },
  { id: 'transactions', title: 'Transactions by type and year', list: 'transaction', byProject: 'project', bars: transactionsByTypeAndYear, horizontal: false, unit: 'value' },
  { id: 'regions', title: "Recipient regions' share", list: 'recipient_region', byProject: 'project', bars: regionShares, horizontal: true, unit: 'percentage' },
  { id: 'targets', title: 'Disaggregation targets per dimension', list: 'disaggregation_target', byProject: 'period__indicator__result__project', bars: targetsByDimension, horizontal: true, unit: 'target value' },
];

function draw(plot: Plot, chart: ChartSpec, bars: Bar[], width: number): SVGSVGElement | HTMLElement {
  const series = new Set(bars.map((bar) => bar.series));
  const legend = series.size > 1;
  const longest = Math.max(4, ...bars.map((bar) => bar.key.length));
  const common = { width, ariaLabel: chart.title, color: { legend, scheme: 'tableau10' as const } };
  if (chart.horizontal) {
    const keys = new Set(bars.map((bar) => bar.key)).size;
    return plot.plot({
      ...common,
      height: Math.max(120, keys * 26 + 50),
      marginLeft: Math.min(width / 2, longest * 6.5 + 10),
      x: { label: chart.unit, grid: true, tickFormat: '~s' },
      y: { label: null, type: 'band' },
      marks: [plot.barX(bars, { y: 'key', x: 'value', fill: 'series', sort: { y: '-x' }, title: (bar: Bar) => `${bar.key} (${bar.series}): ${bar.value.toLocaleString('en')}` }), plot.ruleX([0])],
    });
  }
  return plot.plot({
    ...common,
    height: 280,
    marginLeft: 56,
    marginBottom: 44,
    x: { label: null, type: 'band', tickRotate: new Set(bars.map((bar) => bar.key)).size > 10 ? -45 : 0 },
    y: { label: chart.unit, grid: true, tickFormat: '~s' },
    marks: [plot.barY(bars, { x: 'key', y: 'value', fill: 'series', title: (bar: Bar) => `${bar.key} (${bar.series}): ${bar.value.toLocaleString('en')}` }), plot.ruleY([0])],
  });
}

/** An SVG drawn by Plot (loaded on first use) as wide as its box. */
export function PlotDrawing({ draw }: { draw: (plot: Plot, width: number) => Element }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = box.current;
    if (!target) return;
    let current = true;
    import('@observablehq/plot').then((plot) => current && target.replaceChildren(draw(plot, Math.max(280, target.clientWidth))));
    return () => {
      current = false;
    };
  }, [draw]);
  return <div ref={box} class="plot" />;
}

function Chart({ chart, project }: { chart: ChartSpec; project: string | null }) {
  const [bars, setBars] = useState<Bar[] | null>(null);
  const [note, setNote] = useState<string>('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setBars(null);
    const query = new URLSearchParams(project ? { [chart.byProject]: project } : {});
    let current = true;
    readAll(chart.list, query, MOST, (read, count) => current && setNote(`Read ${read.toLocaleString('en')} of ${count.toLocaleString('en')} records…`)).then(
      ({ rows, count }) => {
        if (!current) return;
        setBars(chart.bars(rows));
        setNote(rows.length < count ? `The first ${rows.length.toLocaleString('en')} of ${count.toLocaleString('en')} records: choose a project to see all of its.` : `${count.toLocaleString('en')} record${count === 1 ? '' : 's'}.`);
      },
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [chart.id, project]);

  return (
    <figure class="chart" aria-labelledby={`${chart.id}-title`} data-chart={chart.id}>
      <figcaption id={`${chart.id}-title`}>{chart.title}</figcaption>
      <Status loading={!bars && !error} error={error} />
      <p class="muted small">{note}</p>
      {bars && bars.length === 0 && <p class="muted">Nothing to show.</p>}
      {bars && bars.length > 0 && <PlotDrawing draw={(plot, width) => draw(plot, chart, bars, width)} />}
      {bars && bars.length > 0 && (
        <details>
          <summary>The numbers</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{chart.horizontal ? 'Label' : 'Year'}</th>
                <th scope="col">Series</th>
                <th scope="col" class="number">{chart.unit}</th>
              </tr>
            </thead>
            <tbody>
              {bars.map((bar) => (
                <tr>
                  <td>{bar.key}</td>
                  <td>{bar.series}</td>
                  <td class="number">{bar.value.toLocaleString('en', { maximumFractionDigits: 2 })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}

export function Charts({ project, heading = true }: { project: string | null; heading?: boolean }) {
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
          <Chart chart={chart} project={project} />
        ))}
      </div>
    </section>
  );
}
