/**
 * Freshness per table (issue 14): a write moves on the versions of the tables it wrote, and a
 * cached count or answer depends only on the tables its resource is read from
 * (resources/reads.ts). A new link leaves the budget items' count and answers cached; a change
 * to an organisation shows at once in the transactions that name it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ANONYMOUS, SERVICE, type Caller } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { tablesRead } from '../src/resources/reads.ts';
import { renderRecords } from '../src/resources/render.ts';
import { changeData, VersionedCache } from '../src/store/data-version.ts';
import type { Engine } from '../src/store/engine/index.ts';
import { Reader } from '../src/store/reader.ts';
import { callerForKey, createToken } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

describe('the tables each resource is read from', () => {
  test('hold its own, those its foreign keys lead to, and who sees what; not its siblings', () => {
    const read = new Map(RESOURCES.map((resource) => [resource.name, tablesRead(resource)]));
    assert.deepEqual(read.get('budget_item'), ['budget_item', 'employment', 'organisation', 'partnership', 'project', 'user']);
    assert.deepEqual(read.get('link'), ['employment', 'link', 'organisation', 'partnership', 'project', 'user']);
    assert.deepEqual(read.get('administrative_location'), ['administrative_location', 'employment', 'organisation', 'partnership', 'project', 'project_location', 'user']);
    // expand's own reads, as declared
    assert.deepEqual(read.get('my_projects'), ['employment', 'organisation', 'partnership', 'program', 'project', 'project_location', 'user']);
  });
});

describe('values kept per version of their tables', () => {
  test('are found at their version only, computed once by requests that miss together, and kept within their weight', async () => {
    const cache = new VersionedCache<number[]>({ maxWeight: 10, weigh: (value) => value.length });
    let computed = 0;
    const compute = (length: number) => async () => ((computed += 1), Array.from({ length }, (_, index) => index));
    const [first, second] = await Promise.all([cache.get(1, 'a', compute(4)), cache.get(1, 'a', compute(4))]);
    assert.equal(first, second);
    assert.equal(computed, 1);
    assert.equal(cache.peek(2, 'a'), undefined, 'another version is another value');
    await cache.get(1, 'b', compute(4));
    assert.equal(cache.weighs, 8);
    // Past the weight, the values longest kept go first: 'a', then 'b'.
    await cache.get(1, 'c', compute(5));
    assert.deepEqual([cache.peek(1, 'a'), (await cache.peek(1, 'b'))?.length, (await cache.peek(1, 'c'))?.length], [undefined, 4, 5]);
    assert.equal(cache.weighs, 9);
    await cache.get(1, 'd', compute(11)); // heavier than the whole allowance: not kept, nor is anything else
    assert.deepEqual([cache.size, cache.weighs], [0, 0]);
    assert.deepEqual([cache.hits, cache.misses], [3, 4]);
  });

  test('go once unused for their idle time, found or not; an entry found meanwhile stays', async () => {
    let now = 0;
    const cache = new VersionedCache<string>({ idleMs: 1000, now: () => now });
    await cache.get(1, 'asked again', async () => 'a');
    await cache.get(1, 'asked once', async () => 'b');
    now = 600;
    assert.equal(await cache.peek(1, 'asked again'), 'a');
    now = 1050; // 'asked once' unused for 1050 ms, 'asked again' for 450
    assert.equal(cache.peek(2, 'another'), undefined);
    assert.deepEqual([cache.size, await cache.peek(1, 'asked again'), cache.peek(1, 'asked once')], [1, 'a', undefined]);
    now = 2100; // idle for 1050 ms: gone at the next lookup, with its weight
    assert.equal(cache.peek(1, 'other'), undefined);
    assert.deepEqual([cache.size, cache.weighs], [0, 0]);
  });
});

/** The tables of the data versions (store/data-version.ts). */
const VERSION_TABLES = ['data_version', 'table_version', 'change_log'];

