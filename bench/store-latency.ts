/**
 * Import time of the demo dataset and list latency, on SQLite and on PostgreSQL, in one run:
 *   node --import tsx bench/store-latency.ts [scale] [requests]
 * PostgreSQL is measured when BENCH_POSTGRES_URL (or TEST_POSTGRES_URL) names a server; a
 * scratch database is created there and dropped afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generateDemo } from '../demo/generate.ts';
import { buildApp } from '../src/http/app.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';

const scale = Number(process.argv[2] ?? 1);
const requests = Number(process.argv[3] ?? 300);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http.get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
    }).on('error', reject);
  });
}

async function median(url: string): Promise<number> {
  for (let index = 0; index < 20; index += 1) await get(url); // warm up
  const times: number[] = [];
  for (let index = 0; index < requests; index += 1) times.push(await get(url));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function measure(name: string, engine: Engine): Promise<void> {
  await migrate(engine);
  const started = Date.now();
  const sources = generateDemo({ scale, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records }));
  const counts = await importRecords(engine, sources);
  const seconds = (Date.now() - started) / 1000;
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const app = buildApp({ engine, timeZone: 'Europe/Stockholm' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}/rest/v1/budget_item/`;
  const first = await median(base);
  const last = await median(`${base}?page=last`);
  console.log(`${name.padEnd(10)} import ${seconds.toFixed(1)} s (${total.toLocaleString('en-US')} records, ${Math.round(total / seconds).toLocaleString('en-US')}/s)  budget_item page 1 median ${first.toFixed(2)} ms  last page median ${last.toFixed(2)} ms`);
  await app.close();
  await engine.close();
}

const dir = mkdtempSync(join(tmpdir(), 'rsr-bench-'));
await measure('sqlite', openEngine(`sqlite:${join(dir, 'bench.sqlite')}`));
rmSync(dir, { recursive: true, force: true });

const postgres = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
if (postgres) {
  const name = `rsr_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(postgres);
  url.pathname = `/${name}`;
  try {
    await measure('postgres', openEngine(url.toString()));
  } finally {
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  }
}
agent.destroy();
