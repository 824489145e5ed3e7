/**
 * Reader threads of the embedded engine. better-sqlite3 runs a statement to its end on the
 * thread that calls it; a count over a large filtered list, or a page deep in a long one, would
 * stop every other request meanwhile. Such reads run here instead, each thread with a read-only
 * connection of its own (WAL lets them read beside the writer), while the event loop goes on.
 */
import { Worker } from 'node:worker_threads';
import type { IdSet } from '../idset.ts';
import type { Columns, IdsTallied, Tally } from './engine.ts';
import { StatementTimeout, type ReadReply, type ReadRequest } from './sqlite-setup.ts';
import { threadStart } from './threads.ts';

interface Pending {
  request: ReadRequest;
  resolve(rows: Columns[] | Int32Array | Tally | IdsTallied): void;
  reject(error: Error): void;
}

/** Turns a reply's rows (arrays) into objects of one shape, built the way the engine builds its own. */
export type RowsBuilder = (columns: string[], rows: unknown[][]) => Columns[];

export class SqliteReaders {
  private readonly workers: Worker[] = [];
  /** Threads running no read. */
  private readonly idle: Worker[] = [];
  /** Reads waiting for a thread, oldest first. */
  private readonly queued: Pending[] = [];
  /** The read each busy thread runs. */
  private readonly running = new Map<Worker, Pending>();
  private nextId = 0;
  private readonly path: string;
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly build: RowsBuilder;

  constructor(path: string, size: number, timeoutMs: number, build: RowsBuilder) {
    this.path = path;
    this.size = size;
    this.timeoutMs = timeoutMs;
    this.build = build;
  }

  /** The rows of a statement, read on one of the threads (started on first use); `among`: the set `rsr_among` checks. */
  read(sql: string, parameters: readonly unknown[], among?: IdSet): Promise<Columns[]> {
    return this.send({ sql, parameters, among: among?.blocks }) as Promise<Columns[]>;
  }

  /** The first column of a statement's rows, as ids. */
  readIds(sql: string, parameters: readonly unknown[]): Promise<Int32Array> {
    return this.send({ sql, parameters, ids: true }) as Promise<Int32Array>;
  }

  /** The first column's values, tallied (engine.ts, Tally). */
  tally(sql: string, parameters: readonly unknown[]): Promise<Tally> {
    return this.send({ sql, parameters, tally: true }) as Promise<Tally>;
  }

  /** The first column as ids and the second's values tallied (engine.ts, IdsTallied). */
  readIdsTallied(sql: string, parameters: readonly unknown[]): Promise<IdsTallied> {
    return this.send({ sql, parameters, idsTallied: true }) as Promise<IdsTallied>;
  }

  private send(request: Omit<ReadRequest, 'id'>): Promise<Columns[] | Int32Array | Tally | IdsTallied> {
    this.start();
    return new Promise((resolve, reject) => {
      this.queued.push({ request: { id: (this.nextId += 1), ...request }, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Hands the oldest waiting reads to idle threads. A read waits for the first thread to finish,
   * not for the one it was sent to: sent at once to the thread with the fewest reads, a page of
   * 2 ms queued behind a count of 600 ms while the other thread freed up many times over.
   */
  private dispatch(): void {
    while (this.idle.length > 0 && this.queued.length > 0) {
      const worker = this.idle.pop()!;
      const read = this.queued.shift()!;
      this.running.set(worker, read);
      // A read under way keeps the process alive (a command waiting for it has nothing else to).
      worker.ref();
      worker.postMessage(read.request);
    }
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    this.idle.length = 0;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Starts the threads, at the first read. */
  private start(): void {
    while (this.workers.length < this.size) {
      const [entry, options] = threadStart('sqlite-thread');
      const worker = new Worker(entry, { ...options, workerData: { path: this.path, timeoutMs: this.timeoutMs } });
      worker.on('message', (reply: ReadReply) => this.settle(worker, reply));
      worker.on('error', (error) => this.failAll(error));
      worker.unref(); // an idle reader keeps no process alive (dispatch refs it while it works)
      this.workers.push(worker);
      this.idle.push(worker);
    }
  }

  private settle(worker: Worker, reply: ReadReply): void {
    const waiting = this.running.get(worker);
    if (!waiting || waiting.request.id !== reply.id) return;
    this.running.delete(worker);
    worker.unref();
    this.idle.push(worker);
    this.dispatch();
    if ('error' in reply) {
      const error = reply.error.timedOut ? new StatementTimeout(this.timeoutMs) : Object.assign(new Error(reply.error.message), { code: reply.error.code });
      waiting.reject(error);
    } else if ('ids' in reply) {
      waiting.resolve(reply.ids);
    } else if ('tally' in reply) {
      waiting.resolve(reply.tally);
    } else if ('tallied' in reply) {
      waiting.resolve(reply.tallied);
    } else {
      waiting.resolve(this.build(reply.columns, reply.rows));
    }
  }

  /** A thread that failed (it could not open the database) fails what was sent to it, and is replaced. */
  private failAll(error: Error): void {
    for (const waiting of [...this.running.values(), ...this.queued.splice(0)]) waiting.reject(error);
    this.running.clear();
    void this.close();
  }
}
