/**
 * `node --import tsx bench/report.ts [FILE]`: the Markdown tables of a benchmark run
 * (bench/results/latest.json by default), as BENCHMARKS.md shows them.
 */
import { readFileSync } from 'node:fs';

interface Measurement {
  scale: number;
  server: string;
  scenario: string;
  mode: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rssMiB: number;
}

const file = process.argv[2] ?? new URL('results/latest.json', import.meta.url).pathname;
const report = JSON.parse(readFileSync(file, 'utf8')) as {
  date: string;
  machine: Record<string, unknown>;
  summary: Record<string, string>;
  notes: Record<string, unknown>;
  results: Measurement[];
};

const row = (cells: unknown[]) => `| ${cells.join(' | ')} |`;
const lines = [`Run of ${report.date}: ${JSON.stringify(report.machine)}`, ''];
for (const scale of [...new Set(report.results.map((result) => result.scale))]) {
  lines.push(`### Scale ${scale}`, '', row(['scenario', 'server', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MiB']), row(Array(8).fill('---')));
  for (const result of report.results.filter((measured) => measured.scale === scale)) {
    lines.push(row([result.scenario, result.server, result.mode, result.requestsPerSecond, result.p50Ms, result.p99Ms, result.errors, result.rssMiB]));
  }
  lines.push('');
}
lines.push('### Ratios', '', row(['', 'ratio']), row(['---', '---']));
for (const [name, value] of Object.entries(report.summary)) lines.push(row([name, value]));
lines.push('', '### Notes', '', '```json', JSON.stringify(report.notes, null, 2), '```');
console.log(lines.join('\n'));
