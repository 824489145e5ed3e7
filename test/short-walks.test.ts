/**
 * A filtered page read by walking its order's index (store/pages/in-sql.ts) stops after a few times
 * the rows it should meet; where the matches lie further along the order than their share says,
 * it walks again, eight times as far, while that reads less than the next way would; a walk short
 * even so leaves the page to the next way, and the list in that order is remembered as one whose
 * walks come up short: its other pages are read the next way at once. Either way each page holds
 * exactly the records a plain reading of the table in that order gives.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { generateDemo } from '../demo/generate.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { SERVICE } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { changeData } from '../src/store/data-version.ts';
import { Reader } from '../src/store/reader.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { request, testStores, useServer } from './support/server.ts';

for (const store of testStores()) {
  describe(`walks that came up short (${store.name})`, () => {
    // Some 2,000 budget items: more than the fewest rows a walk reads (1,000), so one can come up short.
    const server = useServer(store, () => generateDemo({ scale: 0.2, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
    let headers: Record<string, string> = {};
    before(async () => {
      await createUser(server.engine, { email: 'admin@example.org', firstName: 'Ada', lastName: 'Admin', admin: true });
      headers = { authorization: `Token ${await createToken(server.engine, 'admin@example.org')}` };
    });

    const shortWalks = () => server.reader.caches().find((cache) => cache.name === 'short_walks')!.figures();
    const page = async (query: string, number: number) => {
      const answer = await request(server.base, `/rest/v1/budget_item/?${query}&page=${number}`, { headers });
      assert.equal(answer.status, 200, query);
      const body = answer.body as { count: number; results: { id: number; amount: string }[] };
      return { count: body.count, ids: body.results.map((item) => item.id), amounts: body.results.map((item) => Number(item.amount)) };
    };
    /** A page's count and ids, as a plain reading of the table gives them. */
    const listed = async (query: string, number: number) => {
      const { count, ids } = await page(query, number);
      return { count, ids };
    };

    test('are remembered for their list and order, and every page holds what a plain reading of the table does', async () => {
      const rows = await server.engine.run(server.engine.db.selectFrom('budget_item').select(['id', 'project']).orderBy('id').compile());
      const ids = rows.map((row) => Number(row.id));
      assert.ok(ids.length > 1500, `${ids.length} budget items`);
      // The projects of the last third in id order (the demo writes a project's items together): a
      // walk from the first id expects a match in every third row and meets none for 1,000. (A
      // range of the order's own field is read from its index at once, never walked.)
      const from = Number(rows[Math.floor((rows.length * 2) / 3)].project);
      const matches = rows.filter((row) => Number(row.project) >= from).map((row) => Number(row.id));
      assert.ok(matches.length > 30 && matches.length < ids.length / 2, `${matches.length} matches`);
      const inProjects = (ordering: string, number: number) => listed(`project__gte=${from}&ordering=${ordering}`, number);
      const [before, patches] = [shortWalks(), server.reader.kept.patches];
      assert.deepEqual(await inProjects('id', 1), { count: matches.length, ids: matches.slice(0, 30) });
      assert.deepEqual(shortWalks(), { ...before, entries: before.entries + 1, misses: before.misses + 1 }, 'the walk came up short and is remembered');
      // Page 2 starts where page 1 found the list to begin (pages/seek.ts): its walk meets matches at once.
      assert.deepEqual(await inProjects('id', 2), { count: matches.length, ids: matches.slice(30, 60) });
      assert.deepEqual(shortWalks(), { ...before, entries: before.entries + 1, misses: before.misses + 1 });
      // A write forgets where the list begins, not that walks from the top come up short.
      const patch = await request(server.base, `/rest/v1/budget_item/${ids[0]}/`, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ amount: '12.50' }) });
      assert.equal(patch.status, 200);
      assert.deepEqual(await inProjects('id', 1), { count: matches.length, ids: matches.slice(0, 30) });
      if (server.engine.runAmong) {
        // SQLite's next way is the filter's matches kept in memory (pages/kept-matches.ts), which the write patched.
        assert.equal(server.reader.kept.patches, patches + 1, 'page 1 read among the matches the write patched');
        assert.deepEqual(shortWalks(), { ...before, entries: before.entries + 1, misses: before.misses + 1 }, 'without a walk');
      } else {
        assert.deepEqual(shortWalks(), { ...before, entries: before.entries + 1, misses: before.misses + 1, hits: before.hits + 1 }, 'page 1 went the next way at once');
      }
      // The other direction is another list, whose walk meets its matches at once: nothing more remembered.
      assert.deepEqual(await inProjects('-id', 2), { count: matches.length, ids: [...matches].reverse().slice(30, 60) });
      assert.equal(shortWalks().entries, before.entries + 1);
    });

    test('are never taken for a range of the order\'s own field: its index holds the page where the range begins', async () => {
      const ids = (await server.engine.run(server.engine.db.selectFrom('budget_item').select('id').orderBy('id').compile())).map((row) => Number(row.id));
      const from = ids[Math.floor((ids.length * 2) / 3)];
      const matches = ids.filter((id) => id > from);
      // Another field's own range (where d83ce71 checked the order's index against every match, at
      // scale 100 1.5 s a page): the thirty largest amounts, the next one smaller.
      const [largest, next] = [await page('amount__isnull=False&ordering=-amount', 1), await page('amount__isnull=False&ordering=-amount', 2)];
      const least = largest.amounts[29];
      assert.ok(next.amounts[0] < least, `${next.amounts[0]} < ${least}`);
      const before = shortWalks();
      for (const [ordering, inOrder] of [['id', matches], ['-id', [...matches].reverse()]] as const) {
        for (const number of [1, 3]) {
          assert.deepEqual(await listed(`id__gt=${from}&ordering=${ordering}`, number), { count: matches.length, ids: inOrder.slice((number - 1) * 30, number * 30) });
        }
      }
      for (const [ordering, inOrder] of [['-amount', largest.ids], ['amount', [...largest.ids].reverse()]] as const) {
        assert.deepEqual(await listed(`amount__gte=${least}&ordering=${ordering}`, 1), { count: 30, ids: inOrder }, ordering);
      }
      assert.deepEqual(shortWalks(), before, 'no walk was taken, none came up short');
    });
  });

  describe(`walks taken again longer (${store.name})`, () => {
    // Some 14,000 links of 1,800 projects: a walk eight times the first (1,000 rows) reads less
    // than every link, and the projects holding the matches are too many to read them alone.
    const server = useServer(store, () => generateDemo({ scale: 3, seed: 1 }).filter(({ entity }) => entity === 'project' || entity === 'link').map(({ entity, records }) => ({ file: entity, label: entity, records })));

    test('a walk short of matches that begin a little further along the order is taken again, not remembered as short, where the next way costs more (where a set of the matches may be kept, it costs less)', async () => {
      await createUser(server.engine, { email: 'admin@example.org', firstName: 'Ada', lastName: 'Admin', admin: true });
      const headers = { authorization: `Token ${await createToken(server.engine, 'admin@example.org')}` };
      const newestFirst = (await server.engine.run(server.engine.db.selectFrom('link').select('id').orderBy('id', 'desc').compile())).map((row) => Number(row.id));
      assert.ok(newestFirst.length > 12_000, `${newestFirst.length} links`);
      // Every second link past the newest 1,100, its address searched for two letters no other
      // holds (Cyrillic) and no index serves: the first walk, in id order from the newest, meets none.
      const marked = newestFirst.slice(1100).filter((_, index) => index % 2 === 0);
      await changeData(server.engine, ['link'], async (trx) => {
        for (const id of marked) await trx.updateTable('link').set({ url: `https://example.org/жщ/${id}`, url_sortkey: sortKey(`https://example.org/жщ/${id}`) } as never).where('id', '=', id).execute();
      });
      const expected = { count: marked.length, ids: marked.slice(0, 30) };
      const shortWalks = (reader: Reader) => reader.caches().find((cache) => cache.name === 'short_walks')!.figures();
      const before = shortWalks(server.reader);
      const answer = await request(server.base, `/rest/v1/link/?url__icontains=${encodeURIComponent('ЖЩ')}&ordering=-id`, { headers });
      assert.equal(answer.status, 200);
      const body = answer.body as { count: number; results: { id: number }[] };
      assert.deepEqual({ count: body.count, ids: body.results.map((item) => item.id) }, expected);
      // Both stores read the filter's matches once and keep them (pages/kept-matches.ts), for less
      // than a walk eight times as long: the walk gives way to them at once.
      assert.deepEqual(shortWalks(server.reader), { ...before, entries: before.entries + 1, misses: before.misses + 1 }, 'one walk, then the kept matches');

      // An engine that checks no set (a snapshot's): the walk is taken again, eight times as far, and finds them.
      const link = RESOURCES.find((resource) => resource.name === 'link')!;
      const reader = new Reader({ ...server.engine, runAmong: undefined });
      const list = parseListQuery(link, [['url__icontains', 'жщ'], ['ordering', '-id']], SERVICE);
      const total = await reader.count(link, SERVICE, list.filters);
      const ids = (await reader.page(link, SERVICE, { order: list.order, pinned: false, limit: 30, offset: 0 }, total, list.filters)).map((row) => Number(row.id));
      assert.deepEqual({ count: total, ids }, expected);
      assert.equal(shortWalks(reader).entries, 0, 'not remembered as short');
      assert.equal(reader.kept.sets.figures().entries, 0, 'no set kept');
    });
  });
}
