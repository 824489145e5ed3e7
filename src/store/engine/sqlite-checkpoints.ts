/**
 * Checkpoints off the event loop. SQLite copies the write-ahead log back into the database file
 * on the connection whose commit takes the log past `wal_autocheckpoint` pages (1,000), inside
 * that commit: at scale 100 with 5 % writes, a worker's commits took 0.3 ms at the median and
 * 25–60 ms every twenty-fifth or so, the event loop held all that time (4.5 % of it spent in
 * commits). A thread of the process checkpoints instead, twice a second (sqlite-checkpoint-thread.ts):
 * commits 0.3 ms at the median, 5 ms at the 99th percentile. The service's connection keeps a
 * bound of its own, ten times SQLite's, for a thread that falls behind.
 */
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { threadStart } from './threads.ts';

const CHECKPOINT_EVERY_MS = 500;
/** Pages of log past which the service's own connection checkpoints, as SQLite does at 1,000. */
const OWN_CHECKPOINT_PAGES = 10_000;

/** Starts the thread for the database at `path` whose service connection is `handle`; its `close` ends it. */
export function checkpointOffLoop(path: string, handle: SQLite.Database): { close(): Promise<void> } {
  handle.pragma(`wal_autocheckpoint = ${OWN_CHECKPOINT_PAGES}`);
  const [entry, options] = threadStart('sqlite-checkpoint-thread');
  const worker = new Worker(entry, { ...options, workerData: { path, everyMs: CHECKPOINT_EVERY_MS } });
  worker.unref(); // keeps no process alive
  // A thread that cannot open the database leaves checkpoints to the service's connection.
  worker.on('error', () => undefined);
  return { close: async () => void (await worker.terminate()) };
}
