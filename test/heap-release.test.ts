/**
 * An idle thread gives back the heap a burst of work grew (src/ops/heap-release.ts): the release
 * takes the heap back to what is live and leaves the thread running (disconnecting the inspector
 * inside its own answer once hung the thread for good); a thread kept busy is not paused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { releaseHeap, releaseHeapWhenIdle } from '../src/ops/heap-release.ts';

const MIB = 1024 * 1024;
const heapMiB = () => getHeapStatistics().total_heap_size / MIB;

/** Grows the heap by about `mib` MiB of objects that are garbage once this returns. */
function burst(mib: number): void {
  const held: { id: number; text: string }[][] = [];
  for (let block = 0; block < mib; block += 1) held.push(Array.from({ length: 12_000 }, (_, id) => ({ id, text: `record ${id}` })));
  assert.ok(held.length === mib);
}

describe('giving back the heap', { timeout: 30_000 }, () => {
  test('a release takes a grown heap back to what is live, and the thread goes on', async () => {
    const before = heapMiB();
    burst(150);
    const grown = heapMiB();
    assert.ok(grown > before + 100, `the burst grew the heap (${before} -> ${grown} MiB)`);
    await new Promise<void>((done) => releaseHeap(done));
    const released = heapMiB();
    assert.ok(released < before + (grown - before) / 4, `released ${grown} -> ${released} MiB`);
    // The thread still runs its timers and promises after the release (a release that hung it
    // never got here: this test timed out).
    assert.equal(await sleep(10, 'after'), 'after');
    await new Promise<void>((done) => releaseHeap(done));
  });

  test('released once the activity stops for the idle time, not while it goes on', async () => {
    let activity = 0;
    const stop = releaseHeapWhenIdle(() => activity, 50);
    try {
      const before = heapMiB();
      burst(150);
      const grown = heapMiB();
      for (let tick = 0; tick < 30; tick += 1) {
        activity += 1;
        await sleep(10);
      }
      assert.ok(heapMiB() > grown - 16, `busy: not released (${grown} -> ${heapMiB()} MiB)`);
      await sleep(400);
      assert.ok(heapMiB() < before + (grown - before) / 4, `idle: released (${grown} -> ${heapMiB()} MiB)`);
    } finally {
      stop();
    }
  });
});
