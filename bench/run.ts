/**
 * `npm run bench`: load scenarios against our server on SQLite (and PostgreSQL when
 * BENCH_POSTGRES_URL or TEST_POSTGRES_URL is set), against a bare node:http ceiling and against
 * the Django REST Framework reference (when its Debian packages are installed), all in one run
 * on one machine and dataset. Prints a table and writes bench/results/latest.json.
 *
 *   BENCH_SCALES=1,100  demo scales (default 1)      BENCH_DURATION=5   seconds per scenario
 *   BENCH_CONNECTIONS=32                              BENCH_DRF=0        skip the DRF reference
 *   BENCH_POSTGRES_SCALES=1   scales also measured on PostgreSQL
 *   BENCH_WORKERS=<CPUs>      processes of our server and of the ceiling (serve's default)
 *   BENCH_MIXED_DURATION=30   seconds of the mixed scenario (mixed.ts), after BENCH_MIXED_WARM_UP=5 of warming up
 *   BENCH_ONLY=mixed          only the mixed scenario (and the ceiling)
 *   BENCH_LOADER=wrk          what sends the mix: wrk (bench/wrk-mix.ts; the default where wrk is installed) or autocannon
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDemoUsers } from '../src/commands/demo.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { createToken } from '../src/store/users.ts';
import { headLoad, type LoadResult } from './head-load.ts';
import { adminCounts, mixedData, mixedRequests, samplePaths, staleAnswers, warmPaths, type MixedData } from './mixed.ts';
import { startCeiling, startDrf, startOurs, type Running } from './servers.ts';
import { wrkMixed } from './wrk-mix.ts';

const scales = (process.env.BENCH_SCALES ?? '1').split(',').map(Number);
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
/** PostgreSQL at these scales only (loading scale 100 into it takes many minutes). */
const postgresScales = (process.env.BENCH_POSTGRES_SCALES ?? '1').split(',').map(Number);
const workers = Number(process.env.BENCH_WORKERS ?? os.availableParallelism());
const mixedDuration = Number(process.env.BENCH_MIXED_DURATION ?? 30);
const onlyMixed = process.env.BENCH_ONLY === 'mixed';
/** What sends the mixed scenario: wrk where it is installed (bench/wrk-mix.ts: it reports the slowest answer too). */
const mixLoader = process.env.BENCH_LOADER ?? (spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk');
/** Of the mixed scenario's requests, this share are writes. */
const WRITE_SHARE = 0.05;
const root = new URL('..', import.meta.url).pathname;
const scratch = mkdtempSync(join(os.tmpdir(), 'rsr-bench-'));

/**
 * `cached`: the same URL again and again, as a load test sends it, so that after the first
 * request every answer is a response-cache hit. `fresh`: each request's URL is new (an ignored
 * `_` parameter counts up), so every answer is computed: page query, related rows, rendering.
 */
type Mode = 'cached' | 'fresh' | 'mixed';

interface Measurement {
  scale: number;
  server: string;
  scenario: string;
  mode: Mode;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rssMiB: number;
}
const results: Measurement[] = [];
const notes: Record<string, unknown> = {};
notes['mixed scenario sent by'] = mixLoader;

function cli(args: string[], databaseUrl: string): string {
  const run = spawnSync(process.execPath, ['bin/rsr-api.mjs', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`rsr-api ${args.join(' ')}: ${run.stderr}`);
  return run.stderr;
}

function scenarios(firstId: number): [string, string, string?][] {
  return [
    ['page 1', '/rest/v1/budget_item/'],
    ['deep page (300)', '/rest/v1/budget_item/?page=300'],
    ['ordering=-amount', '/rest/v1/budget_item/?ordering=-amount'],
    ['ordering=other_extra', '/rest/v1/budget_item/?ordering=other_extra'],
    ['filtered (label=38)', '/rest/v1/budget_item/?label=38'],
    ['limit=1000', '/rest/v1/budget_item/?limit=1000'],
    ['one record', `/rest/v1/budget_item/${firstId}/`],
    ['organisation page 1', '/rest/v1/organisation/'],
    ['API root', '/rest/v1/'],
    ['HEAD page 1', '/rest/v1/budget_item/', 'HEAD'],
  ];
}

let sequence = 0;

function get(url: string, mode: Mode, seconds = duration): Promise<autocannon.Result> {
  const fresh = (request: autocannon.Request) => ({ ...request, path: `${request.path}${request.path?.includes('?') ? '&' : '?'}_=${(sequence += 1)}` });
  return autocannon({ url, connections, duration: seconds, headers: { accept: 'application/json' }, requests: mode === 'fresh' ? [{ setupRequest: fresh }] : undefined });
}

function loadResult(result: autocannon.Result): LoadResult {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** Each measurement follows a short unrecorded run of the same requests: JIT, caches, statements. */
const WARM_UP_SECONDS = 1;
/**
 * A server warms up to the mix (its code compiled, the file cache, the orders of lists read deep
 * kept) over seconds: the mix is measured after this many, for as long as a service runs steadily.
 */
const MIXED_WARM_UP_SECONDS = Number(process.env.BENCH_MIXED_WARM_UP ?? 5);

async function measure(scale: number, server: Running, scenario: string, path: string, method: string | undefined, mode: Mode): Promise<Measurement> {
  if (method !== 'HEAD') await get(server.base + path, mode, WARM_UP_SECONDS);
  const load = method === 'HEAD' ? await headLoad(server.base + path, connections, duration) : loadResult(await get(server.base + path, mode));
  const measurement = { scale, server: server.name, scenario, mode, ...load, rssMiB: Math.round(server.rssMiB()) };
  results.push(measurement);
  console.error(`  ${server.name.padEnd(16)} ${scenario.padEnd(22)} ${mode.padEnd(6)} ${String(measurement.requestsPerSecond).padStart(7)} req/s  p50 ${measurement.p50Ms} ms  p99 ${measurement.p99Ms} ms  errors ${measurement.errors}`);
  return measurement;
}

/**
 * An administrator and the demo's editor (a Project Editor at a partner of published projects),
 * with a key each, made straight in the database.
 */
async function benchUsers(databaseUrl: string): Promise<{ admin: string; editor: string }> {
  const engine = openEngine(databaseUrl);
  try {
    await createDemoUsers(engine, false);
    return { admin: await createToken(engine, 'admin@demo.rsr-api.org'), editor: await createToken(engine, 'editor@demo.rsr-api.org') };
  } finally {
    await engine.close();
  }
}

/** Each list's records counted straight from its table (what an administrator's `count` must say). */
async function tableCounts(databaseUrl: string): Promise<Record<string, number>> {
  const engine = openEngine(databaseUrl);
  try {
    const counts: Record<string, number> = {};
    for (const resource of RESOURCES) counts[resource.name] = Number((await engine.db.selectFrom(resource.table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
    return counts;
  } finally {
    await engine.close();
  }
}

/** The mix warmed up (seed 1), then measured (seed 14), sent by mixLoader; the writes among what was sent. */
async function mixedLoad(base: string, data: MixedData, writeShare: number): Promise<{ load: LoadResult; writes: number }> {
  if (mixLoader === 'wrk') {
    await wrkMixed(base, data, writeShare, 1, MIXED_WARM_UP_SECONDS, connections);
    const { requestsPerSecond, p50Ms, p99Ms, errors, writes } = await wrkMixed(base, data, writeShare, 14, mixedDuration, connections);
    return { load: { requestsPerSecond, p50Ms, p99Ms, errors }, writes };
  }
  await autocannon({ url: base, connections, duration: MIXED_WARM_UP_SECONDS, requests: mixedRequests(data, writeShare, 1) });
  const sent = { writes: 0 };
  const result = await autocannon({ url: base, connections, duration: mixedDuration, requests: mixedRequests(data, writeShare, 14, sent) });
  return { load: loadResult(result), writes: sent.writes };
}

/**
 * The mixed scenario on one server: `writeShare` writes (none on DRF). On ours, with the
 * staleness checks around it: pages and counts cached before, compared after.
 */
async function mixed(scale: number, server: Running, data: MixedData, checks: { databaseUrl: string; adminKey: string } | null, writeShare = checks ? WRITE_SHARE : 0): Promise<void> {
  const samples = samplePaths(data, 100);
  if (checks) {
    await warmPaths(server.base, samples);
    await adminCounts(server.base, checks.adminKey);
  }
  const { load, writes } = await mixedLoad(server.base, data, writeShare);
  const measurement: Measurement = { scale, server: server.name, scenario: writeShare ? 'mixed, 5 % writes' : 'mixed, reads only', mode: 'mixed', ...load, rssMiB: Math.round(server.rssMiB()) };
  results.push(measurement);
  console.error(`  ${server.name.padEnd(16)} ${measurement.scenario.padEnd(22)} ${String(load.requestsPerSecond).padStart(7)} req/s  p50 ${load.p50Ms} ms  p99 ${load.p99Ms} ms  errors ${load.errors}  (${mixLoader})`);
  if (!checks) return;
  const counted = await adminCounts(server.base, checks.adminKey);
  const stored = await tableCounts(checks.databaseUrl);
  const wrongCounts = Object.keys(stored).filter((name) => counted[name] !== stored[name]).map((name) => `${name}: ${counted[name]} answered, ${stored[name]} stored`);
  const stale = await staleAnswers(server.base, samples);
  notes[`mixed scale ${scale} (${server.name}, ${measurement.scenario}): staleness`] = { countsChecked: Object.keys(stored).length, wrongCounts, pagesChecked: samples.length, stalePages: stale, writes };
  console.error(`    counts wrong: ${wrongCounts.length} of ${Object.keys(stored).length}; stale pages: ${stale.length} of ${samples.length}`);
}

async function firstVisibleId(base: string): Promise<number> {
  const body = (await (await fetch(`${base}/rest/v1/budget_item/`)).json()) as { results: { id: number }[] };
  return body.results[0].id;
}

/** Time from spawning `serve` on an existing database to its first answered request. */
async function startupMs(databaseUrl: string): Promise<number> {
  const started = performance.now();
  const server = await startOurs(databaseUrl, workers);
  for (;;) {
    const answer = await fetch(`${server.base}/rest/v1/`).catch(() => null);
    if (answer?.ok) break;
  }
  const elapsed = performance.now() - started;
  await server.stop();
  return Math.round(elapsed);
}

async function postgresDatabase(name: string): Promise<string | null> {
  if (!postgresUrl) return null;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The DRF reference on the same dataset (spec mode, 2 gunicorn workers, its own SQLite file). */
async function drfServer(scale: number, sqliteUrl: string): Promise<Running | null> {
  const peer = join(root, '..', 'shared', 'peers', 'drf');
  if (process.env.BENCH_DRF === '0' || !existsSync(peer)) return null;
  if (spawnSync('/usr/bin/python3', ['-c', 'import django, rest_framework, gunicorn'], { stdio: 'ignore' }).status !== 0) {
    notes.drf = 'not installed: run ../shared/peers/drf/install.sh (Debian packages) to compare';
    return null;
  }
  const directory = join(scratch, `drf-${scale}`);
  cpSync(peer, directory, { recursive: true });
  const dataset = join(scratch, `dataset-${scale}`);
  cli(['export', dataset], sqliteUrl);
  const env = { ...process.env, PEER_SQLITE_PATH: join(directory, 'db.sqlite3'), DJANGO_SETTINGS_MODULE: 'peer.settings' };
  execFileSync('/usr/bin/python3', ['manage.py', 'migrate', '-v0'], { cwd: directory, env, stdio: 'ignore' });
  execFileSync('/usr/bin/python3', ['manage.py', 'load', dataset], { cwd: directory, env, stdio: 'ignore' });
  return startDrf(directory, 18_000 + scale, 2, { PEER_SQLITE_PATH: join(directory, 'db.sqlite3') });
}

async function benchScale(scale: number): Promise<void> {
  console.error(`\nscale ${scale}`);
  const sqliteUrl = `sqlite:${join(scratch, `scale-${scale}.sqlite`)}`;
  const started = performance.now();
  const loaded = cli(['demo', '--load', '--scale', String(scale)], sqliteUrl);
  // The summary line `Loaded in … s: organisation 400, project 600, …` (not the progress lines).
  const summaryLine = /^Loaded in .*$/m.exec(loaded)?.[0] ?? '';
  const records = [...summaryLine.matchAll(/[a-z_]+ ([\d,]+)/g)].reduce((sum, match) => sum + Number(match[1].replace(/,/g, '')), 0);
  const seconds = (performance.now() - started) / 1000;
  notes[`import scale ${scale} (sqlite)`] = { seconds: Math.round(seconds), records, recordsPerSecond: Math.round(records / seconds) };

  const users = { sqlite: await benchUsers(sqliteUrl), postgres: { admin: '', editor: '' } };
  const servers: Running[] = [await startOurs(sqliteUrl, workers)];
  servers[0].name = 'rsr-api sqlite';
  const postgres = postgresScales.includes(scale) ? await postgresDatabase(`rsr_bench_${scale}`) : null;
  if (postgres) {
    const loading = performance.now();
    cli(['demo', '--load', '--scale', String(scale)], postgres);
    const loadSeconds = (performance.now() - loading) / 1000;
    notes[`import scale ${scale} (postgres)`] = { seconds: Math.round(loadSeconds), records, recordsPerSecond: Math.round(records / loadSeconds) };
    users.postgres = await benchUsers(postgres);
    const server = await startOurs(postgres, workers);
    server.name = 'rsr-api postgres';
    servers.push(server);
  }
  const drf = scale === 1 ? await drfServer(scale, sqliteUrl) : null;
  if (drf) servers.push(drf);

  const firstId = await firstVisibleId(servers[0].base);
  try {
    for (const [scenario, path, method] of onlyMixed ? [] : scenarios(firstId)) {
      for (const server of servers) {
        // DRF caches nothing: one mode says all. HEAD of a new URL each time is GET's work again.
        if (server === drf) {
          if (['page 1', 'deep page (300)', 'one record', 'ordering=-amount'].includes(scenario)) await measure(scale, server, scenario, path, method, 'fresh');
          continue;
        }
        await measure(scale, server, scenario, path, method, 'cached');
        if (method !== 'HEAD') await measure(scale, server, scenario, path, method, 'fresh');
      }
    }
    const body = Buffer.from(await (await fetch(`${servers[0].base}/rest/v1/budget_item/`)).arrayBuffer());
    const bodyFile = join(scratch, 'page1.json');
    writeFileSync(bodyFile, body);
    // The mix last: its writes change the data the scenarios above read.
    const data = await mixedData(servers[0].base, users.sqlite.editor);
    if (drf) await mixed(scale, drf, data, null);
    // Reads only, then with writes: each store's own figures for both, in this run.
    const sqliteChecks = { databaseUrl: sqliteUrl, adminKey: users.sqlite.admin };
    await mixed(scale, servers[0], data, sqliteChecks, 0);
    await mixed(scale, servers[0], data, sqliteChecks);
    if (postgres) {
      const postgresData = await mixedData(servers[1].base, users.postgres.editor);
      const postgresChecks = { databaseUrl: postgres, adminKey: users.postgres.admin };
      await mixed(scale, servers[1], postgresData, postgresChecks, 0);
      await mixed(scale, servers[1], postgresData, postgresChecks);
    }
    const ceiling = await startCeiling(bodyFile, workers);
    ceiling.name = 'node:http ceiling';
    await measure(scale, ceiling, 'page 1', '/rest/v1/budget_item/', undefined, 'cached');
    await ceiling.stop();
  } finally {
    for (const server of servers) await server.stop();
  }
  notes[`startup scale ${scale} (sqlite, ms to first answer)`] = await startupMs(sqliteUrl);
}

function find(scale: number, scenario: string, server: string, mode?: Mode): Measurement | undefined {
  return results.find((result) => result.scale === scale && result.scenario === scenario && result.server === server && (!mode || result.mode === mode));
}

function ratio(ours: Measurement | undefined, other: Measurement | undefined): string {
  return ours && other ? (ours.requestsPerSecond / other.requestsPerSecond).toFixed(2) : 'n/a';
}

for (const scale of scales) await benchScale(scale);

const summary: Record<string, string> = {};
for (const scale of scales) {
  for (const store of ['sqlite', 'postgres']) {
    for (const mode of ['cached', 'fresh'] as const) {
      for (const scenario of ['page 1', 'deep page (300)', 'one record']) {
        summary[`scale ${scale}: ${scenario}, ${store} ${mode} / drf`] = ratio(find(scale, scenario, `rsr-api ${store}`, mode), find(scale, scenario, 'drf'));
      }
      summary[`scale ${scale}: page 1, ${store} ${mode} / ceiling`] = ratio(find(scale, 'page 1', `rsr-api ${store}`, mode), find(scale, 'page 1', 'node:http ceiling'));
    }
    // The mix's reads (its requests but the writes' share) against DRF's reads of the same mix.
    const ours = find(scale, 'mixed, 5 % writes', `rsr-api ${store}`);
    const drf = find(scale, 'mixed, reads only', 'drf');
    if (ours && drf) summary[`scale ${scale}: mixed reads, ${store} / drf`] = ((ours.requestsPerSecond * (1 - WRITE_SHARE)) / drf.requestsPerSecond).toFixed(1);
  }
  summary[`scale ${scale}: page 1 fresh, postgres / sqlite`] = ratio(find(scale, 'page 1', 'rsr-api postgres', 'fresh'), find(scale, 'page 1', 'rsr-api sqlite', 'fresh'));
}
// Flat as the data grows: scale 100 against scale 1 for the same scenario (1.00 = as fast).
if (scales.includes(1)) {
  for (const scale of scales.filter((other) => other !== 1)) {
    for (const store of ['sqlite', 'postgres']) {
      for (const scenario of ['page 1', 'deep page (300)', 'one record']) {
        summary[`${scenario}, ${store} fresh: scale ${scale} / scale 1`] = ratio(find(scale, scenario, `rsr-api ${store}`, 'fresh'), find(1, scenario, `rsr-api ${store}`, 'fresh'));
      }
      for (const scenario of ['mixed, reads only', 'mixed, 5 % writes']) {
        summary[`${scenario}, ${store}: scale ${scale} / scale 1`] = ratio(find(scale, scenario, `rsr-api ${store}`), find(1, scenario, `rsr-api ${store}`));
      }
    }
  }
}
for (const key of Object.keys(summary)) if (summary[key] === 'n/a') delete summary[key];
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  settings: { duration, connections, scales, workers, mixedDuration },
  summary, notes, results,
};
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.table(results.map((result) => ({ ...result })));
console.log(summary, notes);
rmSync(scratch, { recursive: true, force: true });
