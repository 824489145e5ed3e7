/**
 * Run as a process of its own by test/allocator.test.ts: a worker thread allocates about 250 MiB
 * of small blocks of the C allocator and frees all but one in 64 (as a report thread's buffers are
 * freed around what lives on), then idles; this thread notes the process's resident memory before,
 * with the thread's freed blocks, and after `trimAllocator()`. Prints them in MiB, whether the
 * trim said it gave any back, how long it took and how often the event loop turned meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { trimAllocator } from '../../src/ops/allocator.ts';

const BLOCKS = 250_000;
const rssMiB = () => Math.round(process.memoryUsage.rss() / 1024 / 1024);
// The thread calls malloc and free itself (through koffi), so that what is freed, and when, is
// exactly known. Buffers' blocks, freed by V8's collector when and where it chose, left the trim
// 28-114 MiB to give back from run to run (a CI run failed on 60); this way the same every time.
const thread = `
  const { parentPort } = require('node:worker_threads');
  const koffi = require('koffi');
  const libc = koffi.load('libc.so.6');
  const malloc = libc.func('void *malloc(size_t size)');
  const memset = libc.func('void *memset(void *s, int c, size_t n)');
  const free = libc.func('void free(void *p)');
  const kept = [];
  const blocks = Array.from({ length: ${BLOCKS} }, () => { const block = malloc(1024); memset(block, 1, 1024); return block; });
  blocks.forEach((block, index) => (index % 64 === 0 ? kept.push(block) : free(block)));
  parentPort.postMessage(kept.length);
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
