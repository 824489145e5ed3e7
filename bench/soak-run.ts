/**
 * The soak (issue 26, "hours without drift"): a two-worker `serve` (real processes) on a fresh
 * demo database, held under the mixed scenario with writes (mixed.ts) for a given time, while the
 * eleven heavy report downloads of the largest organisation come back again and again and the
 * command line imports a small dataset into another SQLite file, over and over. Every few seconds
 * each process's resident memory, open descriptors and database handles are noted (SQLite: the
 * descriptors of the database file, one per connection; PostgreSQL: the database's connections in
 * pg_stat_activity). At the end it checks what must hold after hours as after minutes:
 *
 * - memory: each worker's RSS over the samples after the warm-up, fitted by least squares, grows
 *   by no more than a threshold in MiB per hour;
 * - no answer 5xx (nor a connection error), every download 200, every import done;
 * - nothing stale: every list's count as an administrator against count(*) of its table; pages
 *   cached before the writes against the same pages made afresh; every record the writes changed,
 *   read through both workers (cached before the writes), against its row; every link answered 201
 *   in the table;
 * - no descriptor or database connection kept: each process's figures once idle at the end (its
 *   report thread ended) against the same once idle at the start; the same workers throughout.
 *
 * bench/soak.ts runs it from the command line (`npm run soak`), test/soak.test.ts for two minutes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { createDemoUsers } from '../src/commands/demo.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { adminCounts, mixedData, mixedRequests, samplePaths, staleAnswers, warmPaths, type MixedData } from './mixed.ts';
import { DOWNLOADS } from './report-downloads.ts';
import { startOurs, type Running } from './servers.ts';

const root = new URL('..', import.meta.url).pathname;
/** The small dataset imported again and again beside the load (the tests' hand-written one). */
const SMALL_DATASET = join(root, 'test/fixtures/small');
/** A report thread ends after 30 s unused (reports/pool.ts): the idle figures are read after it has. */
const REPORT_THREAD_IDLE_MS = 30_000;

export interface SoakOptions {
  /** Minutes of load (the warm-up included). */
  minutes: number;
  /** Minutes of it before memory is measured. */
  warmUpMinutes: number;
  /** Demo scale. */
  scale: number;
  /** PostgreSQL server to make the database on (a fresh one, dropped after); null: SQLite. */
  postgresUrl: string | null;
  /** Requests per second of the mix (0: as many as the server answers), over `connections`. */
  rate: number;
  connections: number;
  /** Share of the mix's requests that are writes. */
  writeShare: number;
  sampleSeconds: number;
  /** Seconds between the end of one round of report downloads and the start of the next. */
  reportsEverySeconds: number;
  /** Seconds between the end of one import and the start of the next. */
  importEverySeconds: number;
  /** Largest slope of a worker's RSS after the warm-up, MiB per hour. */
  maxSlopeMiBPerHour: number;
  /** Descriptors a process may hold more once idle at the end than once idle at the start. */
  fdSlack: number;
  /** Where the databases go (a directory made and removed by the run when not given). */
  scratch?: string;
  log?: (line: string) => void;
}

export const DEFAULT_SOAK: SoakOptions = {
  minutes: 30, warmUpMinutes: 5, scale: 1, postgresUrl: null, rate: 200, connections: 16, writeShare: 0.05,
  sampleSeconds: 5, reportsEverySeconds: 60, importEverySeconds: 15, maxSlopeMiBPerHour: 20, fdSlack: 0,
};

/** One process at one moment. */
export interface ProcessFigures {
  pid: number;
  rssMiB: number;
  fds: number;
  /** Its database connections. SQLite: descriptors of the database file (the service's connection, its reader threads', a report thread's); PostgreSQL: its connections in pg_stat_activity. */
  dbHandles: number;
  /** Its threads: a report thread, while one runs, is one more (and 60–100 MiB more RSS). */
  threads: number;
  /** Idle samples: its descriptors by what they lead to (a file's path, `socket`, `pipe`, `anon_inode`), to name one kept. */
  kinds?: Record<string, number>;
}

