/**
 * Related rows (store/related-rows.ts): a table of at most its bound of rows is read whole once
 * and its rows found in memory; a larger one, told so without reading its rows, is read by id each
 * time. Either way a lookup gives the rows SQL gives.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entityOf } from '../src/resources/index.ts';
import { RelatedRows } from '../src/store/related-rows.ts';
import { Settling } from '../src/store/settling.ts';
import { testStores, useServer } from './support/server.ts';

for (const store of testStores()) {
  describe(`related rows (${store.name})`, () => {
    const server = useServer(store);

    test('a table at its bound is kept whole; one row past it, it is read by id; the rows are the same', async () => {
      const organisation = entityOf('organisation');
      const all = await server.engine.db.selectFrom('organisation').select('id').orderBy('id').execute();
      const size = all.length;
      assert.ok(size >= 3, 'the fixture has organisations to look up');
      const wanted = [all[0].id, all[size - 1].id, all[1].id] as number[];
      const lookedUp = async (bound: number) => {
        const related = new RelatedRows(server.engine, new Settling(0), bound);
        const rows = await related.inOrder(organisation, wanted);
        return { rows, kept: related.tables.figures().weight };
      };
      const whole = await lookedUp(size);
      const byId = await lookedUp(size - 1);
      assert.deepEqual([whole.kept, byId.kept], [size, 0]);
      assert.deepEqual(whole.rows.map((row) => row.id), wanted);
      assert.deepEqual(whole.rows, byId.rows);
      const names = await server.engine.db.selectFrom('organisation').select(['id', 'name']).where('id', 'in', wanted).execute();
      assert.deepEqual(whole.rows.map((row) => row.name), wanted.map((id) => names.find((row) => row.id === id)?.name));
    });
  });
}
