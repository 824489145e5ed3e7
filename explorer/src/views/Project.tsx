/**
 * A project: its records in each list tied to projects, its results (per indicator, each
 * period's target against its actual value) and its charts.
 */
import { get } from '../api';
import { Link, Status, useRead } from '../components';
import { date, num, t } from '../i18n';
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

const periodName = (period: Period) => `${period.start ? date(period.start) : '…'} – ${period.end ? date(period.end) : '…'}`;

/** Target and actual side by side per period: two bars a period, where each is a number. */
function drawIndicator(plot: Plot, indicator: Indicator, width: number) {
  const [target, actual] = [t('project.targetSeries'), t('project.actualSeries')];
  const values = indicator.periods.flatMap((period) => [
    { period: periodName(period), kind: target, value: period.target },
    { period: periodName(period), kind: actual, value: period.actual },
  ]).filter((bar) => bar.value !== null);
  return plot.plot({
    className: PLOT_CLASS,
    width: Math.min(width, 160 + indicator.periods.length * 120),
    height: 220,
    marginLeft: 56,
    ariaLabel: t('project.chartLabel', indicator.title),
    color: { legend: true, domain: [target, actual], range: ['#9ab6d3', '#0b5fa5'] },
    fx: { label: null, domain: indicator.periods.map(periodName) },
    x: { axis: null, domain: [target, actual] },
    y: { label: indicator.measure === 'Percentage' ? '%' : t('project.value'), grid: true, tickFormat: (value: number) => num(value, { notation: 'compact', maximumFractionDigits: 1 }) },
    marks: [plot.barY(values, { fx: 'period', x: 'kind', y: 'value', fill: 'kind', title: (bar: { kind: string; value: number }) => `${bar.kind}: ${num(bar.value)}` }), plot.ruleY([0])],
  });
}

function ResultsView({ data }: { data: Results }) {
  const indicators = data.results.flatMap((result) => result.indicators.filter((indicator) => indicator.quantitative && indicator.periods.length > 0).map((indicator) => ({ result, indicator })));
  if (indicators.length === 0) return <p class="muted">{t('project.noIndicators')}</p>;
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
                <th scope="col">{t('project.period')}</th>
                <th scope="col" class="number">{t('project.target')}</th>
                <th scope="col" class="number">{t('project.actual')}</th>
              </tr>
            </thead>
            <tbody>
              {indicator.periods.map((period) => (
                <tr>
                  <td>{periodName(period)}</td>
                  <td class="number">{period.target === null ? '—' : num(period.target)}</td>
                  <td class="number">{period.actual === null ? '—' : num(period.actual)}</td>
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
  const { data, error, retry } = useRead(() => get<Results>(`/explorer/api/projects/${encodeURIComponent(id)}/results/`), [id]);
  const tied = [...specs.values()].filter((spec) => spec.fields.some((field) => field.name === 'project' && field.references === 'project'));
  return (
    <section aria-labelledby="project-title">
      <h1 id="project-title" tabIndex={-1}>
        {data ? data.project.title : t('project.title', id)}
      </h1>
      {data?.project.subtitle && <p class="lead">{data.project.subtitle}</p>}
      <ul class="chips" aria-label={t('project.records')}>
        {tied.map((spec) => (
          <li>
            <Link href={`/explore/${spec.name}/?project=${encodeURIComponent(id)}`}>{spec.title}</Link>
          </li>
        ))}
      </ul>
      <h2>{t('project.results')}</h2>
      <Status loading={!data && !error} error={error} retry={retry} />
      {data && <ResultsView data={data} />}
      <h2>{t('project.charts')}</h2>
      <Charts project={id} heading={false} />
    </section>
  );
}
