/**
 * What the change log says of a stretch of versions (store/changed-projects.ts): asked of the
 * database once, however many cache entries ask; the answer the log gives; a longer stretch asked
 * anew.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChangedProjects } from '../src/store/changed-projects.ts';
import { changeData, projectsChanged } from '../src/store/data-version.ts';
import { testStores, useServer } from './support/server.ts';

for (const store of testStores()) {
  describe(`the projects a stretch of versions changed (${store.name})`, () => {
    const server = useServer(store);

    test('three asking the same stretch: one read, the log\'s answer; a longer stretch read anew', async () => {
      const { engine } = server;
      const write = (projects: number[]) => changeData(engine, ['link'], async (_, log) => log.projects('link', projects));
      const before = (await engine.version()).data;
      await write([1]);
      await write([2, 1]);
      const twoWrites = (await engine.version()).data;
      const changes = new ChangedProjects(engine);
      const figures = () => {
        const { hits, misses, entries } = changes.caches()[0].figures();
        return { hits, misses, entries };
      };

      const asked = await Promise.all([1, 2, 3].map(() => changes.between('link', before, twoWrites)));
      assert.deepEqual(asked.map((projects) => [...(projects ?? [])].sort()), [[1, 2], [1, 2], [1, 2]]);
      assert.deepEqual([...((await projectsChanged(engine, 'link', before, twoWrites)) ?? [])].sort(), [1, 2]);
      assert.deepEqual(figures(), { hits: 2, misses: 1, entries: 1 });

      await write([3]);
      const threeWrites = (await engine.version()).data;
      assert.deepEqual([...((await changes.between('link', before, threeWrites)) ?? [])].sort(), [1, 2, 3]);
      assert.deepEqual([...((await changes.between('link', twoWrites, threeWrites)) ?? [])], [3]);
      assert.deepEqual(figures(), { hits: 2, misses: 3, entries: 3 });
    });
  });
}
