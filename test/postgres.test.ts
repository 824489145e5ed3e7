/**
 * PostgreSQL in production shape: several stateless instances on one database, and a database
 * that goes away and comes back (503 meanwhile, never a 500 or a hang). Runs when
 * TEST_POSTGRES_URL names a server (.ci/run sees to it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/http/app.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate, schemaGate } from '../src/store/migrations.ts';
import { changeData } from '../src/store/data-version.ts';
import { saveRecord } from '../src/store/save.ts';
import { createToken, createUser } from '../src/store/users.ts';
import keyword from '../src/resources/keyword.ts';
import { SERVICE } from '../src/resources/define.ts';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, request, testStores, useServer } from './support/server.ts';

const postgres = testStores().find((store) => store.name === 'postgres');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('postgres: two instances on one database', { skip: !postgres }, () => {
  let url: string;
  let drop: () => Promise<void>;
  let servers: RunningServer[] = [];
  before(async () => {
    ({ url, drop } = await (postgres ?? testStores()[0]).create());
    const imported = await runCli(['import', FIXTURE], { DATABASE_URL: url });
    assert.equal(imported.code, 0, imported.stderr);
    servers = await Promise.all([startCliServer([], { DATABASE_URL: url }), startCliServer([], { DATABASE_URL: url })]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await drop();
  });

  test('an import leaves the pages of the tables it loaded all-visible: an index holding every column it needs answers without visiting the rows', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ relname: string; relpages: number; relallvisible: number }>(
        "select relname, relpages, relallvisible from pg_class where relname = any($1) and relkind = 'r' order by relname",
        [['project', 'transaction', 'budget_item', 'indicator_period_data_comment', 'link']],
      );
      assert.equal(rows.length, 5);
      for (const row of rows) {
        assert.ok(row.relpages > 0, `${row.relname} holds rows`);
        assert.equal(row.relallvisible, row.relpages, row.relname);
      }
    } finally {
      await client.end();
    }
  });

  test('both answer every list identically, and both see an import made meanwhile', async () => {
    const paths = ['/rest/v1/', '/rest/v1/organisation/', '/rest/v1/budget_item/?ordering=-other_extra&limit=4&page=2', '/rest/v1/indicator_period_data_comment/', '/rest/v1/link/'];
    const same = async () => {
      for (const path of paths) {
        const [a, b] = await Promise.all(servers.map((server) => request(server.base, path)));
        assert.equal(a.status, 200);
        assert.equal(a.text.replaceAll(servers[0].base, 'BASE'), b.text.replaceAll(servers[1].base, 'BASE'), path);
      }
    };
    await same();
    const dir = mkdtempSync(join(tmpdir(), 'rsr-more-'));
    writeFileSync(join(dir, 'link.json'), JSON.stringify([{ id: 50, project: 2, kind: 'E', url: 'https://example.org/new', caption: 'New' }]));
    const added = await runCli(['import', dir], { DATABASE_URL: url });
    assert.equal(added.code, 0, added.stderr);
    for (const server of servers) assert.equal((await request(server.base, '/rest/v1/link/')).body.count, 3);
    await same();
  });
});

describe('postgres: changes made by another instance', { skip: !postgres }, () => {
  const server = useServer(postgres ?? testStores()[0]);

  const count = async () => (await request(server.base, '/rest/v1/keyword/')).body.count as number;
  /** Polls until `check` holds; how long it took, in ms. */
  async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<number> {
    const started = Date.now();
    while (!(await check())) {
      assert.ok(Date.now() - started < ms, `not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Date.now() - started;
  }

  test('are heard by notification: cached answers are never kept past them', async () => {
    const other = openEngine(server.url);
    try {
      assert.equal(await count(), 3);
      await within(5000, async () => (await count()) === 3 && server.engine.versionNow() !== undefined);
      assert.equal(await count(), 3);
      await saveRecord(other, keyword, SERVICE, 'create', null, { label: 'Fisheries' });
      await within(1000, async () => (await count()) === 4);
      for (let index = 0; index < 5; index += 1) assert.equal(await count(), 4);

      // Without its listening connection the instance reads the version for every answer.
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'listen %'`);
      await admin.end();
      await within(2000, () => server.engine.versionNow() === undefined);
      await saveRecord(other, keyword, SERVICE, 'create', null, { label: 'Forestry' });
      assert.equal(await count(), 5);

      // It listens again by itself, and hears the next change.
      await within(5000, async () => (await count()) === 5 && server.engine.versionNow() !== undefined);
      await saveRecord(other, keyword, SERVICE, 'create', null, { label: 'Fishing rights' });
      await within(1000, async () => (await count()) === 6);
    } finally {
      await other.close();
    }
  });
});

