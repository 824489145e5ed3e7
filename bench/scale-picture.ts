/**
 * `npm run bench:picture`: the grid's p50 and p99 (bench/grid.ts, answered requests) against the
 * scale of the data, for both stores, before and after, as an SVG drawn from the grid's own
 * result files: bench/results/grid-<when>-<store>-<scale>.json, <when> `before`, `after` (the
 * first of the flat-cost work) or `now` (the latest), <store> `sqlite` or `postgres`, <scale> 1,
 * 10 or 100 (a missing file leaves a gap). Writes docs/benchmarks/grid-by-scale.svg, which
 * BENCHMARKS.md shows.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SCALES = [1, 10, 100];
const SERIES = [
  { when: 'before', store: 'sqlite', colour: '#1f77b4', dash: '6 4', width: 2 },
  { when: 'before', store: 'postgres', colour: '#d95f02', dash: '6 4', width: 2 },
  { when: 'after', store: 'sqlite', colour: '#1f77b4', dash: '1 3', width: 2 },
  { when: 'after', store: 'postgres', colour: '#d95f02', dash: '1 3', width: 2 },
  { when: 'now', store: 'sqlite', colour: '#1f77b4', dash: '', width: 3 },
  { when: 'now', store: 'postgres', colour: '#d95f02', dash: '', width: 3 },
];
/** What each `when` of the result files stands for, in the legend. */
const WHEN = { before: 'before', after: 'first after', now: 'now' } as Record<string, string>;
const PANELS = [{ key: 'p50', title: 'p50 of single list requests' }, { key: 'p99', title: 'p99 of single list requests' }] as const;
const [WIDTH, HEIGHT, PANEL_WIDTH, TOP, PLOT_HEIGHT, LEFT] = [960, 420, 440, 60, 280, 60];
/** The y axis, in ms, on a log scale. */
const [Y_MIN, Y_MAX] = [1, 10_000];

type Figures = Record<'p50' | 'p99', number>;

function figures(when: string, store: string, scale: number): Figures | null {
  const file = join(root, 'bench', 'results', `grid-${when}-${store}-${scale}.json`);
  if (!existsSync(file)) return null;
  const { summary } = JSON.parse(readFileSync(file, 'utf8')) as { summary: { answered: Figures } };
  return summary.answered;
}

const x = (panel: number, scale: number) => panel * (PANEL_WIDTH + 40) + LEFT + (Math.log10(scale) / 2) * (PANEL_WIDTH - LEFT - 20);
const y = (ms: number) => TOP + PLOT_HEIGHT - ((Math.log10(Math.min(Math.max(ms, Y_MIN), Y_MAX)) - Math.log10(Y_MIN)) / (Math.log10(Y_MAX) - Math.log10(Y_MIN))) * PLOT_HEIGHT;
const text = (left: number, top: number, content: string, attributes = '') => `<text x="${left.toFixed(1)}" y="${top.toFixed(1)}" ${attributes}>${content}</text>`;

function panel(index: number, key: 'p50' | 'p99', title: string): string {
  const parts = [text(x(index, 1), TOP - 16, title, 'font-weight="bold"')];
  for (const ms of [1, 10, 100, 1000, 10_000]) {
    parts.push(`<line x1="${x(index, 1)}" x2="${x(index, 100)}" y1="${y(ms)}" y2="${y(ms)}" stroke="#ddd"/>`);
    parts.push(text(x(index, 1) - 8, y(ms) + 4, ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`, 'text-anchor="end"'));
  }
  for (const scale of SCALES) parts.push(text(x(index, scale), TOP + PLOT_HEIGHT + 20, `scale ${scale}`, 'text-anchor="middle"'));
  parts.push(`<line x1="${x(index, 1)}" x2="${x(index, 100)}" y1="${y(50)}" y2="${y(50)}" stroke="#999" stroke-dasharray="2 3"/>`);
  parts.push(text(x(index, 100), y(50) - 4, 'target 50 ms', 'text-anchor="end" fill="#666"'));
  for (const series of SERIES) {
    const points = SCALES.map((scale) => [scale, figures(series.when, series.store, scale)?.[key]] as const).filter((point): point is readonly [number, number] => point[1] !== undefined);
    if (points.length === 0) continue;
    parts.push(`<polyline fill="none" stroke="${series.colour}" stroke-width="${series.width}" stroke-dasharray="${series.dash}" points="${points.map(([scale, ms]) => `${x(index, scale).toFixed(1)},${y(ms).toFixed(1)}`).join(' ')}"/>`);
    for (const [scale, ms] of points) parts.push(`<circle cx="${x(index, scale).toFixed(1)}" cy="${y(ms).toFixed(1)}" r="3" fill="${series.colour}"><title>${series.when} ${series.store} scale ${scale}: ${ms} ms</title></circle>`);
  }
  return parts.join('\n');
}

function legend(): string {
  return SERIES.map((series, index) => {
    const left = LEFT + Math.floor(index / 2) * 300;
    const top = HEIGHT - 40 + (index % 2) * 20;
    return `<line x1="${left}" x2="${left + 30}" y1="${top - 4}" y2="${top - 4}" stroke="${series.colour}" stroke-width="${series.width}" stroke-dasharray="${series.dash}"/>${text(left + 36, top, `${series.store}, ${WHEN[series.when]}`)}`;
  }).join('\n');
}

const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="13" fill="#222">
<rect width="100%" height="100%" fill="#fff"/>
${PANELS.map((each, index) => panel(index, each.key, each.title)).join('\n')}
${legend()}
</svg>
`;
const out = join(root, 'docs', 'benchmarks');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'grid-by-scale.svg'), svg);
console.log(`wrote ${join('docs', 'benchmarks', 'grid-by-scale.svg')}`);
