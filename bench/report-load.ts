/**
 * `npm run bench:report-load`: heavy report downloads at once while anonymous readers use the
 * API. Eleven downloads of the largest organisation (six results exports, three projects-overview
 * PDFs, two data-quality PDFs), each by a user of its own, start together on a server of two
 * workers; meanwhile four readers ask for `keyword/` lists, every URL new. The same readers alone
 * for as long first are the baseline. Prints the readers' latency (p50, p99, max) both ways, how
 * many reads were shed or failed, and each download's status, size and time; writes
 * bench/results/report-load.json.
 *
 *   BENCH_SCALES=1,100   demo scales (default 1)
 *   BENCH_DATABASE_DIR   where the demo databases are kept between runs (shared with bench:reports)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { adminKeys, demoDatabase, downloadAll, DOWNLOADS, largestOrganisation } from './report-downloads.ts';
import { startOurs } from './servers.ts';

const scales = (process.env.BENCH_SCALES ?? '1').split(',').map(Number);
const root = new URL('..', import.meta.url).pathname;
const READERS = 4;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface Reads {
  count: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<number, number>;
}

async function run(scale: number) {
  const { file, url } = demoDatabase(scale);
  const keys = adminKeys(url, DOWNLOADS.length);
  const organisation = largestOrganisation(file);
  const server = await startOurs(url, 2);
  try {
    // Warm: each worker has answered a list (its report thread starts with the first download).
    for (let index = 0; index < 8; index += 1) await fetch(`${server.base}/rest/v1/keyword/?warm=${index}`);
    /** The readers' figures while `during` runs. */
    const reading = async <T>(during: () => Promise<T>): Promise<{ result: T; reads: Reads }> => {
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      let going = true;
      const reader = async () => {
        while (going) {
          const started = performance.now();
          const answer = await fetch(`${server.base}/rest/v1/keyword/?_=${(serial += 1)}`);
          await answer.arrayBuffer();
          latencies.push(performance.now() - started);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      };
      const readers = Array.from({ length: READERS }, reader);
      const result = await during();
      going = false;
      await Promise.all(readers);
      const sorted = [...latencies].sort((a, b) => a - b);
      return { result, reads: { count: sorted.length, p50: Math.round(quantile(sorted, 0.5)), p99: Math.round(quantile(sorted, 0.99)), max: Math.round(sorted.at(-1) ?? 0), statuses: Object.fromEntries(statuses) } };
    };
    let serial = 0;
    const started = performance.now();
    const { result: downloads, reads } = await reading(() => downloadAll(server, organisation, keys));
    const wallMs = Math.round(performance.now() - started);
    const { reads: alone } = await reading(() => new Promise((done) => setTimeout(done, Math.min(wallMs, 20_000))));
    return { scale, organisation, wallMs, reads, alone, downloads, rssMiB: Math.round(server.rssMiB()) };
  } finally {
    await server.stop();
  }
}

const results = [];
for (const scale of scales) {
  const result = await run(scale);
  results.push(result);
  console.log(`\nscale ${scale}, organisation ${result.organisation}: ${DOWNLOADS.length} downloads at once took ${result.wallMs} ms; RSS of the service ${result.rssMiB} MiB`);
  const line = (reads: Reads) => `${reads.count} reads, p50 ${reads.p50} ms, p99 ${reads.p99} ms, max ${reads.max} ms, statuses ${JSON.stringify(reads.statuses)}`;
  console.log(`reads meanwhile (${READERS} readers, keyword/ with a new URL each): ${line(result.reads)}`);
  console.log(`the same readers alone afterwards: ${line(result.alone)}`);
  console.log('| download | status | size | time |\n| --- | ---: | ---: | ---: |');
  for (const d of result.downloads) console.log(`| ${d.path} | ${d.status} | ${(d.bytes / 1024).toFixed(0)} KiB | ${d.ms} ms |`);
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/report-load.json'), `${JSON.stringify({ machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, node: process.version, results }, null, 2)}\n`);
