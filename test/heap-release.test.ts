/**
 * An idle thread gives back the heap a burst of work grew (src/ops/heap-release.ts): the release
 * takes the heap back to what is live and leaves the thread and its worker threads running
 * (disconnecting the inspector inside its own answer once hung the thread for good); a thread
 * kept busy is not paused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { releaseHeapWhenIdle } from '../src/ops/heap-release.ts';

const heapMiB = () => getHeapStatistics().total_heap_size / 1024 / 1024;

/** Grows the heap by about `mib` MiB of objects that are garbage once this returns. */
function burst(mib: number): void {
  const held = Array.from({ length: mib }, () => Array.from({ length: 12_000 }, (_, id) => ({ id, text: `record ${id}` })));
  assert.equal(held.length, mib);
}

describe('giving back the heap', { timeout: 60_000 }, () => {
  // Whether a release leaves its thread running: the tests that release in this process need it
  // (a release that hangs the thread would hang this file for good instead of failing).
  let releaseReturns = false;

  test('a release takes a grown heap back to what is live; a thread and its worker thread releasing go on answering', () => {
    // In a process of its own (test/support/release-threads.ts), killed past a deadline: a hung
    // thread runs none of its own timers again.
    const script = new URL('./support/release-threads.ts', import.meta.url).pathname;
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL' });
    assert.equal(run.signal, null, `the release hung the thread: killed after 15 s (${run.stdout} ${run.stderr})`);
    assert.equal(run.status, 0, run.stderr);
    const [sizes, last] = run.stdout.trim().split('\n');
    const { before, grown, released } = JSON.parse(sizes) as Record<string, number>;
    assert.ok(grown > before + 100, `the burst grew the heap (${before} -> ${grown} MiB)`);
    assert.ok(released < before + (grown - before) / 4, `released ${grown} -> ${released} MiB`);
    assert.equal(last, 'answered');
    releaseReturns = true;
  });

  test('released once the activity stops for the idle time, not while it goes on', async (t) => {
    if (!releaseReturns) return t.skip('a release hangs its thread (above)');
    let activity = 0;
    let releases = 0;
    const stop = releaseHeapWhenIdle(() => activity, 50, () => (releases += 1));
    try {
      const before = heapMiB();
      burst(150);
      const grown = heapMiB();
      for (let tick = 0; tick < 30; tick += 1) {
        activity += 1;
        await sleep(10);
      }
      // Counted, not read off the heap: Node 24's V8 shrinks a heap by itself meanwhile.
      assert.equal(releases, 0, 'busy: not released');
      await sleep(400);
      assert.equal(releases, 1, 'idle: released once');
      assert.ok(heapMiB() < before + (grown - before) / 4, `idle: released (${grown} -> ${heapMiB()} MiB)`);
    } finally {
      stop();
    }
  });
});
