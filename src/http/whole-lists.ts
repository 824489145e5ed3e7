/**
 * Whole lists as files for spreadsheets: `GET /download/<list>.csv` and `/download/<list>.xlsx`,
 * every record the caller may see that matches the list's filters, in the list's ordering (the
 * same parameters as `/rest/v1/<list>/`; no page). Outside /rest/v1/, whose lists stay as the
 * original's (at most 1000 records a page). Read by one statement a batch at a time and sent as
 * it is read (store/reader.ts, `whole`; list-files.ts), never held whole; `X-Total-Count` says
 * how many records the list held when the download began. Each caller may have as many at once
 * as large pages (callers.ts), each worker reads at most WHOLE_LISTS_AT_ONCE.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../resources/define.ts';
import { RESOURCES } from '../resources/index.ts';
import { renderRecords } from '../resources/render.ts';
import { downloadsBusy } from './errors.ts';
import { csvParts, LIST_FILE_TYPES, xlsxStream, type ListFileFormat, type Records } from './list-files.ts';
import { csvOptions, listQuery } from './read-handlers.ts';
import { send, sendStream } from './respond.ts';
import { queryPairs } from './url.ts';

/** A whole list holds a database connection (PostgreSQL: a cursor) while it is sent. */
const WHOLE_LISTS_AT_ONCE = 4;
const BUSY_RETRY_SECONDS = 10;

/** How many whole lists an app is reading now. */
interface Reading {
  now: number;
}

async function download(request: FastifyRequest, reply: FastifyReply, resource: Resource, format: ListFileFormat, reading: Reading) {
  const pairs = queryPairs(request);
  const query = listQuery(resource, pairs, request.caller);
  const csv = csvOptions(format, pairs);
  const { reader, timeZone, largePages } = request.server.services;
  // As a large page of its caller (callers.ts), and one of the worker's few.
  largePages.hold(request, reply, Number.POSITIVE_INFINITY);
  if (reading.now >= WHOLE_LISTS_AT_ONCE) throw downloadsBusy(BUSY_RETRY_SECONDS);
  reading.now += 1;
  reply.raw.once('close', () => (reading.now -= 1));
  const count = await reader.count(resource, request.caller, query.filters);
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  const lookup = reader.lookup(request.caller);
  async function* records(): Records {
    for await (const rows of reader.whole(resource, request.caller, query, query.filters)) {
      yield await renderRecords(resource, rows, lookup, { caller: request.caller, timeZone });
      // SQLite reads and the socket's writes may all return at once: a turn of the event loop
      // between batches, or a long list would hold it (and every other request) until its end.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const headers = {
    'content-type': LIST_FILE_TYPES[format],
    'content-disposition': `attachment; filename="${resource.name}.${format}"`,
    'x-total-count': String(count),
    'cache-control': 'private, no-store',
  };
  if (format === 'xlsx') return sendStream(reply, xlsxStream(resource, records(), gone.signal), headers);
  // Text: compressed as it is sent when the client accepts it (respond.ts).
  return send(request, reply, { status: 200, headers, parts: () => csvParts(resource, records(), csv), whenWhole: () => undefined });
}

export function registerWholeLists(app: FastifyInstance): void {
  const reading: Reading = { now: 0 };
  for (const resource of RESOURCES) {
    for (const format of Object.keys(LIST_FILE_TYPES) as ListFileFormat[]) app.get(`/download/${resource.name}.${format}`, (request, reply) => download(request, reply, resource, format, reading));
  }
}
