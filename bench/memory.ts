/**
 * `npm run bench:memory`: resident memory of each worker of a two-worker server at the points
 * issue 24 names: after start, after the mixed scenario's reads (BENCH_MIXED_WARM_UP seconds of
 * warm-up, then BENCH_MIXED_DURATION measured), right after the eleven heavy report downloads of
 * the largest organisation at once, and 40 s later (a report thread ends after 30 s unused); and 5 s
 * after the mix and after the downloads, once each thread idle for 2 s has given back its heap
 * (src/ops/heap-release.ts).
 * Run it built (`npm run build`) to measure what the Docker image runs: from the TypeScript
 * sources each thread also holds tsx. Writes bench/results/memory.json (memory-postgres.json on PostgreSQL).
 *
 *   BENCH_SCALES=1,100   demo scales (default 1)
 *   BENCH_DATABASE_DIR   where the demo databases are kept between runs (shared with bench:report-load)
 *   BENCH_DATABASE_URL   a PostgreSQL database loaded with the demo instead (`rsr-api demo --scale N
 *                        --load`; BENCH_SCALES then names its one scale)
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { mixedData, mixedRequests } from './mixed.ts';
import { adminKeys, demoDatabase, downloadAll, DOWNLOADS, largestOrganisation, largestOrganisationIn } from './report-downloads.ts';
import { startOurs } from './servers.ts';

const scales = (process.env.BENCH_SCALES ?? '1').split(',').map(Number);
const warmUpSeconds = Number(process.env.BENCH_MIXED_WARM_UP ?? 40);
const mixedSeconds = Number(process.env.BENCH_MIXED_DURATION ?? 60);
const root = new URL('..', import.meta.url).pathname;

async function run(scale: number) {
  const postgres = process.env.BENCH_DATABASE_URL;
  const { file, url } = postgres ? { file: null, url: postgres } : demoDatabase(scale);
  const keys = adminKeys(url, DOWNLOADS.length);
  const organisation = file ? largestOrganisation(file) : await largestOrganisationIn(url);
  const server = await startOurs(url, 2);
  const points: Record<string, number[]> = {};
  const note = (point: string) => {
    points[point] = server.workersRssMiB().map(Math.round);
    console.error(`  scale ${scale}, ${point}: ${points[point].join(' / ')} MiB`);
  };
  try {
    await sleep(2000);
    note('after start');
    const data = await mixedData(server.base, '');
    await autocannon({ url: server.base, connections: 32, duration: warmUpSeconds, requests: mixedRequests(data, 0, 1) });
    const mix = await autocannon({ url: server.base, connections: 32, duration: mixedSeconds, requests: mixedRequests(data, 0, 14) });
    note('after the mixed run');
    await sleep(5000);
    note('5 s later');
    const downloads = await downloadAll(server, organisation, keys);
    note('right after the downloads');
    await sleep(5000);
    note('5 s after the downloads');
    await sleep(35_000);
    note('40 s later');
    const mixed = { requestsPerSecond: Math.round(mix.requests.average), p99Ms: mix.latency.p99, errors: mix.errors + mix.timeouts };
    return { scale, store: url.startsWith('postgres') ? 'postgres' : 'sqlite', organisation, built: existsSync(join(root, 'dist')), mixed, downloads: downloads.map(({ status, ms }) => ({ status, ms })), points };
  } finally {
    await server.stop();
  }
}

const results = [];
for (const scale of scales) results.push(await run(scale));
for (const result of results) {
  console.log(`\nscale ${result.scale} (${result.built ? 'built' : 'from sources'}): the mix ${result.mixed.requestsPerSecond} req/s, p99 ${result.mixed.p99Ms} ms; downloads ${result.downloads.map((d) => d.status).join(',')} in ${Math.min(...result.downloads.map((d) => d.ms))}–${Math.max(...result.downloads.map((d) => d.ms))} ms`);
  console.log('| RSS per worker, MiB | |\n| --- | ---: |');
  for (const [point, rss] of Object.entries(result.points)) console.log(`| ${point} | ${rss.join(' / ')} |`);
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, `bench/results/memory${process.env.BENCH_DATABASE_URL ? '-postgres' : ''}.json`), `${JSON.stringify({ machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, node: process.version, results }, null, 2)}\n`);