export interface Sample {
  /** Seconds since the load started (negative: before it). */
  seconds: number;
  phase: 'idle at start' | 'warm-up' | 'measured' | 'idle at end';
  primary: ProcessFigures;
  workers: ProcessFigures[];
  /** PostgreSQL: the database's connections (pg_stat_activity), whoever holds them, the sampler's own left out; null on SQLite. */
  dbConnections: number | null;
  /** Answers of the mix since the previous sample, and 5xx among them. */
  answers: number;
  fiveXx: number;
  /** Both workers' V8 heaps (total, as /metrics shows it): what of their RSS is JavaScript's. */
  heapTotalMiB: number;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SoakReport {
  date: string;
  machine: { cpus: number; cpu: string | undefined; memoryGiB: number; node: string; loadAverage: number[] };
  options: Omit<SoakOptions, 'log' | 'scratch' | 'postgresUrl'>;
  store: 'sqlite' | 'postgres';
  built: boolean;
  seconds: { load: number; total: number };
  load: { requests: number; requestsPerSecond: number; p50Ms: number; p99Ms: number; statuses: Record<string, number>; errors: number; timeouts: number; writesSent: number };
  downloads: { rounds: number; statuses: Record<string, number>; slowestMs: number };
  imports: { runs: number; failed: number; slowestMs: number };
  /** Per worker: RSS at the points of the run, and its slope after the warm-up (least squares over `slopeSamples` samples, those without a report thread running where there are enough). */
  memory: { worker: number; pid: number; rssMiB: { start: number; afterWarmUp: number; endOfLoad: number; end: number; min: number; max: number }; slopeMiBPerHour: number; slopeSamples: number }[];
  descriptors: { process: string; fds: { start: number; end: number; maxMeasured: number }; dbHandles: { start: number; end: number; maxMeasured: number } }[];
  dbConnections: { start: number; end: number; maxMeasured: number } | null;
  /** What /metrics says grew (both workers summed): idle at start, at the end of the load, idle at the end. */
  inside: { idleAtStart: Inside; endOfLoad: Inside; idleAtEnd: Inside };
  /** Both workers' V8 heap total after the warm-up, fitted as RSS is: how much of RSS's slope is JavaScript's. */
  heapSlopeMiBPerHour: number;
  stale: { countsChecked: number; wrongCounts: string[]; pagesChecked: number; stalePages: string[]; recordsChecked: number; staleRecords: string[]; linksAnswered201: number; linksStored: number };
  checks: Check[];
  samples: Sample[];
}

/** A worker's insides as /metrics shows them, both workers summed: the main thread's V8 heap, and each cache's entries and weight (store/caches.ts). */
export interface Inside {
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  cacheEntries: Record<string, number>;
  cacheWeights: Record<string, number>;
}

/** Reads /metrics (with the run's METRICS_TOKEN) for what a worker holds. */
async function inside(base: string, token: string): Promise<Inside> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } })).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  const perCache = (name: string) => Object.fromEntries([...text.matchAll(new RegExp(`^${name}\\{cache="([^"]+)"\\} (\\S+)$`, 'gm'))].map((match) => [match[1], Number(match[2])]));
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    heapUsedMiB: mib(value('rsr_api_nodejs_heap_size_used_bytes')), heapTotalMiB: mib(value('rsr_api_nodejs_heap_size_total_bytes')), externalMiB: mib(value('rsr_api_nodejs_external_memory_bytes')),
    cacheEntries: perCache('rsr_api_cache_entries'), cacheWeights: perCache('rsr_api_cache_weight'),
  };
}

/** Least-squares slope of `values` against `hours`. */
export function slope(hours: readonly number[], values: readonly number[]): number {
  const n = hours.length;
  if (n < 2) return 0;
  const meanX = hours.reduce((sum, x) => sum + x, 0) / n;
  const meanY = values.reduce((sum, y) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (let index = 0; index < n; index += 1) {
    covariance += (hours[index] - meanX) * (values[index] - meanY);
    variance += (hours[index] - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The TCP sockets of this machine by inode: their local and remote ports (/proc/net/tcp and tcp6). */
function tcpSockets(): Map<string, { local: number; remote: number }> {
  const sockets = new Map<string, { local: number; remote: number }>();
  const port = (address: string) => Number.parseInt(address.split(':').at(-1) ?? '', 16);
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length >= 10) sockets.set(columns[9], { local: port(columns[1]), remote: port(columns[2]) });
    }
  }
  return sockets;
}

/**
 * Where a process's database handles are: SQLite, the descriptors of the database file;
 * PostgreSQL, its sockets to the server whose ports pg_stat_activity lists as the database's
 * clients.
 */
type Database = { file: string } | { port: number; clients: ReadonlySet<number>; sockets: Map<string, { local: number; remote: number }> };

function figures(pid: number, database: Database, withKinds = false): ProcessFigures {
  let fds = 0;
  let dbHandles = 0;
  const kinds: Record<string, number> = {};
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds += 1;
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const kind = target.replace(/:\[\d+\]$/, '');
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if ('file' in database) {
        if (target === database.file) dbHandles += 1;
        continue;
      }
      const socket = database.sockets.get(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '');
      if (socket && socket.remote === database.port && database.clients.has(socket.local)) dbHandles += 1;
    } catch {
      // closed meanwhile
    }
  }
  const threads = Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { pid, rssMiB: Math.round(rssMiB(pid) * 10) / 10, fds, dbHandles, threads, ...(withKinds ? { kinds } : {}) };
}

