/**
 * `npm run bench:compare -- OTHER_CHECKOUT [sqlite|postgres]`: this checkout against another
 * (e.g. a `git worktree` of an earlier commit, with its own node_modules), interleaved on one
 * machine and one demo dataset: the server's CPU time per request, median of ROUNDS short runs,
 * so that drifts of a noisy machine hit both sides alike.
 *
 *   ROUNDS=7  DURATION=2  CONNECTIONS=16  ONLY=<regexp of scenario names>
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

const [otherRoot, store = 'sqlite'] = process.argv.slice(2);
if (!otherRoot) throw new Error('usage: npm run bench:compare -- OTHER_CHECKOUT [sqlite|postgres]');
const rounds = Number(process.env.ROUNDS ?? 7);
const duration = Number(process.env.DURATION ?? 2);
const connections = Number(process.env.CONNECTIONS ?? 16);
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const sides = { other: resolve(otherRoot), this: resolve(new URL('..', import.meta.url).pathname) };
type Side = keyof typeof sides;

const ALL: [name: string, path: string, fresh: boolean][] = [
  ['page 1, cached', '/rest/v1/budget_item/', false], ['page 1, fresh', '/rest/v1/budget_item/', true],
  ['filtered, fresh', '/rest/v1/budget_item/?label=38', true], ['ordered, fresh', '/rest/v1/budget_item/?ordering=-amount', true],
  ['one record, cached', '/rest/v1/budget_item/100/', false], ['one record, fresh', '/rest/v1/budget_item/100/', true],
  ['organisations, fresh', '/rest/v1/organisation/', true], ['limit=1000, fresh', '/rest/v1/budget_item/?limit=1000', true],
];
const SCENARIOS = ALL.filter(([name]) => !only || only.test(name));

/** User and system CPU time of a process so far, in µs (Linux). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100);
}

function cli(root: string, databaseUrl: string, args: string[]): void {
  const run = spawnSync(process.execPath, ['bin/rsr-api.mjs', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, RSR_API_FROM_SOURCES: '1' }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${root}: rsr-api ${args.join(' ')}: ${run.stderr}`);
}

/** The same demo data for both sides: one file copied, or one database each on PostgreSQL. */
function databases(): Record<Side, string> {
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(os.tmpdir(), 'rsr-compare-'));
    cli(sides.this, `sqlite:${join(dir, 'this.sqlite')}`, ['demo', '--load']);
    copyFileSync(join(dir, 'this.sqlite'), join(dir, 'other.sqlite'));
    return { this: `sqlite:${join(dir, 'this.sqlite')}`, other: `sqlite:${join(dir, 'other.sqlite')}` };
  }
  const urls = {} as Record<Side, string>;
  for (const side of Object.keys(sides) as Side[]) {
    const url = new URL(postgresUrl);
    url.pathname = `/rsr_compare_${side}`;
    spawnSync('psql', [postgresUrl, '-qc', `drop database if exists rsr_compare_${side}`, '-c', `create database rsr_compare_${side}`]);
    cli(sides[side], url.href, ['demo', '--load']);
    urls[side] = url.href;
  }
  return urls;
}

async function start(side: Side, databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/rsr-api.mjs', 'serve'], { cwd: sides[side], env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), RSR_API_FROM_SOURCES: '1', LARGE_PAGES_PER_CALLER: '0' }, stdio: 'ignore' });
  for (let attempt = 0; attempt < 150; attempt += 1) {
    try {
      await fetch(`http://127.0.0.1:${port}/rest/v1/`);
      return child;
    } catch {
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  throw new Error(`${sides[side]} did not start`);
}

const urls = databases();
const ports: Record<Side, number> = { other: 9301, this: 9302 };
const servers = { other: await start('other', urls.other, ports.other), this: await start('this', urls.this, ports.this) };
let sequence = 0;
const samples: Record<string, Record<Side, number[]>> = {};
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, path, fresh] of SCENARIOS) {
      // Alternate who goes first: a machine that speeds up or slows down favours neither.
      for (const side of (round % 2 ? ['this', 'other'] : ['other', 'this']) as Side[]) {
        const pid = servers[side].pid!;
        const before = cpuMicros(pid);
        const setupRequest = (request: autocannon.Request) => ({ ...request, path: `${request.path}${request.path?.includes('?') ? '&' : '?'}_=${(sequence += 1)}` });
        const result = await autocannon({ url: `http://127.0.0.1:${ports[side]}${path}`, connections, duration, requests: fresh ? [{ setupRequest }] : undefined });
        ((samples[name] ??= { other: [], this: [] })[side]).push((cpuMicros(pid) - before) / result.requests.total);
      }
    }
  }
} finally {
  servers.other.kill();
  servers.this.kill();
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`server CPU µs per request, median of ${rounds} (${store}); ratio > 1: this checkout is cheaper`);
for (const [name] of SCENARIOS) {
  const [other, mine] = [median(samples[name].other), median(samples[name].this)];
  console.log(`${name.padEnd(22)} other ${String(Math.round(other)).padStart(6)}  this ${String(Math.round(mine)).padStart(6)}  ratio ${(other / mine).toFixed(2)}`);
}
