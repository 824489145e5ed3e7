/**
 * Database outages in real operation (PostgreSQL, a real serving process under load): a database
 * renamed away and back, one that refuses connections, a query past the client's read timeout,
 * and a service started before its database exists. Every answer meanwhile is 200 or
 * `503 {"detail":"Database unavailable"}` with Retry-After, never a 500, and the service
 * recovers by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { buildApp } from '../src/http/app.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { createToken } from '../src/store/users.ts';
import { startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, request, testStores } from './support/server.ts';

const postgres = testStores().find((store) => store.name === 'postgres');
const adminUrl = process.env.TEST_POSTGRES_URL ?? '';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Ends every session on `database` and runs `change` (which needs it unused), retrying while the service reconnects. */
async function whileUnused(database: string, change: string): Promise<void> {
  await admin(async (client) => {
    for (let attempt = 0; ; attempt += 1) {
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
      try {
        await client.query(change);
        return;
      } catch (error) {
        if (attempt > 200) throw error;
      }
    }
  });
}

/** Requests from several clients until stopped: each status counted, every 503 checked. */
function load(base: string, key: string) {
  const statuses = new Map<number, number>();
  let running = true;
  let serial = 0;
  const worker = async (lane: number) => {
    while (running) {
      serial += 1;
      const write = lane === 0 && serial % 4 === 0;
      const answer = write
        ? await request(base, '/rest/v1/link/', { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ project: 1, url: `https://example.org/${serial}` }), signal: AbortSignal.timeout(15_000) })
        : await request(base, `/rest/v1/budget_item/?_=${serial}`, { signal: AbortSignal.timeout(15_000) });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 503) {
        assert.equal(answer.text, '{"detail":"Database unavailable"}');
        assert.equal(answer.headers.get('retry-after'), '1');
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const lanes = Array.from({ length: 4 }, (_, lane) => worker(lane));
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(lanes);
    },
  };
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    assert.ok(Date.now() - started < ms, `not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('postgres: outages under load', { skip: !postgres }, () => {
  let url = '';
  let name = '';
  let drop: () => Promise<void>;
  let server: RunningServer;
  let key = '';
  before(async () => {
    ({ url, drop } = await postgres!.create());
    name = new URL(url).pathname.slice(1);
    const setup = openEngine(url);
    await migrate(setup);
    await importRecords(setup, readDataset(FIXTURE));
    key = await createToken(setup, 'ana@example.org');
    await setup.close();
    server = await startCliServer([], { DATABASE_URL: url });
  });
  after(async () => {
    await server.stop();
    await drop();
  });

  for (const [outage, away, back] of [
    ['renamed away and back', (db: string) => `alter database ${db} rename to ${db}_away`, (db: string) => `alter database ${db}_away rename to ${db}`],
    ['refusing connections', (db: string) => `alter database ${db} allow_connections false`, (db: string) => `alter database ${db} allow_connections true`],
  ] as const) {
    test(`a database ${outage}: 200 or 503 with Retry-After, never a 500; then 200 again`, async () => {
      const traffic = load(server.base, key);
      await until(async () => (traffic.statuses.get(200) ?? 0) > 20);
      await whileUnused(name, away(name));
      await until(async () => (traffic.statuses.get(503) ?? 0) > 20);
      await admin((client) => client.query(back(name)));
      const recovered = traffic.statuses.get(200) ?? 0;
      await until(async () => (traffic.statuses.get(200) ?? 0) > recovered + 20);
      await traffic.stop();
      const seen = Object.fromEntries(traffic.statuses);
      process.stderr.write(`outage (${outage}): ${JSON.stringify(seen)}\n`);
      assert.deepEqual(Object.keys(seen).filter((status) => !['200', '201', '503'].includes(status)), [], JSON.stringify(seen));
      for (let index = 0; index < 10; index += 1) assert.equal((await request(server.base, `/rest/v1/budget_item/?after=${index}`)).status, 200);
    });
  }
});

describe('postgres: slow and missing databases', { skip: !postgres }, () => {
  test("a query past the client's read timeout is 503, and the next one is answered", async () => {
    const { url, drop } = await postgres!.create();
    const setup = openEngine(url);
    await migrate(setup);
    await importRecords(setup, readDataset(FIXTURE));
    await setup.close();
    const engine = openEngine(url, { queryTimeoutMs: 300 });
    const app = buildApp({ engine, timeZone: 'Europe/Stockholm' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table budget_item in access exclusive mode');
      const slow = await request(base, '/rest/v1/budget_item/');
      assert.equal(slow.status, 503);
      assert.equal(slow.headers.get('retry-after'), '1');
      assert.equal(slow.text, '{"detail":"Database unavailable"}');
      await locker.query('rollback');
      await until(async () => (await request(base, '/rest/v1/budget_item/?again')).status === 200);
    } finally {
      await locker.end();
      await app.close();
      await engine.close();
      await drop();
    }
  });

  test('a service started before its database exists answers 503, then serves once it is made', async () => {
    const missing = new URL(adminUrl);
    missing.pathname = `/rsr_missing_${process.pid}`;
    const server = await startCliServer([], { DATABASE_URL: missing.toString() });
    try {
      assert.match(server.output(), /database unavailable: answering 503 until it is back/);
      assert.doesNotMatch(server.output(), /\n\s+at /, 'no stack trace');
      const down = await request(server.base, '/rest/v1/keyword/');
      assert.equal(down.status, 503);
      assert.equal(down.headers.get('retry-after'), '1');
      await admin((client) => client.query(`create database ${missing.pathname.slice(1)}`));
      await until(async () => (await request(server.base, '/rest/v1/keyword/')).status === 200);
      assert.equal((await request(server.base, '/rest/v1/reports/')).body.count, 9, 'migrated once it existed');
    } finally {
      await server.stop();
      await admin((client) => client.query(`drop database if exists ${missing.pathname.slice(1)} with (force)`));
    }
  });
});
