/**
 * A report thread (pool.ts): makes one report at a time, off the event loop that answers the
 * API. It reads through a connection of its own (opened on its first report, kept for the next)
 * with the caller's visibility, exactly as a report made in the server's own thread would, and
 * sends the file back: whole, as the task's result, or (the organisation export, too large to
 * hold) in parts over the task's port, a few parts ahead of what the client has taken.
 */
import type { Readable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { Caller } from '../resources/define.ts';
import { openEngine } from '../store/engine/index.ts';
import { Reader } from '../store/reader.ts';
import { produce, REPORT_DOWNLOADS, type ReportFormat, type ReportScope } from './catalogue.ts';
import type { DateRange } from './params.ts';

/** What the server asks of a report thread; the target was found visible to the caller there. */
export interface ReportTask {
  scope: ReportScope;
  path: string;
  format: ReportFormat;
  id: number;
  caller: Caller;
  timeZone: string;
  today: string;
  range: DateRange;
  comments: boolean;
  preview: boolean;
  /** Parts of a streamed file go out here; `more` (a part was taken) and `abort` come in. */
  port: MessagePort;
}

export type ReportResult = { type: string; bytes: Uint8Array } | { type: string; streamed: true };

/** What a port carries to the server: that a stream starts, its parts, and its end. */
export type PortMessage = { kind: 'start'; type: string } | { kind: 'part'; bytes: Uint8Array } | { kind: 'end' };

export interface ThreadOptions {
  databaseUrl: string;
}

/** Parts sent before the client has taken any: enough to keep a socket busy, little to hold. */
const AHEAD = 8;

let reader: Reader | undefined;
const readerOf = () => (reader ??= new Reader(openEngine((workerData as ThreadOptions).databaseUrl, { poolSize: 2, statementTimeoutMs: 0, readerThreads: 0 })));

export default async function makeReport(task: ReportTask): Promise<ReportResult> {
  const report = REPORT_DOWNLOADS.find((download) => download.scope === task.scope && download.path === task.path);
  if (!report) throw new Error(`no report ${task.scope}/${task.path}`);
  const abandoned = new AbortController();
  let taken = 0;
  let wake: (() => void) | null = null;
  task.port.on('message', (message: 'more' | 'abort') => {
    if (message === 'abort') abandoned.abort();
    else taken += 1;
    wake?.();
  });
  try {
    const lookup = readerOf().lookup(task.caller);
    const [target] = await lookup.byColumn(task.scope, 'id', [task.id]);
    if (!target) throw new Error(`${task.scope} ${task.id} is gone`);
    const context = { lookup, caller: task.caller, timeZone: task.timeZone, today: task.today, range: task.range, comments: task.comments, signal: abandoned.signal };
    const { body, type } = await produce(report, task.format, target, context, task.preview);
    // A whole file is copied to the server (a few megabytes at most: nothing beside making it).
    if (Buffer.isBuffer(body)) return { type, bytes: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
    task.port.postMessage({ kind: 'start', type } satisfies PortMessage);
    // Read part by part, and given up at once when the client leaves: the task ends then, whatever
    // the export is waiting for (it stops at its next batch), so the thread is free for the next.
    const parts = (body as Readable)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const left = new Promise<null>((resolve) => abandoned.signal.addEventListener('abort', () => resolve(null), { once: true }));
    let sent = 0;
    while (!abandoned.signal.aborted) {
      const next = await Promise.race([parts.next(), left]);
      if (next === null || next.done) break;
      const bytes = Uint8Array.from(next.value);
      task.port.postMessage({ kind: 'part', bytes } satisfies PortMessage, [bytes.buffer]);
      sent += 1;
      while (sent - taken >= AHEAD && !abandoned.signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
    }
    if (abandoned.signal.aborted) (body as Readable).destroy();
    task.port.postMessage({ kind: 'end' } satisfies PortMessage);
    return { type, streamed: true };
  } finally {
    task.port.close();
  }
}
