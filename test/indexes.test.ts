/**
 * Lists ordered or filtered by a field declared `index: 'order'` or `'filter'` are read from an
 * index, never sorted or scanned whole: this is what keeps their pages flat as the data grows
 * (issue 6). Checked on each store's own query plan for the SQL the list request produces.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { parseListQuery } from '../src/query/list-query.ts';
import { ANONYMOUS, storedFields, type Resource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { countQuery, pageQuery } from '../src/store/list-sql.ts';
import type { Engine } from '../src/store/engine/index.ts';
import { testStores, useServer } from './support/server.ts';

const indexed = (kind: 'filter' | 'order') =>
  RESOURCES.flatMap((resource) => storedFields(resource).filter(([, field]) => field.index === kind).map(([name]) => ({ resource, name })));

/** The plan of the first page (or the count) that `query` asks for, as one line per step. */
async function plan(engine: Engine, resource: Resource, query: string, part: 'page' | 'count'): Promise<string> {
  const list = parseListQuery(resource, [...new URLSearchParams(query)], ANONYMOUS);
  const built = part === 'page'
    ? await pageQuery(engine, resource, ANONYMOUS, { order: list.order, pinned: list.pinned, limit: 20, offset: 0 }, list.filters)
    : await countQuery(engine, resource, ANONYMOUS, list.filters);
  const compiled = built.compile();
  if (engine.name === 'sqlite') {
    const steps = await engine.run(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
    return steps.map((step) => step.detail).join('\n');
  }
  // The fixture's tables are tiny, where a sort is cheapest: forbid it, then see whether it was needed.
  return engine.db.connection().execute(async (db) => {
    await sql`set enable_sort = off`.execute(db);
    await sql`set enable_seqscan = off`.execute(db);
    try {
      const result = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return result.rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`reset all`.execute(db);
    }
  });
}

for (const store of testStores()) {
  describe(`indexes (${store.name})`, () => {
    const server = useServer(store);

    test('some fields are declared indexed for ordering and for filtering', () => {
      assert.ok(indexed('order').length >= 4);
      assert.ok(indexed('filter').length >= 1);
    });

    for (const { resource, name } of indexed('order')) {
      for (const ordering of [name, `-${name}`]) {
        test(`${resource.name}?ordering=${ordering} is read in order from an index`, async () => {
          const steps = await plan(server.engine, resource, `ordering=${ordering}`, 'page');
          assert.doesNotMatch(steps, /TEMP B-TREE|Sort/, steps);
          assert.match(steps, new RegExp(`(INDEX|Index Scan using) ${resource.table}_${name}(_sortkey)?_`), steps);
        });
      }
    }

    for (const { resource, name } of indexed('filter')) {
      test(`${resource.name}?${name}= is counted from an index`, async () => {
        const steps = await plan(server.engine, resource, `${name}=1`, 'count');
        assert.match(steps, new RegExp(`(INDEX|Index.* (using|on)) ${resource.table}_${name}_idx`), steps);
      });
    }
  });
}