for (const store of testStores()) {
  describe(`freshness per table (${store.name})`, () => {
    const server = useServer(store);
    let admin: Record<string, string>;
    before(async () => {
      admin = { authorization: `Token ${await createToken(server.engine, 'ana@example.org')}` };
    });
    const stats = () => server.app.services.responses.stats();

    test('every statement a list runs, count, page, related rows and expand, reads only tables its resource declares it reads', async () => {
      // The engine as the reader sees it, noting the tables each statement names.
      const named = new Set<string>();
      const note = (text: string) => {
        for (const [, table] of text.matchAll(/\b(?:from|join)\s+"(\w+)"/gi)) named.add(table);
      };
      const engine: Engine = {
        ...server.engine,
        run: (query, db) => (note(query.sql), server.engine.run(query, db)),
        runLong: (query) => (note(query.sql), server.engine.runLong(query)),
        readIds: (query) => (note(query.sql), server.engine.readIds(query)),
      };
      const reader = new Reader(engine);
      const found = await callerForKey(server.engine, await createToken(server.engine, 'bo@example.org'));
      assert.ok('caller' in found);
      const callers: [string, Caller][] = [['anonymous', ANONYMOUS], ['administrator', SERVICE], ['partner', found.caller]];
      for (const resource of RESOURCES) {
        for (const [who, caller] of callers) {
          named.clear();
          const total = await reader.count(resource, caller);
          const rows = await reader.page(resource, caller, { order: resource.defaultOrder, pinned: true, limit: 100, offset: 0 }, total);
          // A deep page is found in memory (reader.ts, matchQuery and orderQuery).
          await reader.page(resource, caller, { order: resource.defaultOrder, pinned: true, limit: 100, offset: 300 }, total);
          await renderRecords(resource, rows, reader.lookup(caller), { caller, timeZone: 'Europe/Stockholm' });
          assert.ok(named.has(resource.table), `${resource.name} as ${who}: the statements were seen`);
          // The versions themselves (a walk noting marks reads the version it walked at: pages/seek.ts) are no data an answer shows.
          const undeclared = [...named].filter((table) => !tablesRead(resource).includes(table) && !VERSION_TABLES.includes(table));
          assert.deepEqual(undeclared, [], `${resource.name} as ${who}`);
        }
      }
    });
    test('related rows of a small table are read whole once it has settled: the same rows as SQL gives, frozen, and a change shows at once', async () => {
      const memory = new Reader(server.engine, { settledMs: 0 });
      const walking = new Reader(server.engine, { settledMs: Infinity });
      const ids = (await server.engine.db.selectFrom('organisation').select('id').orderBy('id').execute()).map((row) => row.id as number);
      const wanted = [...ids, ids[0], null, 999_999];
      const byId = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => (a.id as number) - (b.id as number));
      const both = async () => [byId(await memory.lookup(ANONYMOUS).byColumn('organisation', 'id', wanted)), byId(await walking.lookup(ANONYMOUS).byColumn('organisation', 'id', wanted))];
      const [found, read] = await both();
      assert.deepEqual(found, read);
      assert.equal(found.length, ids.length);
      assert.ok(found.every((row) => Object.isFrozen(row)));
      assert.deepEqual([memory.related.tables.size, walking.related.tables.size], [1, 0]);
      const flag = found[0].can_create_projects as boolean;
      await changeData(server.engine, ['organisation'], (trx) => trx.updateTable('organisation').set({ can_create_projects: server.engine.dialect.toDb({ type: 'bool' } as never, !flag) as never }).where('id', '=', ids[0]).execute());
      const [after, readAfter] = await both();
      assert.deepEqual(after, readAfter);
      assert.equal(after[0].can_create_projects, !flag);
      await changeData(server.engine, ['organisation'], (trx) => trx.updateTable('organisation').set({ can_create_projects: server.engine.dialect.toDb({ type: 'bool' } as never, flag) as never }).where('id', '=', ids[0]).execute());
    });

    const json = { 'content-type': 'application/json' };

    test('a new link leaves the budget items cached, count and answer; the links are counted again in its project', async () => {
      const first = await request(server.base, '/rest/v1/budget_item/?ordering=-amount');
      assert.equal(first.status, 200);
      assert.equal((await request(server.base, '/rest/v1/budget_item/?ordering=-amount')).text, first.text); // kept the second time
      const links = (await request(server.base, '/rest/v1/link/')).body.count as number;
      const counted = server.reader.projectCounts.figures();
      const hits = stats().hits;

      const created = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: { ...admin, ...json }, body: JSON.stringify({ project: 1, kind: 'A', url: 'https://example.org/fresh', caption: 'Fresh' }) });
      assert.equal(created.status, 201, created.text);

      const again = await request(server.base, '/rest/v1/budget_item/?ordering=-amount');
      assert.equal(again.text, first.text);
      assert.equal(stats().hits, hits + 1, 'the budget items answered from the cache');
      assert.equal((await request(server.base, '/rest/v1/budget_item/?ordering=amount')).status, 200);
      assert.deepEqual(server.reader.projectCounts.figures(), { ...counted, hits: counted.hits + 1 }, 'the budget items not counted again');

      const after = await request(server.base, '/rest/v1/link/');
      assert.equal(after.body.count, links + 1);
      const { misses, projectsCounted } = server.reader.projectCounts.figures();
      assert.deepEqual([misses, projectsCounted], [counted.misses, counted.projectsCounted + 1], 'the links counted again in project 1 only');
      assert.ok((after.body.results as { url: string }[]).some((link) => link.url === 'https://example.org/fresh'));
    });

    test('a renamed organisation shows at once in the transactions that name it, cached before', async () => {
      const path = '/rest/v1/transaction/?ordering=id';
      const shownBefore = (await request(server.base, path)).body.results[0].provider_organisation_show_link as string;
      assert.equal(shownBefore, '<a href="/en/organisation/2/">Élan Water &amp; Sanitation &lt;Kenya&gt;</a>');
      assert.equal((await request(server.base, path)).body.results[0].provider_organisation_show_link, shownBefore);

      const renamed = await request(server.base, '/rest/v1/organisation/2/', { method: 'PATCH', headers: { ...admin, ...json }, body: JSON.stringify({ long_name: 'Élan Water' }) });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal((await request(server.base, path)).body.results[0].provider_organisation_show_link, '<a href="/en/organisation/2/">Élan Water</a>');
    });

    test('a deleted organisation: the transactions that named it, cached before, name none', async () => {
      const path = '/rest/v1/transaction/?ordering=id';
      assert.equal((await request(server.base, path)).body.results[0].provider_organisation, 2);
      const deleted = await request(server.base, '/rest/v1/organisation/2/', { method: 'DELETE', headers: admin });
      assert.equal(deleted.status, 204, deleted.text);
      const after = await request(server.base, path);
      assert.equal(after.body.results[0].provider_organisation, null);
      assert.equal(after.body.results[0].provider_organisation_show_link, '');
    });
  });
}
