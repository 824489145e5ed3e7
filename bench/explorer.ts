/**
 * The explorer's first load, as a person on `demo --scale 1` gets it from a cold browser (a new
 * profile each time: nothing cached): the bytes transferred (compressed, headers included) for
 * the app shell (page, script, style) and in all, and the time from navigation to the first row
 * of a list's table. Debian's chromium through playwright-core; the server on 127.0.0.1.
 *
 *   npm run bench:explorer            (BENCH_EXPLORER_RUNS=7: cold loads measured per view)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { startOurs } from './servers.ts';

const runs = Number(process.env.BENCH_EXPLORER_RUNS ?? 7);
const root = new URL('..', import.meta.url).pathname;

interface Load {
  shellBytes: number;
  totalBytes: number;
  requests: number;
  /** Navigation start to the first table row (or, on the home page, to every count shown). */
  readyMs: number;
}

async function coldLoad(browser: Browser, url: string, ready: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const kinds = new Map<string, string>();
  const bytes = { shell: 0, total: 0, requests: 0 };
  cdp.on('Network.responseReceived', (event) => kinds.set(event.requestId, event.type));
  cdp.on('Network.loadingFinished', (event) => {
    bytes.total += event.encodedDataLength;
    bytes.requests += 1;
    if (['Document', 'Script', 'Stylesheet'].includes(kinds.get(event.requestId) ?? '')) bytes.shell += event.encodedDataLength;
  });
  await page.goto(url, { waitUntil: 'commit' });
  // Run in the page (as text: this file is type-checked without the DOM's types).
  const readyMs = await page.evaluate<number>(`new Promise((resolve) => {
    const check = () => (document.querySelector(${JSON.stringify(ready)}) ? resolve(performance.now()) : requestAnimationFrame(check));
    check();
  })`);
  await page.waitForLoadState('networkidle');
  await context.close();
  return { shellBytes: bytes.shell, totalBytes: bytes.total, requests: bytes.requests, readyMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'rsr-explorer-bench-'));
  const databaseUrl = `sqlite:${join(directory, 'rsr.sqlite')}`;
  const loaded = spawnSync(process.execPath, ['bin/rsr-api.mjs', 'demo', '--load', '--scale', '1'], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  if (loaded.status !== 0) throw new Error(`demo --load failed: ${loaded.stderr}`);
  const server = await startOurs(databaseUrl);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const views = [
    { name: 'home, every count shown', path: '/', ready: '.cards[data-complete]' },
    { name: 'budget items, first row', path: '/explore/budget_item/', ready: 'main tbody tr' },
    { name: 'budget items by -amount, page 50', path: '/explore/budget_item/?ordering=-amount&page=50', ready: 'main tbody tr' },
  ];
  const results: Record<string, Load> = {};
  try {
    for (const view of views) {
      const loads: Load[] = [];
      // Every run is a cold browser; the server is warm after the first (as a served instance is).
      for (let run = 0; run < runs; run += 1) loads.push(await coldLoad(browser, `${server.base}${view.path}`, view.ready));
      results[view.name] = {
        shellBytes: median(loads.map((load) => load.shellBytes)),
        totalBytes: median(loads.map((load) => load.totalBytes)),
        requests: median(loads.map((load) => load.requests)),
        readyMs: Math.round(median(loads.map((load) => load.readyMs))),
      };
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  console.log('| view | app shell (compressed) | all bytes | requests | ready (median of %d cold loads) |', runs);
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, load] of Object.entries(results)) {
    console.log(`| ${name} | ${(load.shellBytes / 1024).toFixed(1)} KiB | ${(load.totalBytes / 1024).toFixed(1)} KiB | ${load.requests} | ${load.readyMs} ms |`);
  }
  writeFileSync(new URL('results/explorer.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), runs, results }, null, 2)}\n`);
}

await main();
