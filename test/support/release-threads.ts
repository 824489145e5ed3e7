/**
 * Run as a process of its own by test/heap-release.test.ts: this thread grows its heap and gives
 * it back, then it and a worker thread of it each release while they exchange messages, as the
 * service's event loop and its SQLite reader threads do. It prints the heap's sizes in MiB and
 * `answered`; a release that hangs a thread never prints.
 */
import { getHeapStatistics } from 'node:v8';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { releaseHeap } from '../../src/ops/heap-release.ts';

const released = () => new Promise<void>((done) => releaseHeap(done));
const heapMiB = () => Math.round(getHeapStatistics().total_heap_size / 1024 / 1024);

/** Grows the heap by about `mib` MiB of objects that are garbage once this returns. */
function burst(mib: number): number {
  const held = Array.from({ length: mib }, () => Array.from({ length: 12_000 }, (_, id) => ({ id, text: `record ${id}` })));
  return held.length;
}

if (isMainThread) {
  const before = heapMiB();
  burst(150);
  const grown = heapMiB();
  await released();
  console.log(JSON.stringify({ before, grown, released: heapMiB() }));
  // A thread loads TypeScript once tsx is registered in it (as sqlite-readers.ts starts its own).
  const worker = new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`, { eval: true });
  const answer = (n: number) => new Promise((done) => {
    worker.once('message', done);
    worker.postMessage(n);
  });
  for (let n = 0; n < 3; n += 1) {
    await released();
    await answer(n);
  }
  await new Promise((done) => setTimeout(done, 10));
  console.log('answered');
  await worker.terminate();
} else {
  parentPort?.on('message', (n: number) => releaseHeap(() => parentPort?.postMessage(n)));
}