/** What a process holds idle at the end beyond what it held idle at the start, by kind of descriptor ('' where nothing). */
function keptKinds(start: Record<string, number>, end: Record<string, number>): string {
  return Object.entries(end).filter(([kind, count]) => count > (start[kind] ?? 0)).map(([kind, count]) => `${count - (start[kind] ?? 0)} × ${kind}`).join(', ');
}

/** The primary's workers: its children that run rsr-api (from the sources, tsx may start one of its own). */
function workerPids(primary: number): number[] {
  const children = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('rsr-api');
    } catch {
      return false;
    }
  }).sort((a, b) => a - b);
}

function cli(args: string[], databaseUrl: string): string {
  const run = spawnSync(process.execPath, ['bin/rsr-api.mjs', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`rsr-api ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** `rsr-api import DIR --replace` as a separate process, without holding up this one: its exit status and time. */
function importOnce(databaseUrl: string): Promise<{ code: number | null; ms: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/rsr-api.mjs', 'import', SMALL_DATASET, '--replace'], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, ms: Math.round(performance.now() - started), output }));
  });
}

/** Keys of the administrator, the demo's project editor, and one administrator per report download (a caller may make two at once). */
async function keys(engine: Engine): Promise<{ admin: string; editor: string; downloads: string[] }> {
  await createDemoUsers(engine, false);
  const downloads: string[] = [];
  for (const [index] of DOWNLOADS.entries()) {
    const email = `soak-${index}@example.org`;
    await createUser(engine, { email, firstName: 'Soak', lastName: String(index), admin: true });
    downloads.push(await createToken(engine, email));
  }
  return { admin: await createToken(engine, 'admin@demo.rsr-api.org'), editor: await createToken(engine, 'editor@demo.rsr-api.org'), downloads };
}

async function tableCounts(engine: Engine): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const resource of RESOURCES) counts[resource.name] = Number((await engine.db.selectFrom(resource.table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
  return counts;
}

/** A record as an administrator reads it, on a connection of its own (the primary deals them to the workers in turn). */
async function record(base: string, resource: string, id: number, key: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${base}/rest/v1/${resource}/${id}/`, { headers: { accept: 'application/json', authorization: `Token ${key}`, connection: 'close' } });
  if (!answer.ok) throw new Error(`${resource} ${id}: ${answer.status}`);
  return (await answer.json()) as Record<string, unknown>;
}

/** The records the mix's writes change: budget items' amounts and transactions' values. */
const WRITTEN = [['budget_item', 'amount', 'editorBudgetItems'], ['transaction', 'value', 'editorTransactions']] as const;

const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** Every record the writes may have changed, read through each worker, against its row. */
async function staleRecords(base: string, engine: Engine, data: MixedData, key: string): Promise<{ checked: number; stale: string[] }> {
  const stale: string[] = [];
  let checked = 0;
  for (const [resource, field, ids] of WRITTEN) {
    const wanted = data[ids];
    if (!wanted.length) continue;
    const rows = new Map((await engine.db.selectFrom(resource).select(['id', field]).where('id', 'in', wanted).execute()).map((row) => [row.id as number, number(row[field])]));
    for (const id of wanted) {
      checked += 1;
      for (let worker = 0; worker < 2; worker += 1) {
        const answered = number((await record(base, resource, id, key))[field]);
        if (answered !== rows.get(id)) {
          stale.push(`${resource} ${id}: ${field} ${answered} answered, ${rows.get(id)} stored`);
          break;
        }
      }
    }
  }
  return { checked, stale };
}

/**
 * The eleven heavy downloads of the organisation at once (report-downloads.ts), each on a
 * connection closed after it: a connection kept alive by this client would count as a descriptor
 * the server holds.
 */
function downloadRound(base: string, organisation: number, keys: readonly string[]): Promise<{ status: number; ms: number }[]> {
  return Promise.all(DOWNLOADS.map(async (path, index) => {
    const started = performance.now();
    const answer = await fetch(`${base}/py-reports/organisation/${organisation}/${path}`, { headers: { authorization: `Token ${keys[index]}`, connection: 'close' } });
    await answer.arrayBuffer();
    return { status: answer.status, ms: Math.round(performance.now() - started) };
  }));
}

const tally = (into: Record<string, number>, key: string | number, by = 1) => (into[String(key)] = (into[String(key)] ?? 0) + by);

/** A PostgreSQL database of its own for the run, next to the one `adminUrl` names. */
async function postgresDatabase(adminUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `rsr_soak_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name} encoding 'UTF8' template template0`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(), name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export async function soak(given: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const options: SoakOptions = { ...DEFAULT_SOAK, ...given };
  const log = options.log ?? ((line: string) => console.error(line));
  const began = performance.now();
  const scratch = options.scratch ?? mkdtempSync(join(os.tmpdir(), 'rsr-soak-'));
  const databaseFile = join(scratch, 'soak.sqlite');
  const postgres = options.postgresUrl ? await postgresDatabase(options.postgresUrl) : null;
  const databaseUrl = postgres?.url ?? `sqlite:${databaseFile}`;
  const importsUrl = `sqlite:${join(scratch, 'imports.sqlite')}`;
  let server: Running | null = null;
  let watcher: pg.Client | null = null;
  try {
    log(`soak: demo scale ${options.scale} into ${postgres ? `PostgreSQL ${postgres.name}` : databaseFile}…`);
    cli(['demo', '--load', '--scale', String(options.scale)], databaseUrl);
    // This process's own connection, open only before the run and for the checks at its end.
    let engine = openEngine(databaseUrl);
    let engineOpen = true;
    const closeEngine = async () => {
      if (engineOpen) await engine.close();
      engineOpen = false;
    };
    try {
      const { admin, editor, downloads: downloadKeys } = await keys(engine);
      // The organisation taking part in the most projects: its downloads are the heaviest.
      const organisation = Number((await sql<{ organisation: number }>`select organisation from partnership group by organisation order by count(distinct project) desc, organisation limit 1`.execute(engine.db)).rows[0].organisation);
      await closeEngine();
      if (postgres) {
        watcher = new pg.Client({ connectionString: databaseUrl });
        await watcher.connect();
      }
      const postgresPort = Number(new URL(databaseUrl).port || 5432);
      const where = async (): Promise<{ database: Database; connections: number | null }> => {
        if (!watcher) return { database: { file: databaseFile }, connections: null };
        const { rows } = await watcher.query<{ client_port: number | null }>('select client_port from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
        return { database: { port: postgresPort, clients: new Set(rows.map((row) => Number(row.client_port))), sockets: tcpSockets() }, connections: rows.length };
      };

      const metricsToken = randomBytes(16).toString('hex');
      server = await startOurs(databaseUrl, 2, { METRICS_TOKEN: metricsToken });
      const running = server;
      const base = running.base;
      const workers = workerPids(running.pid);
      if (workers.length !== 2) throw new Error(`expected 2 workers, found ${workers.join(', ')}`);
      let loadStarted = performance.now();
      const samples: Sample[] = [];
      let answers = 0;
      let fiveXx = 0;
      const sample = async (phase: Sample['phase']) => {
        const { database, connections } = await where();
        const seconds = Math.round((performance.now() - loadStarted) / 100) / 10;
        // Descriptors before /metrics is asked: its connection may not be closed yet right after.
        const idle = phase.startsWith('idle');
        const [primary, ...each] = [running.pid, ...workerPids(running.pid)].map((pid) => figures(pid, database, idle));
        const { heapTotalMiB } = await inside(base, metricsToken);
        const taken: Sample = { seconds, phase, primary, workers: each, dbConnections: connections, answers, fiveXx, heapTotalMiB };
        answers = 0;
        fiveXx = 0;
        samples.push(taken);
        return taken;
      };

      // The figures at the start are those of a service that has made reports and seen an import
      // before, idle: its first download opens what it keeps (SQLite keeps the descriptor of a
      // connection closed while the process holds locks on the file, for the next to open).
      log('soak: a first round of downloads and an import; the data the mix needs; what the checks compare, cached…');
      const first = await downloadRound(base, organisation, downloadKeys);
      let lastDownloadEnded = performance.now();
      if (first.some((download) => download.status !== 200)) throw new Error(`the first downloads answered ${first.map((download) => download.status).join(', ')}`);
      const firstImport = await importOnce(importsUrl);
      if (firstImport.code !== 0) throw new Error(`the first import failed: ${firstImport.output}`);
      // What the checks at the end compare with: pages, counts and records asked for before the
      // writes (each record four times on connections of its own: twice on each worker, so that
      // both keep it).
      const data = await mixedData(base, editor);
      const pages = samplePaths(data, 100);
      await warmPaths(base, pages);
      await adminCounts(base, admin);
      for (const [resource, , ids] of WRITTEN) for (const id of data[ids]) for (let time = 0; time < 4; time += 1) await record(base, resource, id, admin);
      // Idle until the report threads have ended.
      await sleep(Math.max(3000, lastDownloadEnded + REPORT_THREAD_IDLE_MS + 5000 - performance.now()));
      const idleStart = await sample('idle at start');
      const insideAtStart = await inside(base, metricsToken);

      // The load, the downloads and the imports, side by side, sampled.
      const loadMs = options.minutes * 60_000;
      const warmUpMs = options.warmUpMinutes * 60_000;
      log(`soak: ${options.minutes} min of the mix (${options.rate || 'unlimited'} req/s, ${options.writeShare * 100} % writes), downloads every ${options.reportsEverySeconds} s, imports every ${options.importEverySeconds} s, sampled every ${options.sampleSeconds} s`);
      loadStarted = performance.now();
      const sent = { writes: 0 };
      const statuses: Record<string, number> = {};
      let instance!: autocannon.Instance;
      const loaded = new Promise<autocannon.Result>((resolve, reject) => {
        instance = autocannon(
          { url: base, connections: options.connections, duration: loadMs / 1000, ...(options.rate ? { overallRate: options.rate } : {}), requests: mixedRequests(data, options.writeShare, 26, sent) },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      });
      instance.on('response', (_client, status) => {
        answers += 1;
        tally(statuses, status);
        if (status >= 500) fiveXx += 1;
      });
      let loading = true;
      const loadEnded = loaded.finally(() => (loading = false));

      const downloadStatuses: Record<string, number> = {};
      let rounds = 0;
      let slowestDownload = 0;
      // None in the load's last half minute: by its end the report threads have ended, and the
      // figures once idle are read soon after the checks.
      const downloading = (async () => {
        while (loading && performance.now() - loadStarted < loadMs - REPORT_THREAD_IDLE_MS) {
          const roundStarted = performance.now();
          const round = await downloadRound(base, organisation, downloadKeys);
          lastDownloadEnded = performance.now();
          rounds += 1;
          for (const download of round) {
            tally(downloadStatuses, download.status);
            slowestDownload = Math.max(slowestDownload, download.ms);
          }
          // A round starts every reportsEverySeconds (a slow round is followed by the next at once),
          // not that long after the last one ended: a slower machine still downloads in rounds.
          await Promise.race([sleep(Math.max(0, options.reportsEverySeconds * 1000 - (performance.now() - roundStarted))), loadEnded]);
        }
      })();

      let importRuns = 0;
      let importsFailed = 0;
      let slowestImport = 0;
      const importing = (async () => {
        while (loading) {
          const run = await importOnce(importsUrl);
          importRuns += 1;
          slowestImport = Math.max(slowestImport, run.ms);
          if (run.code !== 0) {
            importsFailed += 1;
            log(`soak: an import failed (${run.code}): ${run.output.slice(-500)}`);
          }
          await Promise.race([sleep(options.importEverySeconds * 1000), loadEnded]);
        }
      })();

      const sampling = (async () => {
        while (loading) {
          await Promise.race([sleep(options.sampleSeconds * 1000), loadEnded]);
          if (!loading) break;
          const taken = await sample(performance.now() - loadStarted < warmUpMs ? 'warm-up' : 'measured');
          if (samples.length % Math.max(1, Math.round(60 / options.sampleSeconds)) === 0) {
            log(`  ${Math.round(taken.seconds)} s: RSS ${taken.workers.map((worker) => worker.rssMiB.toFixed(0)).join(' / ')} MiB, fds ${taken.workers.map((worker) => worker.fds).join(' / ')}, db ${taken.dbConnections ?? taken.workers.map((worker) => worker.dbHandles).join(' / ')}, ${Math.round(taken.answers / options.sampleSeconds)} req/s, downloads ${rounds}, imports ${importRuns}`);
          }
        }
      })();

      const result = await loaded;
      const endOfLoad = await sample('measured');
      const insideEndOfLoad = await inside(base, metricsToken);
      await Promise.all([downloading, importing, sampling]);
      const loadSeconds = (performance.now() - loadStarted) / 1000;

      // Nothing stale: counts, cached pages, written records, acknowledged links.
      log('soak: checking for stale answers…');
      engine = openEngine(databaseUrl);
      engineOpen = true;
      const counted = await adminCounts(base, admin);
      const stored = await tableCounts(engine);
      const wrongCounts = Object.keys(stored).filter((name) => counted[name] !== stored[name]).map((name) => `${name}: ${counted[name]} answered, ${stored[name]} stored`);
      const stalePages = await staleAnswers(base, pages);
      const records = await staleRecords(base, engine, data, admin);
      const linksStored = Number((await engine.db.selectFrom('link').select((eb) => eb.fn.countAll().as('count')).where('url', 'like', 'https://example.org/bench/%').executeTakeFirstOrThrow()).count);
      await closeEngine();

      // Idle again: the report thread ended, the load's connections closed, PostgreSQL's pools
      // have let their idle connections go (after 10 s, as when idle at the start).
      const idleAt = Math.max(performance.now() + 15_000, lastDownloadEnded + REPORT_THREAD_IDLE_MS + 5000);
      log(`soak: waiting ${Math.round((idleAt - performance.now()) / 1000)} s for the report threads to end…`);
      await sleep(idleAt - performance.now());
      const idleEnd = await sample('idle at end');
      const insideAtEnd = await inside(base, metricsToken);

      const measured = samples.filter((taken) => taken.phase === 'measured');
      const afterWarmUp = measured[0] ?? endOfLoad;
      const memory = workers.map((pid, index) => {
        // The slope is fitted to the samples taken while the worker ran as many threads as idle at
        // the start, its report thread ended: with one running, RSS is 60–100 MiB higher, and a
        // report thread's half minute of life in every round would tilt the line by where in its
        // round the run began and ended. Where too few are without one (a short run), to those
        // with the number of threads most samples have.
        const of = (taken: Sample) => taken.workers.find((worker) => worker.pid === pid);
        const alike = measured.filter((taken) => of(taken)?.threads === of(idleStart)?.threads);
        const byThreads = new Map<number, Sample[]>();
        for (const taken of measured) byThreads.set(of(taken)?.threads ?? 0, [...(byThreads.get(of(taken)?.threads ?? 0) ?? []), taken]);
        const usual = [...byThreads.values()].sort((a, b) => b.length - a.length)[0] ?? measured;
        const series = (alike.length >= Math.max(3, measured.length / 5) ? alike : usual).map((taken) => ({ hours: taken.seconds / 3600, rss: of(taken)?.rssMiB ?? Number.NaN }));
        const all = samples.map((taken) => taken.workers.find((worker) => worker.pid === pid)?.rssMiB).filter((rss): rss is number => rss !== undefined);
        const at = (taken: Sample) => Math.round(taken.workers.find((worker) => worker.pid === pid)?.rssMiB ?? Number.NaN);
        return {
          worker: index + 1, pid,
          rssMiB: { start: at(idleStart), afterWarmUp: at(afterWarmUp), endOfLoad: at(endOfLoad), end: at(idleEnd), min: Math.round(Math.min(...all)), max: Math.round(Math.max(...all)) },
          slopeMiBPerHour: Math.round(slope(series.map((point) => point.hours), series.map((point) => point.rss)) * 10) / 10,
          slopeSamples: series.length,
        };
      });
      const processes: [string, (taken: Sample) => ProcessFigures | undefined][] = [
        ['primary', (taken) => taken.primary],
        ...workers.map((pid, index) => [`worker ${index + 1}`, (taken: Sample) => taken.workers.find((worker) => worker.pid === pid)] as [string, (taken: Sample) => ProcessFigures | undefined]),
      ];
      const descriptors = processes.map(([name, of]) => ({
        process: name,
        kept: keptKinds(of(idleStart)?.kinds ?? {}, of(idleEnd)?.kinds ?? {}),
        fds: { start: of(idleStart)?.fds ?? -1, end: of(idleEnd)?.fds ?? -1, maxMeasured: Math.max(...measured.map((taken) => of(taken)?.fds ?? 0)) },
        dbHandles: { start: of(idleStart)?.dbHandles ?? -1, end: of(idleEnd)?.dbHandles ?? -1, maxMeasured: Math.max(...measured.map((taken) => of(taken)?.dbHandles ?? 0)) },
      }));
      const dbConnections = postgres ? { start: idleStart.dbConnections ?? 0, end: idleEnd.dbConnections ?? 0, maxMeasured: Math.max(...measured.map((taken) => taken.dbConnections ?? 0)) } : null;
      const responses201 = statuses['201'] ?? 0;
      const loadFiveXx = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, count]) => sum + count, 0);
      const downloadsNot200 = Object.entries(downloadStatuses).filter(([status]) => status !== '200').reduce((sum, [, count]) => sum + count, 0);

      const checks: Check[] = [
        ...memory.map((worker) => ({
          name: `worker ${worker.worker}: RSS flat after the warm-up`, ok: worker.slopeMiBPerHour <= options.maxSlopeMiBPerHour,
          detail: `${worker.slopeMiBPerHour} MiB/hour over ${worker.slopeSamples} of the ${measured.length} samples after the warm-up (at most ${options.maxSlopeMiBPerHour}); ${worker.rssMiB.afterWarmUp} MiB after the warm-up, ${worker.rssMiB.endOfLoad} at the end of the load`,
        })),
        { name: 'no 5xx', ok: loadFiveXx === 0 && !Object.keys(downloadStatuses).some((status) => Number(status) >= 500), detail: `the mix ${JSON.stringify(statuses)}, downloads ${JSON.stringify(downloadStatuses)}` },
        { name: 'no failed request', ok: result.errors === 0 && result.timeouts === 0, detail: `${result.errors} errors, ${result.timeouts} timeouts` },
        { name: 'every download 200', ok: downloadsNot200 === 0 && rounds > 0, detail: `${rounds} rounds of ${DOWNLOADS.length}: ${JSON.stringify(downloadStatuses)}, slowest ${slowestDownload} ms` },
        { name: 'every import done', ok: importsFailed === 0 && importRuns > 0, detail: `${importRuns} imports, ${importsFailed} failed, slowest ${slowestImport} ms` },
        { name: 'counts exact', ok: wrongCounts.length === 0, detail: `${wrongCounts.length} of ${Object.keys(stored).length} wrong${wrongCounts.length ? `: ${wrongCounts.join('; ')}` : ''}` },
        { name: 'cached pages fresh', ok: stalePages.length === 0, detail: `${stalePages.length} of ${pages.length} stale${stalePages.length ? `: ${stalePages.slice(0, 5).join(' ')}` : ''}` },
        { name: 'written records fresh', ok: records.stale.length === 0 && records.checked > 0, detail: `${records.stale.length} of ${records.checked} stale${records.stale.length ? `: ${records.stale.slice(0, 5).join('; ')}` : ''}` },
        // A write in flight when the load stops may be made without its answer being counted.
        { name: 'every link answered 201 stored', ok: linksStored >= responses201 && linksStored - responses201 <= options.connections + result.errors + result.timeouts, detail: `${responses201} answered 201, ${linksStored} in the table` },
        { name: 'the same workers throughout', ok: samples.every((taken) => taken.workers.map((worker) => worker.pid).join() === workers.join()), detail: `workers ${workers.join(', ')}` },
        ...descriptors.map(({ process: name, fds, dbHandles, kept }) => ({
          name: `${name}: no descriptor kept`, ok: fds.end <= fds.start + options.fdSlack && dbHandles.end <= dbHandles.start,
          detail: `idle at start ${fds.start} descriptors (${dbHandles.start} of the database), at end ${fds.end} (${dbHandles.end}); at most ${fds.maxMeasured} (${dbHandles.maxMeasured}) under load${kept ? `; more at end: ${kept}` : ''}`,
        })),
        ...(dbConnections ? [{ name: 'no database connection kept', ok: dbConnections.end <= dbConnections.start, detail: `idle at start ${dbConnections.start}, at end ${dbConnections.end}; at most ${dbConnections.maxMeasured} under load` }] : []),
      ];

      const { minutes, warmUpMinutes, scale, rate, connections, writeShare, sampleSeconds, reportsEverySeconds, importEverySeconds, maxSlopeMiBPerHour, fdSlack } = options;
      return {
        date: new Date().toISOString(),
        machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100) },
        options: { minutes, warmUpMinutes, scale, rate, connections, writeShare, sampleSeconds, reportsEverySeconds, importEverySeconds, maxSlopeMiBPerHour, fdSlack },
        store: postgres ? 'postgres' : 'sqlite',
        built: existsSync(join(root, 'dist/src/cli.js')) && process.env.RSR_API_FROM_SOURCES !== '1',
        seconds: { load: Math.round(loadSeconds), total: Math.round((performance.now() - began) / 1000) },
        load: { requests: result.requests.total, requestsPerSecond: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, statuses, errors: result.errors, timeouts: result.timeouts, writesSent: sent.writes },
        downloads: { rounds, statuses: downloadStatuses, slowestMs: slowestDownload },
        imports: { runs: importRuns, failed: importsFailed, slowestMs: slowestImport },
        memory, descriptors, dbConnections,
        inside: { idleAtStart: insideAtStart, endOfLoad: insideEndOfLoad, idleAtEnd: insideAtEnd },
        heapSlopeMiBPerHour: Math.round(slope(measured.map((taken) => taken.seconds / 3600), measured.map((taken) => taken.heapTotalMiB)) * 10) / 10,
        stale: { countsChecked: Object.keys(stored).length, wrongCounts, pagesChecked: pages.length, stalePages, recordsChecked: records.checked, staleRecords: records.stale, linksAnswered201: responses201, linksStored },
        checks, samples,
      };
    } finally {
      await closeEngine();
    }
  } finally {
    await server?.stop();
    await watcher?.end();
    await postgres?.drop();
    if (!options.scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The report in a few lines, for a person. */
export function summary(report: SoakReport): string {
  const lines = [
    `soak: ${report.options.minutes} min on ${report.store} at scale ${report.options.scale} (${report.built ? 'built' : 'from sources'}), ${report.machine.cpus} × ${report.machine.cpu}, load average at the end ${report.machine.loadAverage.join(' ')}`,
    `  the mix: ${report.load.requests} requests, ${report.load.requestsPerSecond} req/s, p50 ${report.load.p50Ms} ms, p99 ${report.load.p99Ms} ms, statuses ${JSON.stringify(report.load.statuses)}, ${report.load.errors} errors, ${report.load.timeouts} timeouts`,
    `  downloads: ${report.downloads.rounds} rounds of ${DOWNLOADS.length}, ${JSON.stringify(report.downloads.statuses)}, slowest ${report.downloads.slowestMs} ms; imports: ${report.imports.runs}, ${report.imports.failed} failed, slowest ${report.imports.slowestMs} ms`,
    ...report.memory.map((worker) => `  worker ${worker.worker} RSS MiB: ${worker.rssMiB.start} at start, ${worker.rssMiB.afterWarmUp} after the warm-up, ${worker.rssMiB.endOfLoad} at the end of the load, ${worker.rssMiB.end} idle at the end (${worker.rssMiB.min}–${worker.rssMiB.max}); slope after the warm-up ${worker.slopeMiBPerHour} MiB/hour`),
    ...report.descriptors.map((process) => `  ${process.process}: descriptors ${process.fds.start} → ${process.fds.end} idle (≤ ${process.fds.maxMeasured} under load), database handles ${process.dbHandles.start} → ${process.dbHandles.end} (≤ ${process.dbHandles.maxMeasured})`),
    ...(report.dbConnections ? [`  PostgreSQL connections: ${report.dbConnections.start} → ${report.dbConnections.end} idle (≤ ${report.dbConnections.maxMeasured} under load)`] : []),
    `  inside both workers (idle at start → end of load → idle at end): V8 heap used ${[report.inside.idleAtStart, report.inside.endOfLoad, report.inside.idleAtEnd].map((at) => at.heapUsedMiB).join(' → ')} MiB, heap total ${[report.inside.idleAtStart, report.inside.endOfLoad, report.inside.idleAtEnd].map((at) => at.heapTotalMiB).join(' → ')} MiB (its slope after the warm-up ${report.heapSlopeMiBPerHour} MiB/hour); cache entries ${Object.keys(report.inside.idleAtEnd.cacheEntries).filter((name) => report.inside.idleAtEnd.cacheEntries[name] !== report.inside.idleAtStart.cacheEntries[name]).map((name) => `${name} ${report.inside.idleAtStart.cacheEntries[name] ?? 0} → ${report.inside.idleAtEnd.cacheEntries[name]}`).join(', ')}`,
    `  stale: ${report.stale.wrongCounts.length} of ${report.stale.countsChecked} counts, ${report.stale.stalePages.length} of ${report.stale.pagesChecked} pages, ${report.stale.staleRecords.length} of ${report.stale.recordsChecked} records; links answered 201 ${report.stale.linksAnswered201}, stored ${report.stale.linksStored}`,
    ...report.checks.map((check) => `  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`),
  ];
  return lines.join('\n');
}
