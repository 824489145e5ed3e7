/**
 * `npm run bench:reports`: every report × format of the demo's largest project, organisation and
 * program, downloaded one at a time from our server on SQLite: time to the first and the last
 * byte, and the server's peak resident memory while it answered. Prints a Markdown table and
 * writes bench/results/reports.json.
 *
 *   BENCH_SCALES=1,100   demo scales (default 1)
 *   BENCH_DATABASE_DIR   where the demo databases are kept between runs (loading scale 100 takes minutes)
 *   BENCH_ONLY=<regexp>  only the reports whose `scope/path format` matches
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { formatsOf, REPORT_DOWNLOADS, type ReportScope } from '../src/reports/catalogue.ts';
import { organisationExport } from '../src/reports/excel/organisation-export.ts';
import { adminKeys, demoDatabase, largestOrganisation } from './report-downloads.ts';
import { startOurs, type Running } from './servers.ts';

const scales = (process.env.BENCH_SCALES ?? '1').split(',').map(Number);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const root = new URL('..', import.meta.url).pathname;
/** The project with the most periods, the organisation with the most projects, the program with the most members. */
function largest(file: string): Record<ReportScope, number> {
  const db = new SQLite(file, { readonly: true });
  const one = (sql: string) => (db.prepare(sql).pluck().get() as number);
  const ids = {
    project: one('select r.project from indicator_period p join indicator i on i.id = p.indicator join result r on r.id = i.result group by r.project order by count(*) desc, r.project limit 1'),
    organisation: largestOrganisation(file),
    program: one(`select g.id from program g join project c on c.parent = g.id or c.parent in (select id from project where parent = g.id) group by g.id order by count(*) desc, g.id limit 1`),
  };
  db.close();
  return ids;
}

interface Timing {
  scale: number;
  report: string;
  format: string;
  id: number;
  status: number;
  bytes: number;
  firstByteMs: number;
  lastByteMs: number;
  peakRssMiB: number;
}

/** One download, its body read as it arrives, the server's memory sampled meanwhile. */
async function download(server: Running, path: string, key: string): Promise<Omit<Timing, 'scale' | 'report' | 'format' | 'id'>> {
  let peak = server.rssMiB();
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 10);
  const started = performance.now();
  try {
    const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` } });
    const reader = answer.body!.getReader();
    let firstByteMs = 0;
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += value.length;
    }
    return { status: answer.status, bytes, firstByteMs: Math.round(firstByteMs), lastByteMs: Math.round(performance.now() - started), peakRssMiB: Math.round(Math.max(peak, server.rssMiB())) };
  } finally {
    clearInterval(sampler);
  }
}

/** User and system CPU time of a process so far, in ms (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The organisation export abandoned at its first bytes: the server's CPU time in the second
 * after, against the CPU time of the whole download. Work that stops leaves the first near 0.
 */
async function abandoned(server: Running, path: string, key: string): Promise<{ cpuAfterMs: number }> {
  const controller = new AbortController();
  const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` }, signal: controller.signal });
  await answer.body!.getReader().read();
  controller.abort();
  await new Promise((done) => setTimeout(done, 100));
  const before = cpuMs(server.pid);
  await new Promise((done) => setTimeout(done, 1000));
  return { cpuAfterMs: cpuMs(server.pid) - before };
}

const timings: Timing[] = [];
const abandonments: { scale: number; cpuAfterMs: number }[] = [];
for (const scale of scales) {
  const { file, url } = demoDatabase(scale);
  const [key] = adminKeys(url, 1);
  const ids = largest(file);
  for (const report of REPORT_DOWNLOADS) {
    for (const format of formatsOf(report)) {
      if (only && !only.test(`${report.scope}/${report.path} ${format}`)) continue;
      // A server of its own per download: its peak memory is this report's, not the run's so far.
      const server = await startOurs(url);
      try {
        const id = ids[report.scope];
        const measured = await download(server, `/py-reports/${report.scope}/${id}/${report.path}/?format=${format}`, key);
        timings.push({ scale, report: `${report.scope}/${report.path}`, format, id, ...measured });
        console.error(`scale ${scale} ${report.scope}/${report.path} ${format}: ${measured.status} ${measured.bytes} B, first byte ${measured.firstByteMs} ms, last ${measured.lastByteMs} ms, peak RSS ${measured.peakRssMiB} MiB`);
        if (report.excel === organisationExport) abandonments.push({ scale, ...(await abandoned(server, `/py-reports/${report.scope}/${id}/${report.path}/?format=${format}`, key)) });
      } finally {
        await server.stop();
      }
    }
  }
}

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/reports.json'), `${JSON.stringify({ machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, node: process.version, timings, abandonments }, null, 2)}\n`);
console.log('| scale | report | format | id | size | first byte | last byte | peak RSS |\n| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const a of abandonments) console.log(`\nscale ${a.scale}: organisation export abandoned at its first bytes: ${a.cpuAfterMs} ms of server CPU in the second after`);
for (const t of timings) console.log(`| ${t.scale} | ${t.report} | ${t.format} | ${t.id} | ${(t.bytes / 1024).toFixed(0)} KiB | ${t.firstByteMs} ms | ${t.lastByteMs} ms | ${t.peakRssMiB} MiB |`);
