/**
 * PostgreSQL's data versions (store/engine/postgres-watch.ts): the requests that find them
 * unknown together share one read begun since the last change, instead of each reading them (three
 * statements in five under writes); a request after a change does not share a read begun
 * before it, and sees the change. SQLite reads its versions itself once a turn (sqlite-versions.ts);
 * while a change is under way on its connection, reads do not wait for it: they read what is
 * committed, at the versions read before it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { RESOURCE_BY_NAME } from '../src/resources/index.ts';
import { insertRecord } from '../src/store/columns.ts';
import { changeData } from '../src/store/data-version.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { migrate } from '../src/store/migrations.ts';
import { testStores } from './support/server.ts';

const postgres = testStores().find((store) => store.name === 'postgres');

describe('data versions read once for the requests waiting for them (postgres)', { skip: postgres ? false : 'TEST_POSTGRES_URL is not set' }, () => {
  test('twenty requests after a change: one statement; after a change heard meanwhile, a read of their own; after a write, the write', async () => {
    const database = await postgres!.create();
    let statements = 0;
    const engine = openEngine(database.url, { onQuery: () => (statements += 1) });
    try {
      await migrate(engine);
      // Shared only while the watch listens (otherwise no change is heard of, and each reads).
      for (let waited = 0; engine.versionNow() === undefined; waited += 20) {
        assert.ok(waited < 10_000, 'the watch listens');
        await engine.version();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      engine.changed();
      let before = statements;
      const together = await Promise.all(Array.from({ length: 20 }, () => engine.version()));
      assert.equal(statements - before, 1, 'one read for all twenty');
      assert.ok(together.every((versions) => versions === together[0]));

      // A change heard while a read is under way: the requests after it do not share that read.
      engine.changed();
      before = statements;
      const heard = Array.from({ length: 5 }, () => engine.version());
      engine.changed();
      await Promise.all([...heard, ...Array.from({ length: 5 }, () => engine.version())]);
      assert.equal(statements - before, 2, 'a read for the five before the change, one for the five after');

      // A write made here: the requests after it read again, and see it.
      await changeData(engine, ['link'], async () => undefined);
      const written = Number((await engine.db.selectFrom('data_version').select('version').executeTakeFirstOrThrow()).version);
      before = statements;
      const later = await Promise.all(Array.from({ length: 5 }, () => engine.version()));
      assert.equal(statements - before, 1, 'one read for the five after the change');
      assert.deepEqual(later.map((versions) => [versions.data, versions.tables.get('link')]), Array.from({ length: 5 }, () => [written, written]));
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});

describe('reads while a change is under way on the embedded store', () => {
  test('are answered at once from what is committed, at the versions read before it; after it, the change shows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsr-versions-'));
    const engine = openEngine(`sqlite:${join(dir, 'rsr.sqlite')}`);
    const keyword = RESOURCE_BY_NAME.get('keyword')!;
    const labels = async () => (await engine.run(sql<{ label: string }>`select label from keyword order by id`.compile(engine.db))).map((row) => row.label);
    try {
      await migrate(engine);
      await changeData(engine, ['keyword'], (trx) => insertRecord(engine, trx, keyword, { label: 'Committed' }));
      engine.changed();
      const before = await engine.version();

      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const begun = new Promise<void>((resolve) => (inside = resolve));
      const change = changeData(engine, ['keyword'], async (trx) => {
        await insertRecord(engine, trx, keyword, { label: 'Uncommitted' });
        inside();
        await gate; // the change holds its transaction open, as a write awaiting its checks does
      });
      await begun;

      assert.equal(engine.versionNow(), before, 'the versions read before the change, not none');
      const waited = Symbol('waited for the change');
      const during = await Promise.race([labels(), new Promise((resolve) => setTimeout(() => resolve(waited), 10_000))]);
      assert.deepEqual(during, ['Committed'], 'read at once, without what the change wrote');
      assert.deepEqual(await engine.runLong(sql`select count(*) as n from keyword`.compile(engine.db)), [{ n: 1 }]);

      release();
      await change;
      const after = await engine.version();
      assert.ok(after.data > before.data && after.tables.get('keyword')! > before.tables.get('keyword')!, 'the change moved the versions');
      assert.deepEqual(await labels(), ['Committed', 'Uncommitted']);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
