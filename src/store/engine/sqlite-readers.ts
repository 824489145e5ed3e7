/**
 * Reader threads of the embedded engine. better-sqlite3 runs a statement to its end on the
 * thread that calls it; a count over a large filtered list, or a page deep in a long one, would
 * stop every other request meanwhile. Such reads run here instead, each thread with a read-only
 * connection of its own (WAL lets them read beside the writer), while the event loop goes on.
 */
import { Worker } from 'node:worker_threads';
import type { Columns } from './engine.ts';
import { StatementTimeout, type ReadReply, type ReadRequest } from './sqlite-setup.ts';

/** Running from the TypeScript sources, the thread registers tsx before it loads its own. */
const fromSources = import.meta.url.endsWith('.ts');
const THREAD = new URL(fromSources ? './sqlite-thread.ts' : './sqlite-thread.js', import.meta.url);
const threadStart = (): [string | URL, { eval: boolean }] => fromSources
  ? [`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(THREAD.href)}); })`, { eval: true }]
  : [THREAD, { eval: false }];

interface Pending {
  resolve(rows: Columns[] | Int32Array): void;
  reject(error: Error): void;
  worker: Worker;
}

/** Turns a reply's rows (arrays) into objects of one shape, built the way the engine builds its own. */
export type RowsBuilder = (columns: string[], rows: unknown[][]) => Columns[];

export class SqliteReaders {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  /** Reads under way per thread. */
  private readonly busy = new Map<Worker, number>();
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

  /** The rows of a statement, read on one of the threads (started on first use). */
  read(sql: string, parameters: readonly unknown[]): Promise<Columns[]> {
    return this.send({ sql, parameters }) as Promise<Columns[]>;
  }

  /** The first column of a statement's rows, as ids. */
  readIds(sql: string, parameters: readonly unknown[]): Promise<Int32Array> {
    return this.send({ sql, parameters, ids: true }) as Promise<Int32Array>;
  }

  private send(request: Omit<ReadRequest, 'id'>): Promise<Columns[] | Int32Array> {
    const worker = this.worker();
    const id = (this.nextId += 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker });
      // A read under way keeps the process alive (a command waiting for it has nothing else to).
      this.busy.set(worker, (this.busy.get(worker) ?? 0) + 1);
      worker.ref();
      worker.postMessage({ id, ...request } satisfies ReadRequest);
    });
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /**
   * The thread with the fewest reads under way (each runs one statement at a time): a read is not
   * queued behind a long count while another thread is idle. All start at the first read.
   */
  private worker(): Worker {
    while (this.workers.length < this.size) {
      const [entry, options] = threadStart();
      const worker = new Worker(entry, { ...options, workerData: { path: this.path, timeoutMs: this.timeoutMs } });
      worker.on('message', (reply: ReadReply) => this.settle(reply));
      worker.on('error', (error) => this.failAll(error));
      worker.unref(); // an idle reader keeps no process alive (read() refs it while it works)
      this.workers.push(worker);
    }
    return this.workers.reduce((idlest, worker) => ((this.busy.get(worker) ?? 0) < (this.busy.get(idlest) ?? 0) ? worker : idlest));
  }

  private settle(reply: ReadReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    const left = (this.busy.get(waiting.worker) ?? 1) - 1;
    this.busy.set(waiting.worker, left);
    if (left === 0) waiting.worker.unref();
    if ('error' in reply) {
      const error = reply.error.timedOut ? new StatementTimeout(this.timeoutMs) : Object.assign(new Error(reply.error.message), { code: reply.error.code });
      waiting.reject(error);
    } else if ('ids' in reply) {
      waiting.resolve(reply.ids);
    } else {
      waiting.resolve(this.build(reply.columns, reply.rows));
    }
  }

  /** A thread that failed (it could not open the database) fails what was sent to it, and is replaced. */
  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.busy.clear();
    void this.close();
  }
}
