/**
 * Lists ordered by any orderable field, either way, or filtered by a field declared
 * `index: 'filter'`, are read from an index, never sorted or scanned whole: this is what keeps
 * their pages flat as the data grows, and deep pages cheap in every order (issues 6 and 14).
 * Checked on each store's own query plan for the SQL the list request produces.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { parseListQuery } from '../src/query/list-query.ts';
import { ANONYMOUS, storedFields, type Resource, type StoredField } from '../src/resources/define.ts';
import { entityOf, RESOURCES, TABLES } from '../src/resources/index.ts';
import { countQuery, marksQuery, matchesProjectQuery, pageQuery, projectCountsQuery } from '../src/store/list-sql.ts';
import { dropUndeclaredIndexes, searchedColumns, secondaryIndexes } from '../src/store/indexes.ts';
import type { Engine } from '../src/store/engine/index.ts';
import { testStores, useServer } from './support/server.ts';

/** Lists of a caller's own projects, and of report definitions, are short: sorted as read. */
const LONG = RESOURCES.filter((resource) => resource.visibility.kind !== 'own-projects' && resource.visibility.kind !== 'organisations');
const fields = (wanted: (name: string, field: StoredField) => boolean) =>
  LONG.flatMap((resource) => storedFields(resource).filter(([name, field]) => wanted(name, field)).map(([name]) => ({ resource, name })));
const orderable = fields((name, field) => field.orderable && name !== 'id');
const filtered = fields((_, field) => field.index === 'filter');

/** The plan of the first page (or the count) that `query` asks for, as one line per step. */
async function plan(engine: Engine, resource: Resource, query: string, part: 'page' | 'count'): Promise<string> {
  const list = parseListQuery(resource, [...new URLSearchParams(query)], ANONYMOUS);
  const built = part === 'page'
    ? await pageQuery(engine, resource, ANONYMOUS, { order: list.order, pinned: list.pinned, limit: 20, offset: 0 }, list.filters)
    : await countQuery(engine, resource, ANONYMOUS, list.filters);
  return planOf(engine, built.compile());
}

