/**
 * Report files are made on a bounded pool of threads (piscina; thread.ts), never on the event
 * loop that answers the API: a PDF of a large organisation or an export of hundreds of thousands
 * of rows takes seconds of CPU, which would hold up every read meanwhile.
 *
 * Beyond the pool's threads, downloads wait in line, first come first served. One caller may
 * have at most `perCaller` downloads made or waiting at once (past it: TooManyReports, a 429 with
 * Retry-After), and the line holds at most `queue` (past it: ReportsBusy, a 503), so that no one
 * caller, and no crowd, can keep the threads for itself. A client that goes away leaves the line,
 * or stops its report where the report can stop (the organisation export, between batches).
 */
import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { trimAllocator } from '../ops/allocator.ts';
import { threadArguments } from '../ops/thread-arguments.ts';
import type { PortMessage, ReportResult, ReportTask, ThreadOptions } from './thread.ts';

export interface ReportPoolOptions extends ThreadOptions {
  /** Threads making reports at once. */
  threads: number;
  /** Downloads one caller may have made or waiting at once. */
  perCaller: number;
  /** Downloads that may wait for a thread. */
  queue: number;
}

/**
 * A thread unused this long ends: a report thread holds about 60 MiB (its own heap, the PDF,
 * Excel and Word libraries, a connection), which a server making no reports need not keep. The
 * next download starts one again (about a second: 1.2 s for a first PDF that takes 0.2 s on a
 * running thread).
 */
const IDLE_THREAD_MS = 30_000;

/** How much lower than the API's threads the report threads run (nice 19: the lowest). */
const NICE = 19;

/** The seconds a refused caller is told to wait: about what a large report takes. */
export const RETRY_AFTER_SECONDS = 5;

export class TooManyReports extends Error {}
export class ReportsBusy extends Error {}

/** A file made on a thread: its media type and bytes (a stream for the exports). */
export interface MadeReport {
  type: string;
  body: Buffer | Readable;
}

/** Running from the TypeScript sources, threads load them through tsx as this process does. */
const fromSources = import.meta.url.endsWith('.ts');
const THREAD = fileURLToPath(new URL(fromSources ? './thread.ts' : './thread.js', import.meta.url));
const execArgv = () => {
  const args = threadArguments(process.execArgv);
  return fromSources && !args.some((arg) => arg.includes('tsx')) ? [...args, '--import', import.meta.resolve('tsx')] : args;
};

export class ReportPool {
  private readonly pool: Piscina<ReportTask, ReportResult>;
  private readonly options: ReportPoolOptions;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly held = new Map<string, number>();
  /** Threads of the pool: as many as asked for, at most one per core. */
  private readonly threads: number;

  constructor(options: ReportPoolOptions) {
    this.options = options;
    const threads = (this.threads = Math.max(1, Math.min(options.threads, availableParallelism())));
    this.pool = new Piscina({
      filename: THREAD, minThreads: 0, maxThreads: threads, idleTimeout: IDLE_THREAD_MS, execArgv: execArgv(),
      // The lowest priority (where the system lets a thread lower its own): a core the API wants is the API's.
      niceIncrement: NICE,
      workerData: { databaseUrl: options.databaseUrl } satisfies ThreadOptions,
    });
    // What an ended thread allocated stays with the C allocator, free but resident: given back.
    this.pool.on('workerCreate', (created: { id: number }) => {
      this.pool.threads.find((thread) => thread.threadId === created.id)?.once('exit', () => void trimAllocator());
    });
  }

  /** Downloads being made, and waiting for a thread (the metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * The report `task` describes, made on a thread once one is free, for `caller` (a key per
   * signed-in caller). `signal` is the client going away.
   */
  async make(task: Omit<ReportTask, 'port'>, caller: string, signal: AbortSignal): Promise<MadeReport> {
    const mine = this.held.get(caller) ?? 0;
    if (mine >= this.options.perCaller) throw new TooManyReports();
    if (this.running >= this.threads && this.waiting.length >= this.options.queue) throw new ReportsBusy();
    this.held.set(caller, mine + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.held.get(caller) ?? 1) - 1;
      if (left > 0) this.held.set(caller, left);
      else this.held.delete(caller);
    };
    try {
      await this.turn(signal);
    } catch (error) {
      release();
      throw error;
    }
    let free = false;
    const finished = () => {
      if (free) return;
      free = true;
      release();
      this.running -= 1;
      this.waiting.shift()?.();
    };
    try {
      // A client that left while its turn came (an abort seen before `run` listens for it).
      if (signal.aborted) throw signal.reason;
      return await this.run(task, signal, finished);
    } catch (error) {
      finished();
      throw error;
    }
  }

  /** Resolves when a thread is this download's; rejects when the client leaves first. */
  private async turn(signal: AbortSignal): Promise<void> {
    if (this.running < this.threads) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', leave);
        this.running += 1;
        resolve();
      };
      const leave = () => {
        const place = this.waiting.indexOf(go);
        if (place >= 0) this.waiting.splice(place, 1);
        reject(signal.reason);
      };
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(go);
    });
  }

  /** Runs the task; `finished` is called once the thread is free again (for a stream: after its last part). */
  private async run(task: Omit<ReportTask, 'port'>, signal: AbortSignal, finished: () => void): Promise<MadeReport> {
    const { port1: ours, port2: theirs } = new MessageChannel();
    const stop = () => ours.postMessage('abort');
    signal.addEventListener('abort', stop, { once: true });
    const result = this.pool.run({ ...task, port: theirs }, { transferList: [theirs] });
    const cleanUp = () => {
      signal.removeEventListener('abort', stop);
      ours.close();
    };
    // One listener from the start: a port hands over every message it holds at once.
    const body = new Readable({ read: () => ours.postMessage('more') });
    let started: (type: string) => void = () => undefined;
    const streamStarts = new Promise<string>((resolve) => (started = resolve));
    ours.on('message', (message: PortMessage) => {
      if (message.kind === 'start') started(message.type);
      else if (message.kind === 'part') body.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
      else {
        body.push(null);
        cleanUp();
      }
    });
    // The first word from the thread: a whole file (its result), or that a stream starts.
    const first = await Promise.race([result.then((made) => ({ made })), streamStarts.then((type) => ({ type }))]).catch((error: unknown) => {
      cleanUp();
      throw error;
    });
    if ('made' in first && 'bytes' in first.made) {
      cleanUp();
      finished();
      return { type: first.made.type, body: Buffer.from(first.made.bytes.buffer, first.made.bytes.byteOffset, first.made.bytes.byteLength) };
    }
    // The thread is free once its task ends; the port, once the last part is read from it.
    result.then(
      () => finished(),
      (error: Error) => {
        cleanUp();
        finished();
        body.destroy(error);
      },
    );
    // A short stream may have ended before its first message was read: its type is on the way.
    return { type: 'made' in first ? await streamStarts : first.type, body };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
