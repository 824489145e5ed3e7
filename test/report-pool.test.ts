/**
 * Report files are made on a bounded pool of threads (reports/pool.ts): reads are answered while
 * every thread is busy, a caller past its limit gets 429 with Retry-After, a full line 503, and a
 * client that leaves frees its place, waiting or being served. Real threads, real databases.
 */
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { before, describe, test } from 'node:test';
import { generateDemo } from '../demo/generate.ts';
import { allocatorTrims, glibc, trimAllocator } from '../src/ops/allocator.ts';
import { ReportPool } from '../src/reports/pool.ts';
import type { ReportTask } from '../src/reports/thread.ts';
import { SERVICE } from '../src/resources/define.ts';
import type { DatasetSource } from '../src/store/import.ts';
import { createUser, createToken } from '../src/store/users.ts';
import { testStores, useServer } from './support/server.ts';

const demo = (): DatasetSource[] => generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records }));

const task = (path: string, format: ReportTask['format']): Omit<ReportTask, 'port'> => ({
  scope: 'organisation', path, format, id: 1, caller: SERVICE, timeZone: 'Europe/Stockholm', today: '2026-11-25',
  range: { start: '1900-01-01', end: '2036-11-25' }, comments: false, preview: false,
});
const EXPORT = task('results-indicators-table', 'excel');
const OVERVIEW = task('org-projects-overview', 'pdf');

/** Until `check` holds (the pool's state moves as threads answer). */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries += 1) {
    if (tries > 500) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const store of testStores()) {
  describe(`report threads (${store.name})`, () => {
    const server = useServer(store, demo);
    const keys: string[] = [];
    const users: number[] = [];
    before(async () => {
      for (const email of ['first@example.org', 'second@example.org']) {
        users.push(await createUser(server.engine, { email, firstName: 'Report', lastName: 'Reader', admin: true }));
        keys.push(await createToken(server.engine, email));
      }
    });

    test('a client that leaves frees its place: a waiting one leaves the line, a served one frees its thread', { timeout: 120_000 }, async () => {
      const pool = new ReportPool({ databaseUrl: server.url, threads: 1, perCaller: 5, queue: 5 });
      try {
        const leaving = new AbortController();
        // An export nobody reads holds its thread a few parts ahead of its reader.
        const held = await pool.make(EXPORT, 'a', leaving.signal);
        const waiting = pool.make(OVERVIEW, 'b', new AbortController().signal);
        const givingUp = new AbortController();
        const gaveUp = pool.make(OVERVIEW, 'c', givingUp.signal);
        assert.deepEqual(pool.load, { running: 1, waiting: 2 });
        givingUp.abort();
        await assert.rejects(gaveUp);
        assert.deepEqual(pool.load, { running: 1, waiting: 1 });
        leaving.abort();
        (held.body as Readable).destroy();
        const made = await waiting;
        assert.equal(made.type, 'application/pdf');
        assert.equal((made.body as Buffer).subarray(0, 5).toString(), '%PDF-');
        await until(() => pool.load.running === 0);
        assert.deepEqual(pool.load, { running: 0, waiting: 0 });
      } finally {
        await pool.close();
      }
    });

    test('reads are answered while the threads are busy; past its limit a caller gets 429, past the line\u2019s a crowd 503', { timeout: 120_000 }, async () => {
      const pool = new ReportPool({ databaseUrl: server.url, threads: 1, perCaller: 2, queue: 1 });
      const app = server.app.services;
      const before = app.reports;
      app.reports = pool;
      try {
        const download = (key: string) => fetch(`${server.base}/py-reports/organisation/1/org-projects-overview/?format=pdf`, { headers: { authorization: `Token ${key}` } });
        // The first caller's export, nobody reading it, holds the only thread; its PDF waits.
        const leaving = new AbortController();
        // Counted for the caller as the route counts it (http/callers.ts, callerKey).
        const held = await pool.make(EXPORT, `user:${users[0]}`, leaving.signal);
        const waiting = download(keys[0]);
        await until(() => pool.load.waiting === 1);
        // The same caller a third time: its limit. Another caller: the line is full.
        const third = await download(keys[0]);
        assert.equal(third.status, 429);
        assert.equal(third.headers.get('retry-after'), '5');
        assert.deepEqual(await third.json(), { detail: 'Request was throttled. Expected available in 5 seconds.' });
        const crowd = await download(keys[1]);
        assert.equal(crowd.status, 503);
        assert.equal(crowd.headers.get('retry-after'), '5');
        assert.deepEqual(await crowd.json(), { detail: 'Too many reports are being made; try again shortly.' });
        // Meanwhile the API answers, each read while a report is still being made.
        for (let index = 0; index < 5; index += 1) {
          const read = await fetch(`${server.base}/rest/v1/keyword/?_=${index}`);
          assert.equal(read.status, 200);
          assert.ok(((await read.json()) as { count: number }).count > 0);
          assert.deepEqual(pool.load, { running: 1, waiting: 1 }, `read ${index} answered while the thread is busy`);
        }
        leaving.abort();
        (held.body as Readable).destroy();
        const served = await waiting;
        assert.equal(served.status, 200);
        assert.equal(Buffer.from(await served.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
        // Both done: the caller may ask again.
        assert.equal((await download(keys[0])).status, 200);
      } finally {
        app.reports = before;
        await pool.close();
      }
    });

    test('a thread that ends has the C allocator trimmed', { timeout: 120_000, skip: glibc() ? false : 'no glibc: nothing to trim' }, async () => {
      const pool = new ReportPool({ databaseUrl: server.url, threads: 1, perCaller: 1, queue: 1 });
      const made = await pool.make(OVERVIEW, 'a', new AbortController().signal);
      assert.equal((made.body as Buffer).subarray(0, 5).toString(), '%PDF-');
      // A trim of our own first: koffi loaded (it must be, on glibc), and the trims the earlier
      // tests' pools queued when they closed are done before the count is taken.
      await trimAllocator();
      const before = allocatorTrims();
      assert.ok(before.count > 0, 'a trim made');
      // Closed, the pool's thread ends as an idle one does.
      await pool.close();
      await until(() => allocatorTrims().count > before.count);
      assert.equal(allocatorTrims().count, before.count + 1);
    });
  });
}
