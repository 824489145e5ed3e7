/**
 * A filtered page whose walk came up short is read among the filters' matches kept in memory
 * (store/pages/kept-matches.ts; Engine.runAmong, both stores): its order's index walked, each id
 * checked against the set, then for visibility. The set is read once and serves the list's every
 * order and page, for every caller; a write patches it (the projects it changed read again), and
 * one worker's set is kept by the others.
 * Every page holds what a plain reading of the table gives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { sql } from 'kysely';
import { generateDemo } from '../demo/generate.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { ANONYMOUS, SERVICE } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import type { SharedMatches } from '../src/store/pages/kept-matches.ts';
import type { Neighbours } from '../src/store/project-counts.ts';
import { Reader } from '../src/store/reader.ts';
import { changeData } from '../src/store/data-version.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { IdSet } from '../src/store/idset.ts';
import { filterMatchQuery, pageQuery } from '../src/store/list-sql.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { request, testStores, useServer } from './support/server.ts';

/** Rows in the order of `key` (either way), then of their ids, as every list's order ends. */
function inOrder<T extends Record<string, unknown>>(rows: T[], key: (row: T) => string | number, descending = false): T[] {
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (descending ? -1 : 1) || Number(a.id) - Number(b.id));
}

/** Sets a text field of the records `ids` (and its sort key) to `text(id)`, as one change. */
async function setText(engine: Engine, table: string, field: string, ids: readonly number[], text: (id: number) => string): Promise<void> {
  await changeData(engine, [table], async (trx) => {
    for (const id of ids) await trx.updateTable(table).set({ [field]: text(id), [`${field}_sortkey`]: sortKey(text(id)) } as never).where('id', '=', id).execute();
  });
}

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
      const seen = inOrder(rows.filter((row) => visible(Number(row.project))), (row) => (order === 'id' ? Number(row.id) : String(row.caption)), descending);
      return { count: seen.length, ids: seen.slice((page - 1) * 30, page * 30).map((row) => Number(row.id)) };
    };

    test('the store checks ids against a set of several blocks: ids below, between, inside and past them', async () => {
      const ids = [1, 65_535, 65_536, 70_000, 140_001, 150_000, 200_000, 262_144, 300_000];
      const set = IdSet.of([65_536, 140_001, 200_000]);
      const values = sql.join(ids.map((id) => sql`(${sql.lit(id)})`));
      const query = server.engine.db.selectFrom(sql`(values ${values})`.as('v')).select(sql<number>`column1`.as('id')).where(server.engine.dialect.among(sql.ref('column1'))).orderBy(sql.ref('column1'));
      assert.deepEqual((await server.engine.runAmong!(query.compile(), set)).map((row) => Number(row.id)), [65_536, 140_001, 200_000]);
      assert.deepEqual(await server.engine.runAmong!(query.compile(), new IdSet()), [], 'an empty set holds none');
    });

    test('are read once for the filters and serve every order, page and caller; a write makes them stale until brought to its version', async () => {
      const newestFirst = (await server.engine.run(server.engine.db.selectFrom('link').select('id').orderBy('id', 'desc').compile())).map((row) => Number(row.id));
      assert.ok(newestFirst.length > 12_000, `${newestFirst.length} links`);
      // Every second link past the newest 1,100 searched for two letters no other holds and no
      // index serves: the first walk, in id order from the newest, meets none.
      const marked = newestFirst.slice(1100).filter((_, index) => index % 2 === 0);
      await setText(server.engine, 'link', 'url', marked, (id) => `https://example.org/жщ/${id}`);
      const rows = await server.engine.run(server.engine.db.selectFrom('project').select(['id', 'is_public', 'publishing_status']).compile());
      const open = new Set(rows.filter((row) => Boolean(row.is_public) && row.publishing_status === 'published').map((row) => Number(row.id)));
      const everyone = () => true;
      const anyone = (project: number) => open.has(project);
      const search = `url__icontains=${encodeURIComponent('ЖЩ')}`;
      const [kept, walks, offered] = [figures('kept_matches'), figures('short_walks'), figures('offered_matches')];

      assert.deepEqual(await listed(`${search}&ordering=-id`, headers), await plain('id', true, 1, everyone));
      const among = server.engine.runAmong !== undefined;
      assert.deepEqual(figures('kept_matches'), among ? { ...kept, entries: kept.entries + 1, misses: kept.misses + 1, weight: figures('kept_matches').weight } : kept, 'the matches read once, after the walk came up short');
      if (among) assert.ok(figures('kept_matches').weight > 0);
      // No index serves the search: the count read every link, and the matches' ids with them
      // (KeptMatches#tallied), which the page took as its set rather than read them again.
      if (among) assert.deepEqual(figures('offered_matches'), { ...offered, misses: offered.misses + 1, hits: offered.hits + 1 }, 'offered by the count, taken (and let go) by the page');
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
      if (among) assert.equal(figures('kept_matches').misses, kept.misses + 2, 'made again at the new version');

      // Without reader threads the service's own connection checks the set: the same pages, for
      // pages read at once (one set each), and while a transaction is under way (they wait for it).
      if (server.engine.name !== 'sqlite') return;
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

    test('are read at once where reading them and walking among them cost less than one long walk of rows', async () => {
      if (server.engine.runAmong === undefined) return;
      server.reader.settledMs = 0;
      // One link in each of 1,100 projects holds two letters no other does: too many projects to
      // read the page within them, and a walk to page 5 would read some 1,900 rows where the set
      // costs a sixteenth of a row per link (some 900) and the walk among it an eighth of those.
      const firsts = (await server.engine.run(server.engine.db.selectFrom('link').select((eb) => eb.fn.min('id').as('id')).groupBy('project').orderBy('project').compile())).map((row) => Number(row.id)).slice(0, 1100);
      assert.equal(firsts.length, 1100);
      await setText(server.engine, 'link', 'url', firsts, (id) => `https://example.org/ёю/${id}`);
      const matches = await server.engine.run(server.engine.db.selectFrom('link').select(['id', 'caption_sortkey as caption']).where('url', 'like', '%ёю%').compile());
      const ordered = inOrder(matches, (row) => String(row.caption)).map((row) => Number(row.id));
      const [kept, walks] = [figures('kept_matches'), figures('short_walks')];
      assert.deepEqual(await listed(`url__icontains=${encodeURIComponent('ЁЮ')}&ordering=caption&page=5`, headers), { count: 1100, ids: ordered.slice(120, 150) });
      assert.equal(figures('kept_matches').misses, kept.misses + 1, 'the matches read at once');
      assert.deepEqual(figures('short_walks'), walks, 'no walk taken, none came up short');
    });

    test('a write patches the sets of filters on the list\'s own fields: pages after moves, additions, changes and deletions hold what the table does', async () => {
      // Never settled: a set is read and kept only because the writes patch it.
      server.reader.settledMs = Infinity;
      const rows = await server.engine.run(server.engine.db.selectFrom('project').select(['id', 'is_public', 'publishing_status']).compile());
      const open = rows.filter((row) => Boolean(row.is_public) && row.publishing_status === 'published').map((row) => Number(row.id));
      const hidden = rows.map((row) => Number(row.id)).find((id) => !open.includes(id))!;
      const anyone = (project: number) => open.includes(project);
      const search = `url__icontains=${encodeURIComponent('ЖЩ')}`;
      const marked = async () => (await server.engine.run(server.engine.db.selectFrom('link').select(['id', 'project']).where('url', 'like', '%жщ%').orderBy('id').compile())).map((row) => ({ id: Number(row.id), project: Number(row.project) }));
      const exact = async (step: string) => {
        for (const [order, descending, page] of [['id', true, 1], ['caption', false, 2], ['caption', true, 1]] as const) {
          const query = `${search}&ordering=${descending ? '-' : ''}${order}&page=${page}`;
          assert.deepEqual(await listed(query, headers), await plain(order, descending, page, () => true), `${step}: ${query}, administrator`);
          assert.deepEqual(await listed(query), await plain(order, descending, page, anyone), `${step}: ${query}, anonymous`);
        }
      };
      const write = async (method: string, path: string, body?: object) => {
        const answer = await request(server.base, `/rest/v1/link/${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
        assert.ok(answer.status < 300, `${method} ${path}: ${answer.status}`);
      };
      await exact('before');
      const kept = server.reader.kept;
      const [patches, misses, projects] = [kept.patches, figures('kept_matches').misses, kept.projectsRead];
      const [first, second, third] = await marked();
      const unmarked = (await server.engine.run(server.engine.db.selectFrom('link').select('id').where('url', 'not like', '%жщ%').where('project', 'in', open).limit(1).compile())).map((row) => Number(row.id))[0];
      const steps: [string, () => Promise<void>][] = [
        ['a match no longer matching', () => write('PATCH', `${first.id}/`, { url: 'https://example.org/plain/again' })],
        ['a match added', () => write('POST', '', { project: open[0], kind: 'A', url: 'https://example.org/жщ/new', caption: 'Aaa first' })],
        ['a match moved to a project anonymous callers do not see', () => write('PATCH', `${second.id}/`, { project: hidden })],
        ['a match deleted', () => write('DELETE', `${third.id}/`)],
        ['a record matching now', () => write('PATCH', `${unmarked}/`, { url: 'https://example.org/жщ/now', caption: 'Zzz last' })],
      ];
      for (const [step, change] of steps) {
        await change();
        await exact(step);
      }
      if (server.engine.runAmong !== undefined) {
        assert.equal(kept.patches, patches + steps.length, 'each version\'s set patched from the one before');
        assert.equal(figures('kept_matches').misses, misses + steps.length, 'never read whole again');
        assert.equal(kept.projectsRead - projects, 6, 'the project of each record written (both of the one moved) read again');
      }
      // A change that names no project (the log cannot say which records moved): the set is read whole again.
      const [last] = (await marked()).slice(-1);
      await setText(server.engine, 'link', 'url', [last.id], () => 'https://example.org/unnamed');
      await exact('a change naming no project');
      if (server.engine.runAmong !== undefined) assert.equal(kept.patches, patches + steps.length, 'not patched');
    });
    test('a set read whole by one worker is kept by the other, which reads its pages among it without reading the matches again', async () => {
      if (server.engine.runAmong === undefined) return;
      // Two readers of one database, as the service's workers are, each message passed as the
      // cluster's channel passes it (V8's serialization: a copy, typed arrays kept).
      const heard: ((shared: SharedMatches) => void)[][] = [[], []];
      let told = 0;
      const neighbour = (me: number): Neighbours<SharedMatches> => ({
        tell: (shared) => {
          told += 1;
          for (const take of heard[1 - me]) take(deserialize(serialize(shared)) as SharedMatches);
        },
        hear: (take) => heard[me].push(take),
      });
      const [one, other] = [0, 1].map((me) => new Reader(server.engine, { settledMs: 0, neighbours: { matches: neighbour(me) } }));
      const link = RESOURCES.find((resource) => resource.name === 'link')!;
      const rows = await server.engine.run(server.engine.db.selectFrom('project').select(['id', 'is_public', 'publishing_status']).compile());
      const open = new Set(rows.filter((row) => Boolean(row.is_public) && row.publishing_status === 'published').map((row) => Number(row.id)));
      const pageOf = async (reader: Reader, ordering: string, page: number) => {
        const list = parseListQuery(link, [['url__icontains', 'жщ'], ['ordering', ordering]], ANONYMOUS);
        const total = await reader.count(link, ANONYMOUS, list.filters);
        return (await reader.page(link, ANONYMOUS, { order: list.order, pinned: false, limit: 30, offset: (page - 1) * 30 }, total, list.filters)).map((row) => Number(row.id));
      };
      const anyone = (project: number) => open.has(project);
      assert.deepEqual(await pageOf(one, '-id', 1), (await plain('id', true, 1, anyone)).ids);
      assert.equal(told, 1, 'the set read whole, and told');
      assert.deepEqual(one.kept.sets.figures().entries, 1);
      assert.deepEqual(other.kept.sets.figures().entries, 1, 'kept by the other');
      const hits = other.kept.sets.hits;
      assert.deepEqual(await pageOf(other, 'caption', 2), (await plain('caption', false, 2, anyone)).ids);
      assert.deepEqual(await pageOf(other, '-id', 1), (await plain('id', true, 1, anyone)).ids);
      assert.equal(other.kept.sets.hits, hits + 2, 'its pages read among the set it was told');
      assert.equal(told, 1, 'which it did not read again');
    });
  });
}

for (const store of testStores()) {
  describe(`a small table's few matches (${store.name})`, () => {
    // Some 4,000 organisations: no project, so no page is read within the projects holding its matches.
    const server = useServer(store, () => generateDemo({ scale: 10, seed: 1 }).filter(({ entity }) => entity === 'organisation').map(({ entity, records }) => ({ file: entity, label: entity, records })));

    test('a public list whose filters no index serves is counted as its matches\' set, which its pages are read among', async () => {
      if (server.engine.runAmong === undefined) return;
      const settledMs = server.reader.settledMs;
      server.reader.settledMs = 0;
      try {
        const ids = (await server.engine.run(server.engine.db.selectFrom('organisation').select('id').orderBy('id').compile())).map((row) => Number(row.id));
        assert.ok(ids.length > 3000, `${ids.length} organisations`);
        // Every 50th organisation's LinkedIn address holds two letters no other does and no index serves.
        const marked = ids.filter((_, index) => index % 50 === 7);
        await setText(server.engine, 'organisation', 'linkedin', marked, (id) => `https://linkedin.example/жщ${id}`);
        const figures = (name: string) => server.reader.caches().find((cache) => cache.name === name)!.figures();
        const plain = async (descending: boolean, page: number) => {
          const rows = await server.engine.run(server.engine.db.selectFrom('organisation').select(['id', 'name_sortkey as name']).where('linkedin', 'like', '%жщ%').compile());
          return { count: rows.length, ids: inOrder(rows, (row) => String(row.name), descending).slice((page - 1) * 30, page * 30).map((row) => Number(row.id)) };
        };
        const listed = async (query: string) => {
          const answer = await request(server.base, `/rest/v1/organisation/?linkedin__icontains=${encodeURIComponent('ЖЩ')}&${query}`);
          assert.equal(answer.status, 200, query);
          const body = answer.body as { count: number; results: { id: number }[] };
          return { count: body.count, ids: body.results.map((organisation) => organisation.id) };
        };
        // The table's size, which the page's way is weighed by, counted first.
        await server.reader.count(RESOURCES.find((resource) => resource.name === 'organisation')!, SERVICE);
        const [kept, counts, walks] = [figures('kept_matches'), figures('counts'), figures('short_walks')];
        assert.deepEqual(await listed('ordering=name'), await plain(false, 1));
        assert.equal((await plain(false, 1)).count, marked.length);
        assert.equal(figures('kept_matches').misses, kept.misses + 1, 'the matches read once');
        assert.equal(figures('counts').misses, counts.misses, 'and counted as the set, not apart');
        assert.equal(figures('kept_matches').hits, kept.hits + 1, 'the page read among it');
        // A walk in name order would have read some 1,500 rows for the page's 30 of 80 matches.
        assert.deepEqual(figures('short_walks'), walks, 'no walk taken');
        assert.deepEqual(await listed('ordering=-name&page=2'), await plain(true, 2));
        assert.equal(figures('kept_matches').hits, kept.hits + 3, 'the next page counted and read among the same set');
        assert.equal(figures('counts').misses, counts.misses);
      } finally {
        server.reader.settledMs = settledMs;
      }
    });
  });
}

test('a patched set is a new set: the one it was made from, which a read may still use, is unchanged, and blocks it left alone are shared', () => {
  const ids = [1, 2, 70_000, 140_000, 200_000];
  const old = IdSet.of([1, 70_000, 140_000]);
  const patched = old.patched([1, 70_000, 5], [2, 200_000]);
  assert.deepEqual(ids.map((id) => old.has(id)), [true, false, true, true, false]);
  assert.deepEqual(ids.map((id) => patched.has(id)), [false, true, false, true, true]);
  assert.deepEqual([old.size, patched.size], [3, 3]);
  assert.equal(patched.blocks.get(2), old.blocks.get(2), 'the block of 140,000, untouched, is the same memory');
  assert.notEqual(patched.blocks.get(0), old.blocks.get(0));
  // As another worker gets it: the same ids, its size counted.
  const copied = IdSet.fromFlat(patched.flat())!;
  assert.deepEqual([...ids, 5].map((id) => copied.has(id)), [false, true, false, true, true, false]);
  assert.equal(copied.size, 3);
  assert.equal(IdSet.fromFlat({ keys: new Int32Array([0]), bits: new Uint32Array(5) }), null, 'arrays that do not fit');
});
