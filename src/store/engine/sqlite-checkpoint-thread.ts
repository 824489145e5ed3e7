/**
 * The checkpoint thread of the embedded engine (sqlite-checkpoints.ts): a connection of its own
 * that copies the write-ahead log's committed pages back into the database file, every `everyMs`,
 * without waiting for readers or writers (PASSIVE: it copies what no reader still needs).
 */
import { workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { path, everyMs } = workerData as { path: string; everyMs: number };
const handle = new SQLite(path);
handle.pragma('busy_timeout = 0');

setInterval(() => {
  try {
    handle.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (another process checkpoints), or a disk that refuses writes: tried again next time,
    // and the service's connection checkpoints itself past its own bound.
  }
}, everyMs);