describe('postgres: another writer holding the data', { skip: !postgres }, () => {
  const server = useServer(postgres ?? testStores()[0]);

  test('a write waits for it 2 s, then is answered 503; an import waits as long as it takes', async () => {
    await createUser(server.engine, { email: 'writer@example.org', firstName: 'Wri', lastName: 'Ter', admin: true });
    const key = await createToken(server.engine, 'writer@example.org');
    const post = (label: string) => request(server.base, '/rest/v1/keyword/', { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ label }) });
    // Every change moves the one data version on first: holding its row holds every writer.
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('update data_version set version = version where id = 1');
      let started = Date.now();
      const refused = await post('Held');
      const waited = Date.now() - started;
      assert.deepEqual([refused.status, refused.text, refused.headers.get('retry-after')], [503, '{"detail":"Database unavailable"}', '1']);
      assert.ok(waited >= 1900 && waited < 5000, `answered after ${waited} ms`);
      assert.equal((await request(server.base, '/rest/v1/keyword/?label=Held')).body.count, 0, 'nothing written');

      started = Date.now();
      const importing = changeData(server.engine, ['keyword'], async () => Date.now() - started, { lockWaitMs: Infinity });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await holder.query('commit');
      assert.ok((await importing) >= 3000, 'the import waited for the holder');
    } finally {
      await holder.end();
    }
    assert.equal((await post('Free')).status, 201);
  });

  test("a write's checks are read before it waits: refused at once; a record moved meanwhile is checked again, its count exact", async () => {
    await createUser(server.engine, { email: 'checker@example.org', firstName: 'Che', lastName: 'Cker', admin: true });
    const key = await createToken(server.engine, 'checker@example.org');
    const send = (method: string, path: string, body: unknown) => request(server.base, path, { method, headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const counted = async () => (await request(server.base, '/rest/v1/budget_item/?amount__gte=5000000', { headers: { authorization: `Token ${key}` } })).body.count as number;
    const [item] = await server.engine.db.selectFrom('budget_item').select(['id', 'project']).where('amount', '<', 5_000_000).orderBy('id').limit(1).execute();
    const [elsewhere] = await server.engine.db.selectFrom('project').select('id').where('id', '<>', item.project).orderBy('id').limit(1).execute();
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    const waitingForTheData = async () => {
      for (let waited = 0; ; waited += 20) {
        const { rows } = await watcher.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        if (rows[0].n > 0) return;
        assert.ok(waited < 10_000, 'the write waits for the data version');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const before = await counted();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    // Another writer holds the version row, and moves the item to another project before it lets go.
    const mover = changeData(server.engine, ['budget_item'], async (trx, log) => {
      holding();
      await gate;
      await trx.updateTable('budget_item').set({ project: elsewhere.id }).where('id', '=', item.id).execute();
      log.projects('budget_item', [Number(item.project), Number(elsewhere.id)]);
    });
    try {
      await held;
      // Taking the row first, it waited its 2 s for it and was answered 503.
      const refused = await send('POST', '/rest/v1/keyword/', { label: '' });
      assert.deepEqual([refused.status, refused.body], [400, { label: ['This field may not be blank.'] }]);

      const patched = send('PATCH', `/rest/v1/budget_item/${item.id}/`, { amount: '6000000.00' });
      await waitingForTheData();
      release();
      await mover;
      const answer = await patched;
      assert.deepEqual([answer.status, answer.body.project, answer.body.amount], [200, elsewhere.id, 6000000]);
      assert.equal(await counted(), before + 1, 'counted in the project the item is in now');
      // What the kept counts learn of the write: the project the item was written in.
      const logged = await server.engine.db.selectFrom('change_log').select('project').where('version', '=', server.engine.db.selectFrom('change_log').select(({ fn }) => fn.max('version').as('v'))).execute();
      assert.deepEqual(logged.map((row) => row.project), [elsewhere.id]);
    } finally {
      release();
      await mover.catch(() => undefined);
      await watcher.end();
    }
  });
});

describe('postgres: losing the database', { skip: !postgres }, () => {
  const server = useServer(postgres ?? testStores()[0]);

  test('connections killed under load: every answer is 200 or 503, then all 200 again', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    const [{ name: database }] = await server.engine.db.selectNoFrom((eb) => eb.fn<string>('current_database').as('name')).execute();
    let killing = true;
    const killer = (async () => {
      let kills = 0;
      while (killing) {
        const result = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
        kills += result.rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      return kills;
    })();
    const statuses = new Map<number, number>();
    const worker = async () => {
      for (let index = 0; index < 60; index += 1) {
        const answer = await request(server.base, '/rest/v1/budget_item/?ordering=-amount', { signal: AbortSignal.timeout(10_000) });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 503) assert.equal(answer.text, '{"detail":"Database unavailable"}');
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    killing = false;
    const kills = await killer;
    await admin.end();
    assert.ok(kills > 0, 'connections were killed');
    assert.deepEqual([...statuses.keys()].filter((status) => status !== 200 && status !== 503), [], JSON.stringify([...statuses]));
    for (let index = 0; index < 20; index += 1) assert.equal((await request(server.base, '/rest/v1/budget_item/')).status, 200);
  });

  test('a service started before its database answers 503 at once, then recovers by itself', async () => {
    const { url, drop } = await (postgres ?? testStores()[0]).create();
    const prepared = openEngine(url);
    await migrate(prepared);
    await importRecords(prepared, readDataset(FIXTURE));
    await prepared.close();

    const port = await freePort();
    const target = new URL(url);
    const viaProxy = new URL(url);
    viaProxy.port = String(port);
    const engine = openEngine(viaProxy.toString());
    const app = buildApp({ engine, schemaReady: schemaGate(engine), timeZone: 'Europe/Stockholm' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
    try {
      const started = Date.now();
      const down = await request(base, '/rest/v1/keyword/');
      assert.equal(down.status, 503);
      assert.equal(down.text, '{"detail":"Database unavailable"}');
      assert.ok(Date.now() - started < 3000, 'answers at once');

      // The database appears on that port: a TCP relay to the real server.
      const relay = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
      try {
        const up = await request(base, '/rest/v1/keyword/');
        assert.equal(up.status, 200);
        assert.equal(up.body.count, 3);
      } finally {
        await app.close();
        await engine.close();
        relay.close();
      }
    } finally {
      await drop();
    }
  });
});

describe('postgres: statements prepared per connection', { skip: !postgres }, () => {
  const server = useServer(postgres ?? testStores()[0]);

  test('a set\'s ids come as four bytes each (readIds): exact, in the query\'s order, past 16 and 24 bits, none as an empty array', async () => {
    const ids = [70_000, 1, 16_777_217, 2_147_483_647, 256, 65_536];
    const listed = CompiledQuery.raw(`select id from (values ${ids.map((id, index) => `(${id}, ${index})`).join(', ')}) as v(id, n) order by n`);
    const read = await server.engine.readIds(listed);
    assert.ok(read instanceof Int32Array);
    assert.deepEqual([...read], ids);
    assert.deepEqual([...(await server.engine.readIds(CompiledQuery.raw('select id from keyword where id < 0')))], []);
  });

  test('a read is prepared once per connection; past the first 256 texts they are sent unnamed, and every answer is right', async () => {
    const ids = ((await request(server.base, '/rest/v1/keyword/')).body.results as { id: number }[]).map((record) => record.id);
    // Each list length is another SQL text (`id in ($1, …, $n)`): 300 texts, then the first ones again.
    for (const length of [...Array.from({ length: 300 }, (_, index) => index + 1), 1, 2, 299]) {
      const listed = Array.from({ length }, (_, index) => ids[index % ids.length] + (index < ids.length ? 0 : 1000 * index));
      const answer = await request(server.base, `/rest/v1/keyword/?id__in=${listed.join(',')}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.count, Math.min(length, ids.length), `${length} ids`);
    }
    // Sequential reads reuse one pooled connection: it holds the named statements, never more than 256.
    const [{ prepared }] = await server.engine.run(CompiledQuery.raw('select count(*)::int as prepared from pg_prepared_statements'));
    assert.ok(Number(prepared) >= 1 && Number(prepared) <= 256, `${prepared} statements prepared`);
  });

  test('a LIKE on a parameter is planned for its pattern each time (sent unnamed); other reads are prepared once per connection', async () => {
    const { url, drop } = await (postgres ?? testStores()[0]).create();
    const engine = openEngine(url, { poolSize: 1 });
    try {
      await migrate(engine);
      const like = CompiledQuery.raw("select count(*) as n from keyword where label_sortkey like $1 escape '\\'", ['%ab%']);
      const plain = CompiledQuery.raw('select count(*) as n from keyword where id > $1', [0]);
      // Past the five runs after which PostgreSQL would give a prepared statement its generic plan.
      for (let run = 0; run < 7; run += 1) {
        assert.deepEqual(await engine.run(like), [{ n: '0' }]);
        assert.deepEqual(await engine.run(plain), [{ n: '0' }]);
      }
      const prepared = await engine.run(CompiledQuery.raw("select statement from pg_prepared_statements where statement like $1 escape '\\' order by statement", ['%from keyword%']));
      assert.deepEqual(prepared.map((row) => row.statement), [plain.sql]);
    } finally {
      await engine.close();
      await drop();
    }
  });
});
