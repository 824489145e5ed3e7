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
import { countQuery } from '../src/store/list-sql.ts';
import { createToken } from '../src/store/users.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { request, testStores, useServer } from './support/server.ts';

const CAPTIONS = ['Ärger über Öl', 'ÉCOLE élémentaire', 'Straße und STRASSE', 'ΣΊΣΥΦΟΣ ο σοφός', '漢字テキストの検索', '50%_off \\ sale', '😀😀 party 😀', 'say "quoted" twice', 'Ma Ñana', 'ab'];
const SEARCHES = ['ärger', 'UBER', 'über', 'öl', 'École', 'ecole', 'STRASSE', 'straße', 'σίσυφος', 'ΣΟΦΌΣ', '漢字', '字テキ', '50%_', '%_o', '\\ s', '😀😀', 'PARTY', '"quoted"', 'ñan', 'nana', 'zzz', 'ö', 'ab', 'a', ' '];
const LOOKUPS = { icontains: (text: string, part: string) => text.includes(part), istartswith: (text: string, part: string) => text.startsWith(part), iendswith: (text: string, part: string) => text.endsWith(part) };
const link = RESOURCES.find((resource) => resource.name === 'link')!;

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

    test('are found through the trigram index', async () => {
      const filters = parseFilters(link, [['caption__icontains', 'über öl']], ANONYMOUS);
      const compiled = (await countQuery(server.engine, link, ANONYMOUS, filters)).compile();
      if (store.name === 'sqlite') {
        assert.match(compiled.sql, /"link_caption_sortkey_trigram" match \?/);
        const steps = await server.engine.run(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
        assert.match(steps.map((step) => step.detail).join('\n'), /VIRTUAL TABLE INDEX .*link_caption_sortkey_trigram|SCAN link_caption_sortkey_trigram VIRTUAL TABLE/);
        return;
      }
      // A table this small is cheapest read whole, or through any index: those ways forbidden.
      const plan = await server.engine.db.connection().execute(async (db) => {
        await sql`set enable_seqscan = off`.execute(db);
        await sql`set enable_indexscan = off`.execute(db);
        try {
          return (await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]))).rows.map((row) => row['QUERY PLAN']).join('\n');
        } finally {
          await sql`reset all`.execute(db);
        }
      });
      assert.match(plan, /link_caption_sortkey_trgm/, plan);
    });
  });
}
