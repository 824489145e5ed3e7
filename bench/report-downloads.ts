/**
 * What bench:report-load and bench:memory share: a demo database kept between runs, API keys of
 * users made for the run, and the eleven heavy report downloads of the largest organisation.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Running } from './servers.ts';

const root = new URL('..', import.meta.url).pathname;

/** Six results exports, three projects-overview PDFs, two data-quality PDFs: one caller each. */
export const DOWNLOADS = [...Array(6).fill('results-indicators-table/?format=excel'), ...Array(3).fill('org-projects-overview/?format=pdf'), ...Array(2).fill('data-quality-overview/?format=pdf')] as string[];

export interface Download {
  path: string;
  status: number;
  bytes: number;
  ms: number;
}

export function cli(args: string[], databaseUrl: string): string {
  const run = spawnSync(process.execPath, ['bin/rsr-api.mjs', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  if (run.status !== 0 && !run.stderr.includes('exists already')) throw new Error(`rsr-api ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** The demo database of `scale` (BENCH_DATABASE_DIR, kept between runs), loaded where missing: its file and URL. */
export function demoDatabase(scale: number): { file: string; url: string } {
  const databases = process.env.BENCH_DATABASE_DIR ?? join(os.tmpdir(), 'rsr-bench-reports');
  mkdirSync(databases, { recursive: true });
  const file = join(databases, `scale-${scale}.sqlite`);
  const url = `sqlite:${file}`;
  if (!existsSync(file)) {
    console.error(`loading demo scale ${scale} into ${file}…`);
    cli(['demo', '--load', '--scale', String(scale)], url);
  }
  return { file, url };
}

/** API keys of `count` administrators made for the run (`bench-load-N@example.org`). */
export function adminKeys(url: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const email = `bench-load-${index}@example.org`;
    cli(['user', 'create', '--email', email, '--first-name', 'Bench', '--last-name', String(index), '--admin'], url);
    return cli(['token', 'create', '--email', email], url).trim();
  });
}

const LARGEST = 'select organisation from partnership group by organisation order by count(distinct project) desc, organisation limit 1';

/** The organisation taking part in the most projects. */
export function largestOrganisation(file: string): number {
  const db = new SQLite(file, { readonly: true });
  const id = db.prepare(LARGEST).pluck().get() as number;
  db.close();
  return id;
}

/** The same, in a PostgreSQL database. */
export async function largestOrganisationIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(LARGEST)).rows[0].organisation);
  } finally {
    await client.end();
  }
}

async function download(server: Running, path: string, key: string): Promise<Download> {
  const started = performance.now();
  const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` } });
  const bytes = (await answer.arrayBuffer()).byteLength;
  return { path, status: answer.status, bytes, ms: Math.round(performance.now() - started) };
}

/** The eleven downloads of the organisation's reports at once, one key each. */
export function downloadAll(server: Running, organisation: number, keys: readonly string[]): Promise<Download[]> {
  return Promise.all(DOWNLOADS.map((path, index) => download(server, `/py-reports/organisation/${organisation}/${path}`, keys[index])));
}
