/**
 * The C allocator gives back what it holds free (src/ops/allocator.ts): blocks a thread freed
 * around those it keeps stay resident until trimmed, and a trim returns them to the system, off
 * the event loop; calls made while one runs share one more. The report pool trims once a thread of
 * its ends (tested in test/report-pool.test.ts), and /metrics counts the trims
 * (test/observability.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { allocatorTrims, glibc, trimAllocator } from '../src/ops/allocator.ts';

const skip = glibc() ? false : 'no glibc: nothing to trim';

test('a trim gives the system back the blocks a thread freed around those it keeps', { timeout: 60_000, skip }, (t) => {
  // In a process of its own: its resident memory is then this thread's and the test's alone.
  const script = new URL('./support/trim-thread.ts', import.meta.url).pathname;
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 0, run.stderr);
  const { kept, before, freed, trimmed, gave, ms, turns } = JSON.parse(run.stdout) as Record<string, number | boolean>;
  assert.equal(kept, 3907);
  // 250,000 blocks of 1 KiB, 98 % of them freed: resident all the same until trimmed (about 270
  // MiB more), then about 230 MiB given back.
  assert.ok((freed as number) - (before as number) > 200, `the freed blocks stay resident (${before} -> ${freed} MiB)`);
  assert.equal(gave, true);
  assert.ok((trimmed as number) < (freed as number) - 150, `the trim gave them back (${freed} -> ${trimmed} MiB)`);
  // Giving back that much takes a while (50-60 ms here; the interval of 5 ms turns 9-10 times): the
  // event loop goes on meanwhile (on it, it turned none). A trim too quick to tell says nothing.
  if ((ms as number) >= 25) assert.ok((turns as number) >= Math.max(1, Math.floor((ms as number) / 50)), `the event loop turned ${turns} times in the trim's ${ms} ms`);
  else t.diagnostic(`the trim took ${ms} ms: too quick to tell whether the event loop went on`);
});

test('calls made while a trim runs share one more after it', { skip }, async () => {
  await trimAllocator();
  const before = allocatorTrims().count;
  // Five at once (report threads ending together): the first runs, the other four share the next.
  const answers = await Promise.all(Array.from({ length: 5 }, () => trimAllocator()));
  assert.deepEqual(answers.map((answer) => typeof answer), Array(5).fill('boolean'));
  assert.equal(allocatorTrims().count, before + 2);
});
