/**
 * Part lookups on searched texts (`index: 'search'`) through trigram indexes (SQLite FTS5's
 * trigram tokenizer, PostgreSQL's pg_trgm): the same answers as D7's plain lookups on accented,
 * mixed-case, non-Latin and wildcard-laden text, short searches included, before and after the
 * text changes; and the index is what finds them.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { parseFilters } from '../src/query/filters.ts';
import { ANONYMOUS } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { prefixRange } from '../src/store/filter-sql.ts';
import { countQuery } from '../src/store/list-sql.ts';
import { createToken } from '../src/store/users.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { request, testStores, useServer } from './support/server.ts';

const CAPTIONS = ['Ärger über Öl', 'ÉCOLE élémentaire', 'Straße und STRASSE', 'ΣΊΣΥΦΟΣ ο σοφός', '漢字テキストの検索', '50%_off \\ sale', '😀😀 party 😀', 'say "quoted" twice', 'Ma Ñana', 'ab', '\u{D7FF}\u{E000} edge', '\u{D7FF} alone'];
const SEARCHES = ['\u{D7FF}', '\u{D7FF}\u{E000}', 'ärger', 'UBER', 'über', 'öl', 'École', 'ecole', 'STRASSE', 'straße', 'σίσυφος', 'ΣΟΦΌΣ', '漢字', '字テキ', '50%_', '%_o', '\\ s', '😀😀', 'PARTY', '"quoted"', 'ñan', 'nana', 'zzz', 'ö', 'ab', 'a', ' '];
const LOOKUPS = { icontains: (text: string, part: string) => text.includes(part), istartswith: (text: string, part: string) => text.startsWith(part), iendswith: (text: string, part: string) => text.endsWith(part) };
const link = RESOURCES.find((resource) => resource.name === 'link')!;

describe('a prefix as a range of keys', () => {
  test('holds every key that starts with it and no other, past the surrogates and beyond U+FFFF', () => {
    assert.deepEqual(prefixRange('proje'), ['proje', 'projf']);
    assert.deepEqual(prefixRange('a\u{D7FF}'), ['a\u{D7FF}', 'a\u{E000}']);
    assert.deepEqual(prefixRange('😀'), ['😀', '😁']);
    assert.equal(prefixRange(''), null);
    assert.equal(prefixRange('a\u{10FFFF}'), null);
    const [from, to] = prefixRange('ab')!;
    const inRange = (key: string) => Buffer.compare(Buffer.from(key), Buffer.from(from)) >= 0 && Buffer.compare(Buffer.from(key), Buffer.from(to)) < 0;
    for (const key of ['ab', 'abc', 'ab\u{10FFFF}z', 'ab😀']) assert.ok(inRange(key), key);
    for (const key of ['a', 'aa\u{10FFFF}', 'ac', 'b', 'a😀']) assert.ok(!inRange(key), key);
  });
});

for (const store of testStores()) {
  describe(`trigram lookups (${store.name})`, () => {
    const server = useServer(store);
    let admin: Record<string, string>;
    const ids: number[] = [];
    before(async () => {
      admin = { authorization: `Token ${await createToken(server.engine, 'ana@example.org')}`, 'content-type': 'application/json' };
      for (const caption of CAPTIONS) {
        const created = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: admin, body: JSON.stringify({ project: 1, kind: 'A', url: 'https://example.org/t', caption }) });
        assert.equal(created.status, 201, created.text);
        ids.push(created.body.id as number);
      }
    });

    /** Every search whose answer differs from D7's plain lookup over all links (as JavaScript reads them). */
    async function differences(): Promise<string[]> {
      const all = (await request(server.base, '/rest/v1/link/?limit=1000')).body.results as { id: number; caption: string }[];
      const wrong: string[] = [];
      for (const [lookup, holds] of Object.entries(LOOKUPS)) {
        for (const search of SEARCHES) {
          const expected = all.filter((row) => holds(sortKey(row.caption) ?? '', sortKey(search) ?? '')).map((row) => row.id);
          const answer = await request(server.base, `/rest/v1/link/?limit=1000&ordering=id&caption__${lookup}=${encodeURIComponent(search)}`);
          const found = (answer.body.results as { id: number }[]).map((row) => row.id);
          if (JSON.stringify(found) !== JSON.stringify(expected.sort((a, b) => a - b))) wrong.push(`${lookup} ${JSON.stringify(search)}: ${JSON.stringify(found)}, expected ${JSON.stringify(expected)}`);
        }
      }
      return wrong;
    }

    test('answer as the plain lookups do, on accented, mixed-case, non-Latin and wildcard text', async () => {
      assert.deepEqual(await differences(), []);
    });

    test('stay exact as the texts change and go', async () => {
      const patch = await request(server.base, `/rest/v1/link/${ids[0]}/`, { method: 'PATCH', headers: admin, body: JSON.stringify({ caption: 'Öl ohne Ärger' }) });
      assert.equal(patch.status, 200, patch.text);
      assert.equal((await request(server.base, `/rest/v1/link/${ids[1]}/`, { method: 'DELETE', headers: admin })).status, 204);
      assert.deepEqual(await differences(), []);
      const moved = await request(server.base, '/rest/v1/link/?caption__icontains=ohne+%C3%A4rger');
      assert.deepEqual((moved.body.results as { id: number }[]).map((row) => row.id), [ids[0]]);
      assert.equal((await request(server.base, '/rest/v1/link/?caption__icontains=l%C3%A9mentaire')).body.count, 0);
    });

    test('a prefix of an ordered text is a range of its key\'s index', async () => {
      const filters = parseFilters(link, [['caption__istartswith', 'Über']], ANONYMOUS);
      const compiled = (await countQuery(server.engine, link, ANONYMOUS, filters)).compile();
      assert.match(compiled.sql, /"t"\."caption_sortkey" >= \$?\d*\?? and "t"\."caption_sortkey" < /);
      assert.ok(compiled.parameters.includes('uber') && compiled.parameters.includes('ubes'), JSON.stringify(compiled.parameters));
      assert.doesNotMatch(compiled.sql, /trigram|%/);
    });

    test('are found through the trigram index', async () => {
      const filters = parseFilters(link, [['caption__icontains', 'über öl']], ANONYMOUS);
      const compiled = (await countQuery(server.engine, link, ANONYMOUS, filters)).compile();
      if (store.name === 'sqlite') {
        assert.match(compiled.sql, /"link_caption_sortkey_trigram" match \?/);
        const steps = await server.engine.run(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
        assert.match(steps.map((step) => step.detail).join('\n'), /VIRTUAL TABLE INDEX .*link_caption_sortkey_trigram|SCAN link_caption_sortkey_trigram VIRTUAL TABLE/);
        return;
      }
      // A table this small is cheapest read whole, or through any index: those ways forbidden,
      // and the caption's order indexes set aside in a transaction undone after.
      const plan = await server.engine.db.connection().execute(async (db) => {
        await sql`begin`.execute(db);
        try {
          await sql`set local enable_seqscan = off`.execute(db);
          await sql`set local enable_indexscan = off`.execute(db);
          for (const suffix of ['asc', 'desc']) await sql`drop index ${sql.id(`link_caption_sortkey_${suffix}`)}`.execute(db);
          return (await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]))).rows.map((row) => row['QUERY PLAN']).join('\n');
        } finally {
          await sql`rollback`.execute(db);
        }
      });
      assert.match(plan, /link_caption_sortkey_trgm/, plan);
    });
  });
}
