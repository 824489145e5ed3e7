/**
 * A project: its records in each list tied to projects, its results (per indicator, each
 * period's target against its actual value) and its charts.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Link, Status } from '../components';
import type { ResourceSpec } from '../spec';
import { Charts, PLOT_CLASS, PlotDrawing, type Plot } from './Charts';

interface Period {
  start: string | null;
  end: string | null;
  target: number | null;
  actual: number | null;
}
interface Indicator {
  title: string;
  measure: string;
  quantitative: boolean;
  periods: Period[];
}
interface Results {
  project: { id: number; title: string; subtitle: string };
  results: { title: string; type: string; indicators: Indicator[] }[];
}

const periodName = (period: Period) => `${period.start ?? '…'} – ${period.end ?? '…'}`;

/** Target and actual side by side per period: two bars a period, where each is a number. */
function drawIndicator(plot: Plot, indicator: Indicator, width: number) {
  const values = indicator.periods.flatMap((period) => [
    { period: periodName(period), kind: 'target', value: period.target },
    { period: periodName(period), kind: 'actual', value: period.actual },
  ]).filter((bar) => bar.value !== null);
  return plot.plot({
    className: PLOT_CLASS,
    width: Math.min(width, 160 + indicator.periods.length * 120),
    height: 220,
    marginLeft: 56,
    ariaLabel: `${indicator.title}: target and actual per period`,
    color: { legend: true, domain: ['target', 'actual'], range: ['#9ab6d3', '#0b5fa5'] },
    fx: { label: null, domain: indicator.periods.map(periodName) },
    x: { axis: null, domain: ['target', 'actual'] },
    y: { label: indicator.measure === 'Percentage' ? '%' : 'value', grid: true, tickFormat: '~s' },
    marks: [plot.barY(values, { fx: 'period', x: 'kind', y: 'value', fill: 'kind', title: (bar: { kind: string; value: number }) => `${bar.kind}: ${bar.value.toLocaleString('en')}` }), plot.ruleY([0])],
  });
}

function ResultsView({ data }: { data: Results }) {
  const indicators = data.results.flatMap((result) => result.indicators.filter((indicator) => indicator.quantitative && indicator.periods.length > 0).map((indicator) => ({ result, indicator })));
  if (indicators.length === 0) return <p class="muted">No quantitative indicator with periods.</p>;
  return (
    <div class="charts">
      {indicators.map(({ result, indicator }, index) => (
        <figure class="chart" data-indicator={index} aria-labelledby={`indicator-${index}`}>
          <figcaption id={`indicator-${index}`}>
            {indicator.title} <span class="muted small">({result.type}: {result.title})</span>
          </figcaption>
          <PlotDrawing draw={(plot, width) => drawIndicator(plot, indicator, width)} />
          <table>
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col" class="number">Target</th>
                <th scope="col" class="number">Actual</th>
              </tr>
            </thead>
            <tbody>
              {indicator.periods.map((period) => (
                <tr>
                  <td>{periodName(period)}</td>
                  <td class="number">{period.target?.toLocaleString('en') ?? '—'}</td>
                  <td class="number">{period.actual?.toLocaleString('en') ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </figure>
      ))}
    </div>
  );
}

export function Project({ specs, id }: { specs: Map<string, ResourceSpec>; id: string }) {
  const [data, setData] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call<Results>(`/explorer/api/projects/${encodeURIComponent(id)}/results/`).then((answer) => (answer.ok ? setData(answer.body) : setError(messageOf(answer.body, answer.status))));
  }, [id]);
  const tied = [...specs.values()].filter((spec) => spec.fields.some((field) => field.name === 'project' && field.references === 'project'));
  return (
    <section aria-labelledby="project-title">
      <h1 id="project-title" tabIndex={-1}>
        {data ? data.project.title : `Project ${id}`}
      </h1>
      {data?.project.subtitle && <p class="lead">{data.project.subtitle}</p>}
      <ul class="chips" aria-label="The project's records">
        {tied.map((spec) => (
          <li>
            <Link href={`/explore/${spec.name}/?project=${encodeURIComponent(id)}`}>{spec.title}</Link>
          </li>
        ))}
      </ul>
      <h2>Results</h2>
      <Status loading={!data && !error} error={error} />
      {data && <ResultsView data={data} />}
      <h2>Charts</h2>
      <Charts project={id} heading={false} />
    </section>
  );
}
