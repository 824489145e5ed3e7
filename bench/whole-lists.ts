/**
 * `npm run bench:whole-lists`: whole-list downloads of budget items (`/download/budget_item.csv`
 * and `.xlsx`) from a two-worker server, as an administrator (every record), at each scale: the
 * time to the last byte, the size, the answering worker's peak RSS above its RSS before
 * (sampled every 100 ms), and the file's records counted by a real parser (csv-parse, exceljs's
 * streaming reader) against the list's `count`. Writes bench/results/whole-lists.json.
 *
 *   BENCH_SCALES=1,100   demo scales (default 1)
 *   BENCH_DATABASE_DIR   where the demo databases are kept between runs (shared with bench:memory)
 */
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { cli, demoDatabase } from './report-downloads.ts';
import { startOurs } from './servers.ts';

const scales = (process.env.BENCH_SCALES ?? '1').split(',').map(Number);
const root = new URL('..', import.meta.url).pathname;
const LIST = 'budget_item';

/** An administrator's key, made for the run. */
function adminKey(url: string): string {
  const email = `bench-whole-${process.pid}-${Date.now()}@example.org`;
  cli(['user', 'create', '--email', email, '--first-name', 'Bench', '--last-name', 'Whole', '--admin'], url);
  return cli(['token', 'create', '--email', email], url).trim();
}

/** Records of a CSV file, its header left out. */
async function csvRecords(file: string): Promise<number> {
  let records = -1;
  for await (const _ of createReadStream(file).pipe(parse({ bom: true }))) records += 1;
  return records;
}

/** Rows of every sheet of a workbook, each sheet's header left out. */
async function xlsxRecords(file: string): Promise<number> {
  let records = 0;
  for await (const sheet of new ExcelJS.stream.xlsx.WorkbookReader(file, { worksheets: 'emit', sharedStrings: 'ignore', styles: 'ignore', hyperlinks: 'ignore' })) {
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) if (row.number > 1) records += 1;
  }
  return records;
}

async function run(scale: number) {
  const { url } = demoDatabase(scale);
  const key = adminKey(url);
  const server = await startOurs(url, 2);
  const scratch = mkdtempSync(join(tmpdir(), 'rsr-whole-'));
  try {
    const headers = { authorization: `Token ${key}` };
    const { count } = (await (await fetch(`${server.base}/rest/v1/${LIST}/?limit=1`, { headers })).json()) as { count: number };
    const results = [];
    for (const format of ['csv', 'xlsx'] as const) {
      const before = Math.max(...server.workersRssMiB());
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, ...server.workersRssMiB())), 100);
      const file = join(scratch, `${LIST}.${format}`);
      const started = performance.now();
      const answer = await fetch(`${server.base}/download/${LIST}.${format}`, { headers });
      await pipeline(Readable.fromWeb(answer.body as ReadableStream), createWriteStream(file));
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      const records = format === 'csv' ? await csvRecords(file) : await xlsxRecords(file);
      const result = { format, status: answer.status, seconds: Math.round(seconds * 10) / 10, mib: Math.round(statSync(file).size / 2 ** 20), totalCount: Number(answer.headers.get('x-total-count')), records, count, peakAboveMiB: Math.round(peak - before), rssBeforeMiB: Math.round(before) };
      console.error(`  scale ${scale} ${format}: ${JSON.stringify(result)}`);
      results.push(result);
      rmSync(file);
    }
    return { scale, results };
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const results = [];
for (const scale of scales) results.push(await run(scale));
for (const { scale, results: each } of results) {
  for (const r of each) console.log(`scale ${scale} ${r.format}: ${r.records.toLocaleString('en')} records (count ${r.count.toLocaleString('en')}${r.records === r.count ? ', equal' : ', DIFFERENT'}) in ${r.seconds} s, ${r.mib} MiB, worker peak ${r.peakAboveMiB} MiB above ${r.rssBeforeMiB}`);
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/whole-lists.json'), `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`);
if (results.some(({ results: each }) => each.some((r) => r.status !== 200 || r.records !== r.count))) process.exitCode = 1;
