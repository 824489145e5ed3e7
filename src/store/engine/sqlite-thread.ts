/**
 * A reader thread of the embedded engine (sqlite-readers.ts): its own read-only connection to the
 * database file, running the statements it is sent one at a time and answering with their rows
 * as arrays. A long count or a deep page then runs here while the event loop answers others.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { releaseHeap, releaseHeapWhenIdle } from '../../ops/heap-release.ts';
import { IdSet } from '../idset.ts';
import { tallyOf } from './engine.ts';
import { configure, statementCache, StatementTimeout, type ReadReply, type ReadRequest } from './sqlite-setup.ts';

const { path, timeoutMs } = workerData as { path: string; timeoutMs: number };
const handle = new SQLite(path, { readonly: true });
let deadline = Infinity;
let among: IdSet | null = null;
configure(handle, { readonly: true, timeoutMs, deadline: () => deadline, among: () => among });

const prepared = statementCache(handle);

// A deep page's or a long count's rows grow the heap; given back when the thread is idle.
let reads = 0;
releaseHeapWhenIdle(() => reads);

/**
 * A statement dropped from the cache keeps its compiled form (30–100 KiB outside the heap) until
 * its object is collected, and V8 does not count that memory: this thread's heap grows too
 * little for V8 to collect often, so dropped statements piled up (a worker's RSS grew for as long
 * as new filters came). Once as many have been dropped as the cache holds, a collection frees them.
 */
let collectedAt = 0;
let collecting = false;
function collectDroppedStatements(): void {
  if (collecting || prepared.dropped() - collectedAt < prepared.size) return;
  collecting = true;
  collectedAt = prepared.dropped();
  releaseHeap(() => (collecting = false));
}

/**
 * The statement whose one value is the JSON array of `sql`'s first column: made by SQLite, one
 * string parsed at once, it costs half of better-sqlite3 making a value of each row (at scale 100,
 * 550,000 budget items' projects: 107 against 200 ms).
 */
const tallied = (sql: string) => `with q(v) as (${sql}) select json_group_array(v) from q`;
/** So for both columns: the first as ids, the second to be tallied (engine.ts, IdsTallied). */
const idsAndTallied = (sql: string) => `with q(id, v) as (${sql}) select json_group_array(id), json_group_array(v) from q`;

/** The statement a request runs, and how its rows come. */
function statementOf({ sql, ids, tally, idsTallied }: ReadRequest) {
  if (idsTallied) return prepared(idsAndTallied(sql), 'arrays');
  if (tally) return prepared(tallied(sql), 'value');
  return prepared(sql, ids ? 'value' : 'arrays');
}

parentPort?.on('message', (request: ReadRequest) => {
  const { id, parameters, ids, tally, idsTallied, among: blocks } = request;
  reads += 1;
  let reply: ReadReply;
  among = blocks ? new IdSet(blocks) : null;
  try {
    const statement = statementOf(request);
    if (timeoutMs > 0) deadline = performance.now() + timeoutMs;
    if (ids) {
      const values = Int32Array.from(statement.all(...parameters) as number[]);
      parentPort?.postMessage({ id, ids: values } satisfies ReadReply, [values.buffer as ArrayBuffer]);
      return;
    }
    if (idsTallied) {
      const [idsJson, valuesJson] = statement.get(...parameters) as [string, string];
      const both = { ids: Int32Array.from(JSON.parse(idsJson) as number[]), tally: tallyOf(JSON.parse(valuesJson) as (number | null)[]) };
      parentPort?.postMessage({ id, tallied: both } satisfies ReadReply, [both.ids.buffer as ArrayBuffer, both.tally.values.buffer as ArrayBuffer, both.tally.counts.buffer as ArrayBuffer]);
      return;
    }
    if (tally) {
      const counted = tallyOf(JSON.parse(statement.get(...parameters) as string) as (number | null)[]);
      parentPort?.postMessage({ id, tally: counted } satisfies ReadReply, [counted.values.buffer as ArrayBuffer, counted.counts.buffer as ArrayBuffer]);
      return;
    }
    const rows = statement.all(...parameters) as unknown[][];
    reply = { id, columns: statement.columns().map((column) => column.name), rows };
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    reply = { id, error: { message, code, timedOut: error instanceof StatementTimeout } };
  } finally {
    deadline = Infinity;
    among = null;
    setImmediate(collectDroppedStatements); // after the answer is sent
  }
  parentPort?.postMessage(reply);
});
