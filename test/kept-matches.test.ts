/**
 * A filtered page whose walk came up short is read among the filters' matches kept in memory
 * (store/pages/kept-matches.ts; SQLite, Engine.runAmong): its order's index walked, each id
 * checked against the set, then for visibility. The set is read once per version of the list's
 * tables and serves the list's every order and page, for every caller; a write makes it stale.
 * Every page holds what a plain reading of the table gives. (PostgreSQL has no such set: there
 * the same requests are answered the other ways, and must be exact all the same.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateDemo } from '../demo/generate.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { ANONYMOUS } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { changeData } from '../src/store/data-version.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { IdSet } from '../src/store/idset.ts';
import { filterMatchQuery, pageQuery } from '../src/store/list-sql.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { request, testStores, useServer } from './support/server.ts';

for (const store of testStores()) {
  describe(`pages among kept matches (${store.name})`, () => {
    // Some 14,000 links of 1,800 projects, so that a walk of 1,000 rows can come up short.
    const server = useServer(store, () => generateDemo({ scale: 3, seed: 1 }).filter(({ entity }) => entity === 'project' || entity === 'link').map(({ entity, records }) => ({ file: entity, label: entity, records })));
    let headers: Record<string, string> = {};
    let settledMs = 0;
    before(async () => {
      await createUser(server.engine, { email: 'admin@example.org', firstName: 'Ada', lastName: 'Admin', admin: true });
      headers = { authorization: `Token ${await createToken(server.engine, 'admin@example.org')}` };
      // Sets are read for tables unchanged a while (settling.ts): here at once.
      settledMs = server.reader.settledMs;
      server.reader.settledMs = 0;
    });
    after(() => {
      server.reader.settledMs = settledMs;
    });

    const figures = (name: string) => server.reader.caches().find((cache) => cache.name === name)!.figures();
    /** The list's count and a page's ids, as the API answers them to the caller (anonymous without `auth`). */
    const listed = async (query: string, auth?: Record<string, string>) => {
      const answer = await request(server.base, `/rest/v1/link/?${query}`, { headers: auth });
      assert.equal(answer.status, 200, query);
      const body = answer.body as { count: number; results: { id: number }[] };
      return { count: body.count, ids: body.results.map((link) => link.id) };
    };
    /** The same, read plainly: every link the caller sees (`visible`) whose address holds the mark, sorted by `order`. */
    const plain = async (order: 'caption' | 'id', descending: boolean, page: number, visible: (project: number) => boolean) => {
      const rows = await server.engine.run(server.engine.db.selectFrom('link').select(['id', 'project', 'caption_sortkey as caption']).where('url', 'like', '%жщ%').compile());
      const seen = rows.filter((row) => visible(Number(row.project)));
      const key = (row: (typeof rows)[number]) => (order === 'id' ? Number(row.id) : String(row.caption));
      seen.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (descending ? -1 : 1) || Number(a.id) - Number(b.id));
      return { count: seen.length, ids: seen.slice((page - 1) * 30, page * 30).map((row) => Number(row.id)) };
    };

    test('are read once for the filters and serve every order, page and caller; a write makes them stale', async () => {
      const newestFirst = (await server.engine.run(server.engine.db.selectFrom('link').select('id').orderBy('id', 'desc').compile())).map((row) => Number(row.id));
      assert.ok(newestFirst.length > 12_000, `${newestFirst.length} links`);
      // Every second link past the newest 1,100 searched for two letters no other holds and no
      // index serves: the first walk, in id order from the newest, meets none.
      const marked = newestFirst.slice(1100).filter((_, index) => index % 2 === 0);
      await changeData(server.engine, ['link'], async (trx) => {
        for (const id of marked) await trx.updateTable('link').set({ url: `https://example.org/жщ/${id}`, url_sortkey: sortKey(`https://example.org/жщ/${id}`) } as never).where('id', '=', id).execute();
      });
      const rows = await server.engine.run(server.engine.db.selectFrom('project').select(['id', 'is_public', 'publishing_status']).compile());
      const open = new Set(rows.filter((row) => Boolean(row.is_public) && row.publishing_status === 'published').map((row) => Number(row.id)));
      const everyone = () => true;
      const anyone = (project: number) => open.has(project);
      const search = `url__icontains=${encodeURIComponent('ЖЩ')}`;
      const [kept, walks] = [figures('kept_matches'), figures('short_walks')];

      assert.deepEqual(await listed(`${search}&ordering=-id`, headers), await plain('id', true, 1, everyone));
      const among = server.engine.runAmong !== undefined;
      assert.deepEqual(figures('kept_matches'), among ? { ...kept, entries: kept.entries + 1, misses: kept.misses + 1, weight: figures('kept_matches').weight } : kept, 'the matches read once, after the walk came up short');
      if (among) assert.ok(figures('kept_matches').weight > 0);
      // Other orders, pages and callers: among the same set, no walk taken again.
      assert.deepEqual(await listed(`${search}&ordering=caption&page=2`, headers), await plain('caption', false, 2, everyone));
      assert.deepEqual(await listed(`${search}&ordering=-caption&page=3`), await plain('caption', true, 3, anyone));
      assert.deepEqual(await listed(`${search}&ordering=id`), await plain('id', false, 1, anyone));
      if (among) {
        assert.equal(figures('kept_matches').misses, kept.misses + 1, 'read once');
        assert.equal(figures('kept_matches').hits, kept.hits + 3, 'and found three times');
        assert.equal(figures('short_walks').entries, walks.entries + 1, 'the one short walk');
      }

      // A link unmarked: the set is stale, and the pages after the write hold what the table does.
      const [gone] = marked;
      await request(server.base, `/rest/v1/link/${gone}/`, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.org/plain' }) });
      assert.deepEqual(await listed(`${search}&ordering=-id`, headers), await plain('id', true, 1, everyone));
      assert.deepEqual(await listed(`${search}&ordering=caption`), await plain('caption', false, 1, anyone));
      if (among) assert.equal(figures('kept_matches').misses, kept.misses + 2, 'read again at the new version');

      // Without reader threads the service's own connection checks the set: the same pages, for
      // pages read at once (one set each), and while a transaction is under way (they wait for it).
      if (!among) return;
      const own = openEngine(`sqlite:${server.engine.location}`, { readerThreads: 0 });
      try {
        const link = RESOURCES.find((resource) => resource.name === 'link')!;
        const list = parseListQuery(link, [...new URLSearchParams(`${search.replace(encodeURIComponent('ЖЩ'), 'ЖЩ')}&ordering=caption`)], ANONYMOUS);
        const setOf = async (filters: typeof list.filters) => IdSet.of(await own.readIds((await filterMatchQuery(own, link, ANONYMOUS, filters)).compile()));
        const amongPage = async (offset: number, set: IdSet) => (await own.runAmong!((await pageQuery(own, link, ANONYMOUS, { order: list.order, pinned: false, limit: 30, offset, among: true }, list.filters)).compile(), set)).map((row) => Number(row.id));
        const [set, none] = [await setOf(list.filters), new IdSet()];
        let [begun, release] = [() => {}, () => {}];
        const [inside, done] = [new Promise<void>((resolve) => (begun = resolve)), new Promise<void>((resolve) => (release = resolve))];
        const held = own.db.transaction().execute(async (trx) => {
          await trx.selectFrom('link').select('id').limit(1).execute();
          begun();
          await done;
        });
        await inside;
        const pages = Promise.all([amongPage(0, set), amongPage(0, none), amongPage(30, set)]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        release();
        await held;
        const [first, empty, second] = await pages;
        assert.deepEqual(first, (await plain('caption', false, 1, anyone)).ids);
        assert.deepEqual(second, (await plain('caption', false, 2, anyone)).ids);
        assert.deepEqual(empty, []);
      } finally {
        await own.close();
      }
    });
  });
}
