/**
 * Run as a process of its own by test/allocator.test.ts: a worker thread allocates about 100 MiB
 * of small native blocks and keeps one in 64, freeing the rest (as a report thread's buffers are
 * freed around what lives on), then idles; this thread notes the process's resident memory before,
 * with the thread's freed blocks, and after `trimAllocator()`. Prints them in MiB, whether the
 * trim said it gave any back, how long it took and how often the event loop turned meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { trimAllocator } from '../../src/ops/allocator.ts';

const BLOCKS = 100_000;
const rssMiB = () => Math.round(process.memoryUsage.rss() / 1024 / 1024);

// Plain JavaScript, so that the thread holds no more than the blocks: `Buffer.alloc` never uses
// Node's pool of small buffers, each is a block of the C allocator of its own, in the arena of the
// thread making it.
const thread = `
  const { parentPort } = require('node:worker_threads');
  require('node:v8').setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc');
  const kept = [];
  let blocks = Array.from({ length: ${BLOCKS} }, () => Buffer.alloc(1024, 1));
  blocks.forEach((block, index) => index % 64 === 0 && kept.push(block));
  blocks = null;
  // The blocks of garbage Buffers are freed by the collections after the one that finds them.
  gc();
  gc();
  setTimeout(() => {
    gc();
    parentPort.postMessage(kept.length);
  }, 500);
  setInterval(() => kept.length, 60_000);
`;

// koffi loaded (on the event loop) before the trim is timed.
await import('koffi');
const before = rssMiB();
const worker = new Worker(thread, { eval: true });
const kept = await new Promise<number>((resolve) => worker.once('message', resolve));
const freed = rssMiB();
// The event loop's turns while the trim runs (off it, on a thread of libuv's pool).
let turns = 0;
const turning = setInterval(() => (turns += 1), 5);
const started = performance.now();
const gave = await trimAllocator();
const ms = Math.round(performance.now() - started);
clearInterval(turning);
await sleep(50);
console.log(JSON.stringify({ kept, before, freed, trimmed: rssMiB(), gave, ms, turns }));
await worker.terminate();
