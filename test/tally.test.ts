/**
 * Engine.tally: how many rows hold each value of a column, as a histogram of counts per project
 * is counted whole (project-counts.ts); Engine.readIdsTallied, the same of a second column beside
 * the first's ids (a filter's matches read with their counts: pages/kept-matches.ts). On every
 * engine, and on SQLite both on its reader threads and without them, it equals the database's own
 * GROUP BY; tallyOf, which SQLite's threads run, equals a plain count by value whether it counts
 * through an array indexed by value or sorts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { openEngine, tallyOf, tallyOfGroups, type Engine } from '../src/store/engine/index.ts';
import { testStores, useServer } from './support/server.ts';

/** The counts by value, ascending, null as -1: what a tally must equal. */
function counted(values: readonly (number | null)[]): [number, number][] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value ?? -1, (counts.get(value ?? -1) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b);
}

const pairs = ({ values, counts }: { values: Int32Array; counts: Int32Array }) => [...values].map((value, index): [number, number] => [value, counts[index]]);

/** A seeded sequence, so that a failure is found again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
}

describe('tallyOf', () => {
  test('counts dense values (projects of a large table) through an array indexed by value, nulls as -1 first', () => {
    const next = random(7);
    const values = Array.from({ length: 50_000 }, () => (next() < 0.01 ? null : 1 + Math.floor(next() * 6_000)));
    const tally = tallyOf(values);
    assert.deepEqual(pairs(tally), counted(values));
    assert.equal(tally.values[0], -1);
  });

  test('counts sparse values (ids up to 2^31 - 1, few of them) by sorting', () => {
    const next = random(11);
    const values: (number | null)[] = Array.from({ length: 3_000 }, () => (next() < 0.5 ? 2_147_483_647 - Math.floor(next() * 10) : Math.floor(next() * 2_000_000_000)));
    values.push(null, 1, null);
    assert.deepEqual(pairs(tallyOf(values)), counted(values));
  });

  test('counts one value, and none', () => {
    assert.deepEqual(pairs(tallyOf([42, 42, 42])), [[42, 3]]);
    assert.deepEqual(pairs(tallyOf([])), []);
    assert.deepEqual(pairs(tallyOf([null])), [[-1, 1]]);
  });
});

describe('tallyOfGroups', () => {
  test('takes rows grouped by the database, null first, and refuses them out of order', () => {
    const rows = [{ project: null, count: '2' }, { project: 3, count: 5 }, { project: '70000', count: '1' }];
    assert.deepEqual(pairs(tallyOfGroups(rows, 'project')), [[-1, 2], [3, 5], [70_000, 1]]);
    assert.throws(() => tallyOfGroups([rows[1], rows[0]], 'project'), /counts by project out of order/);
    assert.throws(() => tallyOfGroups([rows[1], rows[1]], 'project'), /out of order/);
  });
});

/** 5,000 rows: 613 values, and a null in every fifth, tallied and grouped by the database. */
async function agrees(engine: Engine): Promise<void> {
  const projects = 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) select case when x % 5 = 0 then null else (x * 7) % 613 end as project from c';
  const tally = await engine.tally(CompiledQuery.raw(projects));
  const grouped = await engine.run(CompiledQuery.raw(`select project, count(*) as count from (${projects}) as q group by project`));
  const expected = grouped.map((row): [number, number] => [row.project === null ? -1 : Number(row.project), Number(row.count)]).sort(([a], [b]) => a - b);
  assert.deepEqual([expected.length, expected[0]], [614, [-1, 1000]]);
  assert.deepEqual(pairs(tally), expected);
  assert.deepEqual(pairs(await engine.tally(CompiledQuery.raw('select 1 as project where 1 = 0'))), []);
  // Engine.readIdsTallied: each row's id, and its project tallied, of one statement.
  const both = await engine.readIdsTallied(CompiledQuery.raw(`select x + 70000 as id, project from (${projects.replace('select case', 'select x, case')}) as q`));
  assert.deepEqual([...both.ids].sort((a, b) => a - b), Array.from({ length: 5000 }, (_, index) => index + 70_001));
  assert.deepEqual(pairs(both.tally), expected);
  const none = await engine.readIdsTallied(CompiledQuery.raw('select 1 as id, 1 as project where 1 = 0'));
  assert.deepEqual([[...none.ids], pairs(none.tally)], [[], []]);
}

for (const store of testStores()) {
  describe(`${store.name}: Engine.tally`, () => {
    const server = useServer(store);
    test('equals the database\'s own count per value', async () => agrees(server.engine));
  });
}

describe('sqlite: Engine.tally on reader threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsr-tally-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('equals the database\'s own count per value', async () => {
    const engine = openEngine(`sqlite:${join(dir, 'tally.sqlite')}`, { readerThreads: 2 });
    try {
      await agrees(engine);
    } finally {
      await engine.close();
    }
  });
});