async function planOf(engine: Engine, compiled: CompiledQuery): Promise<string> {
  if (engine.name === 'sqlite') {
    const steps = await engine.run(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
    return steps.map((step) => step.detail).join('\n');
  }
  // The fixture's tables are tiny, where a sort is cheapest: forbid it, then see whether it was needed.
  return engine.db.connection().execute(async (db) => {
    await sql`set enable_sort = off`.execute(db);
    await sql`set enable_incremental_sort = off`.execute(db);
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
    before(async () => {
      // The fixture's tables are tiny, where a sort is cheapest: SQLite plans as it would without
      // statistics (the import gathers them), as PostgreSQL below is told not to sort.
      if (server.engine.name !== 'sqlite') return;
      for (const table of ['sqlite_stat1', 'sqlite_stat4']) await sql`delete from ${sql.table(table)}`.execute(server.engine.db);
      await sql`analyze sqlite_schema`.execute(server.engine.db);
    });

    test('every list has orderable fields, and some fields are declared indexed for filtering', () => {
      assert.equal(new Set(orderable.map(({ resource }) => resource)).size, LONG.length);
      assert.equal(LONG.length, RESOURCES.length - 2);
      assert.ok(filtered.length >= 1);
    });

    for (const { resource, name } of orderable) {
      for (const ordering of [name, `-${name}`]) {
        test(`${resource.name}?ordering=${ordering} is read in order from an index`, async () => {
          const steps = await plan(server.engine, resource, `ordering=${ordering}`, 'page');
          assert.doesNotMatch(steps, /TEMP B-TREE|Sort/, steps);
          assert.match(steps, new RegExp(`(INDEX|Index Scan using) ${resource.table}_${name}(_sortkey)?_`), steps);
        });
      }
    }

    // A page walked in its order (pages/in-sql.ts, `walk`) is a subquery of the walk's rows: the
    // page's order must be seen to be the walk's own, so that the statement stops at the page's
    // end instead of reading the walk's every row and sorting them: in every nullable field's
    // order, whose `is null` term SQLite orders by (list-sql.ts, `walked`), and in two lists'
    // orders by their project, never null, whose terms are columns already.
    const nullable = fields((name, field) => field.orderable && field.nullable && name !== 'id');
    for (const { resource, name } of [...nullable, ...orderable.filter(({ name }) => name === 'project').slice(0, 2)]) {
      for (const ordering of [name, `-${name}`]) {
        test(`a page of ${resource.name}?ordering=${ordering} walked in its order is not sorted again`, async () => {
          const list = parseListQuery(resource, [['ordering', ordering]], ANONYMOUS);
          const walked = await pageQuery(server.engine, resource, ANONYMOUS, { order: list.order, pinned: list.pinned, limit: 20, offset: 0, walk: 1000 }, list.filters);
          const steps = await planOf(server.engine, walked.compile());
          assert.doesNotMatch(steps, /TEMP B-TREE|Sort/, steps);
        });
      }
    }

    // A deep page starts from a mark (pages/seek.ts), the marks found by walking the order from
    // the last one, reading ids and one value: both stores read them from the index alone,
    // descending too (migrations 16 and 17), rather than visit each row the walk passes for its
    // project or its tie with the mark.
    for (const [table, name, value] of [['transaction', 'currency', 'EUR'], ['budget_item', 'amount', 1e9], ['indicator_period_data_comment', 'created_at', '2024-01-01T00:00:00Z']] as const) {
      test(`the walk to deep pages of ${table}?ordering=-${name} reads the index alone`, async () => {
        const resource = RESOURCES.find((candidate) => candidate.table === table) as Resource;
        const list = parseListQuery(resource, [['ordering', `-${name}`]], ANONYMOUS);
        const built = await marksQuery(server.engine, resource, ANONYMOUS, list.filters, list.order, { id: 5, value }, 250, 40);
        const steps = await planOf(server.engine, built.compile());
        assert.match(steps, new RegExp(`(COVERING INDEX|Index Only Scan using) ${table}_${name}(_sortkey)?_desc`), steps);
      });
    }

    // A code list's field holds no two codes of one key (filter-sql.ts, closedValues): an
    // equality, or a choice among codes, is counted per project from the key's index, no row
    // read to compare the text (the projects read from it are tallied: Engine.tally).
    for (const [table, name, value] of [['budget_item', 'currency', 'EUR'], ['transaction', 'transaction_type', 'D'], ['link', 'kind', 'A'], ['transaction', 'transaction_type__in', 'D,11'], ['budget_item', 'currency__in', 'EUR,USD,GBP']] as const) {
      test(`${table}?${name}=${value} is counted per project from its key's index alone`, async () => {
        const resource = RESOURCES.find((candidate) => candidate.table === table) as Resource;
        const list = parseListQuery(resource, [[name, value]], ANONYMOUS);
        const steps = await planOf(server.engine, matchesProjectQuery(server.engine, resource, list.filters).compile());
        assert.match(steps, new RegExp(`(COVERING INDEX|Index Only Scan using) ${table}_${name.replace('__in', '')}_sortkey_`), steps);
      });
    }

    // A list unfiltered is counted per project from the project's index, in its order: grouped
    // as read, nothing sorted, nothing gathered to be tallied (list-sql.ts, projectCountsQuery).
    for (const table of ['budget_item', 'disaggregation_target', 'indicator_period_data_comment'] as const) {
      test(`every record of ${table} is counted per project in the project's index order`, async (context) => {
        if (server.engine.name !== 'sqlite') return context.skip('PostgreSQL plans a whole read its own way');
        const resource = RESOURCES.find((candidate) => candidate.table === table) as Resource;
        const steps = await planOf(server.engine, projectCountsQuery(server.engine, resource, undefined).compile());
        assert.match(steps, new RegExp(`^SCAN t USING COVERING INDEX ${table}_(_?project_idx|project_desc)$`, 'm'), steps);
        assert.doesNotMatch(steps, /TEMP B-TREE/, steps);
      });
    }

    // A filter no index serves (a two-letter search) reads every record whichever way: SQLite
    // reads the searched key's index whole (it carries the project), and sorts nothing: the
    // projects are tallied as read (list-sql.ts, matchesProjectQuery; Engine.tally).
    for (const [table, name] of [['budget_item', 'other_extra'], ['link', 'url'], ['indicator_period_data_comment', 'comment']] as const) {
      test(`${table}?${name}__icontains=ma is counted per project from its key's index read whole`, async (context) => {
        if (server.engine.name !== 'sqlite') return context.skip('PostgreSQL plans a whole read its own way');
        const resource = RESOURCES.find((candidate) => candidate.table === table) as Resource;
        const list = parseListQuery(resource, [[`${name}__icontains`, 'ma']], ANONYMOUS);
        const steps = await planOf(server.engine, matchesProjectQuery(server.engine, resource, list.filters).compile());
        assert.match(steps, new RegExp(`^SCAN t USING COVERING INDEX ${table}_${name}_sortkey_(idx|desc)$`, 'm'), steps);
        assert.doesNotMatch(steps, /TEMP B-TREE/, steps);
      });
    }

    // FTS5 writes out the terms it holds whenever a rowid comes smaller than the last: filled in
    // the key index's order, custom fields' values took 39 s at scale 100, in rowid order 9 s.
    for (const entity of TABLES.filter((table) => searchedColumns(table).length)) {
      test(`the trigram indexes of ${entity.table} are filled from its rows in rowid order`, async (context) => {
        if (server.engine.name !== 'sqlite') return context.skip('a GIN index is built by PostgreSQL itself');
        for (const column of searchedColumns(entity)) {
          const fill = server.engine.dialect.trigramIndex(entity.table, column).create.map((statement) => statement.compile(server.engine.db)).find((compiled) => compiled.sql.startsWith('insert'));
          assert.ok(fill, `${column}: a statement that fills the index`);
          const steps = (await planOf(server.engine, fill)).split('\n');
          assert.equal(steps[0], `SCAN ${entity.table}`, `${column}: ${steps.join(' | ')}`);
          assert.ok(!steps.some((step) => step.includes('TEMP B-TREE')), `${column}: ${steps.join(' | ')}`);
        }
      });
    }

    // Index builds sort in runs of the cache's size: small runs for a table's new indexes, the large
    // cache for the load's inserts into indexed tables, and the connection's own settings after.
    test('a bulk load makes indexes with a small cache and sort threads, and gives the connection back as it was', async (context) => {
      const { engine } = server;
      if (engine.name !== 'sqlite') return context.skip('PostgreSQL sorts in maintenance_work_mem');
      const settings = async () => Promise.all(['cache_size', 'threads'].map(async (name) => Number(Object.values((await engine.run(CompiledQuery.raw(`pragma ${name}`)))[0])[0])));
      const before = await settings();
      const seen = await engine.bulkLoad(async (load) => [await settings(), await load.indexing(settings), await settings()]);
      assert.deepEqual(seen, [[-524_288, 2], [-4096, 2], [-524_288, 2]]);
      assert.deepEqual(await settings(), before);
      assert.notDeepEqual(before, seen[0]);
    });

    test('an upgrade drops the indexes a wider one now serves (migration 5) and keeps every declared one', async () => {
      const { engine } = server;
      const entity = entityOf('budget_item');
      const indexesOf = async () => (engine.name === 'sqlite'
        ? await engine.run(CompiledQuery.raw(`select name from sqlite_master where type = 'index' and tbl_name = 'budget_item' and name not like 'sqlite_%'`))
        : await engine.run(CompiledQuery.raw(`select indexname as name from pg_indexes where tablename = 'budget_item' and indexname <> 'budget_item_pkey'`))).map((row) => String(row.name)).sort();
      // On PostgreSQL a searched text's trigram index is one of the table's (SQLite's is a table of its own).
      const trigrams = engine.name === 'postgres' ? searchedColumns(entity).map((column) => `budget_item_${column}_trgm`) : [];
      const declared = [...secondaryIndexes(entity, engine.dialect).map((index) => index.name), ...trigrams].sort();
      assert.deepEqual(await indexesOf(), declared);
      // An index of ours the declaration no longer asks for, as an older schema had it.
      const stray = ['budget_item_project_idx', 'budget_item_project_asc'].find((name) => !declared.includes(name)) as string;
      await sql`create index ${sql.id(stray)} on budget_item (project)`.execute(engine.db);
      assert.deepEqual(await indexesOf(), [...declared, stray].sort());
      await dropUndeclaredIndexes(engine.db, engine.dialect, entity);
      assert.deepEqual(await indexesOf(), declared);
    });

    for (const { resource, name } of filtered) {
      test(`${resource.name}?${name}= is counted from an index`, async () => {
        const steps = await plan(server.engine, resource, `${name}=1`, 'count');
        assert.match(steps, new RegExp(`(INDEX|Index.* (using|on)) ${resource.table}_${name}_(idx|asc|desc)`), steps);
      });
    }
  });
}
