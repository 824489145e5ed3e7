/**
 * The embedded engine's reader threads (sqlite-readers.ts) hand each read to the first thread
 * that is free: a short read never waits behind a long one while another thread could take it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { openEngine } from '../src/store/engine/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rsr-readers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A read that counts to `to` (SQLite walks every step: time grows with `to`). */
const counting = (to: number) => CompiledQuery.raw(`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${to}) select count(*) as n from c`);

test('a short read waits for the first free thread, not behind a long read on the thread it was sent to', async () => {
  const engine = openEngine(`sqlite:${join(dir, 'readers.sqlite')}`, { readerThreads: 2 });
  try {
    // Both threads started and ready.
    await Promise.all([engine.runLong(counting(1)), engine.runLong(counting(1))]);
    const finished: string[] = [];
    const read = (name: string, to: number) => engine.runLong(counting(to)).then(([row]) => {
      finished.push(name);
      return Number(row.n);
    });
    // Both threads busy: the long one's for a second or more, the other's for milliseconds. Sent
    // to the thread with the fewest reads under way (a tie: the long one's), the short read
    // answered after the long one.
    const reads = [read('long', 6_000_000), read('brief', 20_000), read('short', 2)];
    assert.deepEqual(await Promise.all(reads), [6_000_000, 20_000, 2]);
    assert.deepEqual(finished, ['brief', 'short', 'long']);
  } finally {
    await engine.close();
  }
});

test('reads sent while every thread is busy all get their own answers, in any number', async () => {
  const engine = openEngine(`sqlite:${join(dir, 'many.sqlite')}`, { readerThreads: 2 });
  try {
    const sizes = Array.from({ length: 40 }, (_, index) => 1 + ((index * 7919) % 5000));
    const counted = await Promise.all(sizes.map(async (to) => Number((await engine.runLong(counting(to)))[0].n)));
    assert.deepEqual(counted, sizes);
    const ids = await engine.readIds(CompiledQuery.raw('select 5 union all select 3'));
    assert.deepEqual([...ids], [5, 3]);
  } finally {
    await engine.close();
  }
});
