/**
 * The embedded engine's checkpoints (sqlite-checkpoints.ts): the write-ahead log is copied back
 * into the database file by a thread of the process, not inside a commit on the event loop.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { openEngine } from '../src/store/engine/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rsr-checkpoints-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** 400 pages of rows (4 KiB each), written in one commit: fewer than SQLite's own bound of 1,000. */
async function writePages(engine: ReturnType<typeof openEngine>): Promise<void> {
  await engine.db.executeQuery(CompiledQuery.raw('create table filler (id integer primary key, body text)'));
  await engine.db.transaction().execute(async (trx) => {
    for (let index = 0; index < 400; index += 1) await trx.executeQuery(CompiledQuery.raw(`insert into filler (body) values ('${'x'.repeat(4000)}')`));
  });
}

test('the log\'s pages reach the database file within a second of the commit, though no commit took the log past 1,000 pages', async () => {
  const path = join(dir, 'threaded.sqlite');
  const engine = openEngine(`sqlite:${path}`, { readerThreads: 2 });
  try {
    const [{ wal_autocheckpoint: bound }] = (await engine.db.executeQuery<{ wal_autocheckpoint: number }>(CompiledQuery.raw('pragma wal_autocheckpoint'))).rows;
    assert.equal(bound, 10_000, 'the service\'s connection checkpoints only past its own, larger bound');
    await writePages(engine);
    const written = statSync(path).size;
    assert.ok(written < 400 * 4096, `before the checkpoint the rows are in the log only (${written} bytes)`);
    const deadline = Date.now() + 3000;
    while (statSync(path).size < 400 * 4096 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(statSync(path).size >= 400 * 4096, `checkpointed by the thread (${statSync(path).size} bytes)`);
  } finally {
    await engine.close();
  }
});

test('without reader threads (no thread at all), SQLite checkpoints inside commits as it does by default', async () => {
  const path = join(dir, 'plain.sqlite');
  const engine = openEngine(`sqlite:${path}`, { readerThreads: 0 });
  try {
    const [{ wal_autocheckpoint: bound }] = (await engine.db.executeQuery<{ wal_autocheckpoint: number }>(CompiledQuery.raw('pragma wal_autocheckpoint'))).rows;
    assert.equal(bound, 1000);
    await writePages(engine);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.ok(statSync(path).size < 400 * 4096, 'still in the log: no thread copied it');
  } finally {
    await engine.close();
  }
});
