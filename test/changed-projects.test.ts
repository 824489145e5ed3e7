/**
 * What the change log says of a stretch of versions (store/changed-projects.ts): asked of the
 * database once, however many cache entries ask; the answer the log gives (a write undone names
 * nothing); a longer stretch asked anew; an answer naming many projects given, not kept.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChangedProjects } from '../src/store/changed-projects.ts';
import { changeData } from '../src/store/data-version.ts';
import { testStores, useServer } from './support/server.ts';

for (const store of testStores()) {
  describe(`the projects a stretch of versions changed (${store.name})`, () => {
    const server = useServer(store);

    test('three asking the same stretch: one read, the log\'s answer; a longer stretch read anew; a write undone is in none', async () => {
      const { engine } = server;
      const write = (projects: number[]) => changeData(engine, ['link'], async (_, log) => log.projects('link', projects));
      const before = (await engine.version()).data;
      await write([1]);
      // Undone after taking its version: the next write takes the same one, and only it is logged.
      await assert.rejects(changeData(engine, ['link'], async (_, log) => {
        log.projects('link', [9]);
        throw new Error('refused');
      }), /refused/);
      await write([2, 1]);
      const twoWrites = (await engine.version()).data;
      const changes = new ChangedProjects(engine);
      const figures = () => {
        const { hits, misses, entries, weight } = changes.caches()[0].figures();
        return { hits, misses, entries, weight };
      };
      const sorted = (projects: ReadonlySet<number> | null) => [...(projects ?? [])].sort((a, b) => a - b);

      const asked = await Promise.all([1, 2, 3].map(() => changes.between('link', before, twoWrites)));
      assert.deepEqual(asked.map(sorted), [[1, 2], [1, 2], [1, 2]]);
      const logged = await engine.db.selectFrom('change_log').select('project').where('tbl', '=', 'link').where('version', '>', before).where('version', '<=', twoWrites).execute();
      assert.deepEqual(sorted(new Set(logged.map((row) => Number(row.project)))), [1, 2]);
      assert.deepEqual(figures(), { hits: 2, misses: 1, entries: 1, weight: 2 });

      await write([3]);
      const threeWrites = (await engine.version()).data;
      assert.deepEqual(sorted(await changes.between('link', before, threeWrites)), [1, 2, 3]);
      assert.deepEqual(sorted(await changes.between('link', twoWrites, threeWrites)), [3]);
      assert.deepEqual(figures(), { hits: 2, misses: 3, entries: 3, weight: 6 });

      // A stretch naming more projects than an answer kept may hold: answered, not kept.
      const many = Array.from({ length: 257 }, (_, index) => 1000 + index);
      await write(many);
      const manyWrites = (await engine.version()).data;
      assert.deepEqual(sorted(await changes.between('link', threeWrites, manyWrites)), many);
      assert.deepEqual(sorted(await changes.between('link', threeWrites, manyWrites)), many);
      assert.deepEqual(figures(), { hits: 2, misses: 5, entries: 3, weight: 6 });
    });
  });
}
