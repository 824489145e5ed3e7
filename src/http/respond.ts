/**
 * How every answer leaves the service, in one step: the bytes of a representation (JSON, XML or
 * CSV), its ETag, Vary, compression, content type and disposition, and 304 for a matching
 * If-None-Match. Fresh answers, cached answers (response-cache.ts) and errors all end here, so a
 * header one of them carries, all of them carry.
 */
import { createHash } from 'node:crypto';
import { pipeline, Readable, type Transform } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createDeflate, createGzip, deflate, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { ApiError } from './errors.ts';
import type { Format } from './negotiate.ts';
import { renderText, textParts, type Rendering, type TextParts } from './renderers.ts';

/** Smaller bodies go as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;
const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
type Encoding = (typeof ENCODINGS)[number];
const PREFERENCE = [...ENCODINGS, 'identity'];
const BROTLI = { params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_QUALITY]: 4 } };
// Off the event loop: a page of 1000 records compresses while other requests are answered.
const COMPRESS: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => promisify(brotliCompress)(body, BROTLI),
  gzip: promisify(gzip),
  deflate: promisify(deflate),
};
const COMPRESSING: Record<Encoding, () => Transform> = {
  br: () => createBrotliCompress(BROTLI),
  gzip: () => createGzip(),
  deflate: () => createDeflate(),
};

/** An answer as bytes, ready to be sent any number of times, compressed once per encoding. */
export interface Representation {
  status: number;
  /** Content type and what the route adds (Allow, Location, Link, Content-Disposition, Retry-After). */
  headers: Record<string, string>;
  body: Buffer;
  /** A strong hash of the body; errors have none. */
  etag: string | null;
  compressed: Partial<Record<Encoding, Buffer>>;
  /** The headers it is sent with, per encoding (headersOf). */
  sent?: Partial<Record<Encoding | 'identity', Record<string, string>>>;
  /** Told of each compressed body added, so a cache holding this can count its bytes. */
  grew?: (bytes: number) => void;
}

const CONTENT_TYPE: Record<Format, string> = { json: 'application/json', xml: 'application/xml; charset=utf-8', csv: 'text/csv; charset=utf-8' };
/** Headers a route sets on the reply before answering, kept with the representation. */
const ROUTE_HEADERS = ['allow', 'location', 'link'];

function routeHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ROUTE_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;

/** A representation of `body`; successful answers carry the ETag of their bytes, errors none. */
function representation(status: number, headers: Record<string, string>, body: Buffer, tagged = true): Representation {
  return { status, headers, body, etag: tagged ? etagOf(body) : null, compressed: {} };
}

/**
 * A successful answer in the format asked for. JSON is written by the route's response schema
 * (field order and types as declared); XML and CSV by renderers.ts.
 */
export function represent(reply: FastifyReply, format: Format, value: Record<string, unknown>, rendering: Rendering): Representation {
  const text = format === 'json' ? (reply.serialize(value) as string) : renderText(format, value, rendering);
  return formatted(reply, format, Buffer.from(text), rendering);
}

/** The bytes of an answer in `format`, with its content type (and a CSV's file name). */
function formatted(reply: FastifyReply, format: Format, body: Buffer, rendering: Rendering): Representation {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPE[format], ...routeHeaders(reply) };
  if (format === 'csv') headers['content-disposition'] = `attachment; filename="${rendering.filename}.csv"`;
  return representation(reply.statusCode, headers, body);
}

/** A list this long is written to the socket as it is serialized (representList). */
const LARGE_LIST = 300;
const CHUNK = 100;

/**
 * A long answer sent as it is made: its parts go to the socket one by one (chunked, compressed
 * as a stream), so a page of 1000 records (1 MB) neither holds up other requests while it is
 * serialized nor waits whole in memory before its first byte leaves. Its ETag is not known before
 * the last part, so it is sent without one. JSON, XML and CSV alike: CSV, the slowest to write,
 * took 15 ms of the event loop at once for a page of 1000 budget items.
 */
export interface Streamed {
  status: number;
  headers: Record<string, string>;
  parts: () => AsyncGenerator<Buffer>;
  /**
   * Asks, before it is sent, for the finished representation (with its ETag) once every part is
   * made: for the response cache to send again. Unasked, no part is kept after it is written.
   */
  whenWhole(use: (whole: Representation) => void): void;
}

/**
 * A list answer, as `represent` makes it, except that a long list is streamed: for JSON the
 * envelope by the route's schema, then each record by the record's (`serializeRecord`); for XML
 * and CSV the parts renderers.ts makes (`textParts`); a hundred records at a time. The bytes are
 * those `represent` would make.
 */
export function representList(reply: FastifyReply, format: Format, value: Record<string, unknown>, rendering: Rendering & { listKey: string }, serializeRecord: (record: unknown) => string): Representation | Streamed {
  const list = value[rendering.listKey] as unknown[];
  if (list.length < LARGE_LIST) return represent(reply, format, value, rendering);
  const { head, part, tail } = format === 'json' ? jsonParts(reply, value, rendering.listKey, serializeRecord) : textParts(format, value, rendering.listKey, rendering.csv);
  const { status, headers } = formatted(reply, format, Buffer.alloc(0), rendering);
  let use: ((whole: Representation) => void) | undefined;
  async function* parts(): AsyncGenerator<Buffer> {
    const made: Buffer[] = [];
    const kept = (text: string) => {
      const bytes = Buffer.from(text);
      if (use) made.push(bytes);
      return bytes;
    };
    if (head) yield kept(head);
    for (let start = 0; start < list.length; start += CHUNK) {
      // A turn of the event loop between parts: other requests are answered meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      yield kept(part(start, Math.min(list.length, start + CHUNK)));
    }
    if (tail) yield kept(tail);
    use?.(representation(status, headers, Buffer.concat(made)));
  }
  return { status, headers, parts, whenWhole: (callback) => (use = callback) };
}

/** A JSON list in parts: the envelope by the route's schema around the records, each by its own. */
function jsonParts(reply: FastifyReply, value: Record<string, unknown>, listKey: string, serializeRecord: (record: unknown) => string): TextParts {
  const list = value[listKey] as unknown[];
  // The list is the envelope's last member: its text ends in `[]}`, where the records go.
  const envelope = reply.serialize({ ...value, [listKey]: [] }) as string;
  if (!envelope.endsWith('[]}')) throw new Error(`the list is not the last member of the envelope: ${envelope}`);
  return { head: envelope.slice(0, -2), part: (start, end) => `${start > 0 ? ',' : ''}${list.slice(start, end).map(serializeRecord).join(',')}`, tail: ']}' };
}

/** A file (a report): its bytes and headers (content type, disposition, a cookie). */
export function representFile(reply: FastifyReply, body: Buffer, headers: Record<string, string>): Representation {
  return representation(reply.statusCode, headers, body);
}

/**
 * A file too large to hold, sent as it is made: no ETag (its bytes are not known before they
 * are sent) and no compression (the formats streamed are zip files already).
 */
export function sendStream(reply: FastifyReply, body: Readable, headers: Record<string, string>): FastifyReply {
  return reply.code(200).headers(varied(reply, { ...headers, vary: 'Accept' })).send(body);
}

/**
 * What the answer also varies by, set on the reply before (CORS names `Origin` when the answer
 * depends on it: guards.ts), kept beside the representation's own Vary.
 */
function varied(reply: FastifyReply, headers: Record<string, string>): Record<string, string> {
  const prior = reply.getHeader('vary');
  return prior === undefined ? headers : { ...headers, vary: `${headers.vary}, ${String(prior)}` };
}

/** A JSON answer not described by a route schema (the API root, OPTIONS). */
export function representJson(reply: FastifyReply, value: unknown): Representation {
  return representation(reply.statusCode, { 'content-type': CONTENT_TYPE.json, ...routeHeaders(reply) }, Buffer.from(JSON.stringify(value)));
}

/** An error from the catalogue (errors.ts); route headers only where the original sends them. */
export function representError(reply: FastifyReply, error: ApiError): Representation {
  const headers = { 'content-type': CONTENT_TYPE.json, ...(error.withRouteHeaders ? routeHeaders(reply) : {}), ...error.headers };
  return representation(error.status, headers, Buffer.from(JSON.stringify(error.body)), false);
}

/** Sends a representation as this request asks for it: compressed or not, or 304; a streamed one as it is made. */
export function send(request: FastifyRequest, reply: FastifyReply, answer: Representation | Streamed): FastifyReply | Promise<FastifyReply> {
  // What the route set on the reply counts only as far as the representation kept it.
  for (const name of ROUTE_HEADERS) reply.removeHeader(name);
  if ('parts' in answer) return sendParts(request, reply, answer);
  const encoding = answer.body.length >= COMPRESS_THRESHOLD ? encodingFor(request) : null;
  if (answer.etag && matches(request.headers['if-none-match'], answer.etag)) {
    const { 'content-type': _type, 'content-disposition': _disposition, ...kept } = headersOf(answer, encoding);
    return reply.code(304).headers(varied(reply, kept)).send();
  }
  reply.code(answer.status).headers(varied(reply, headersOf(answer, encoding)));
  if (!encoding) return reply.send(answer.body);
  const ready = answer.compressed[encoding];
  if (ready) return reply.send(ready);
  return COMPRESS[encoding](answer.body).then((compressed) => {
    if (!answer.compressed[encoding]) {
      answer.compressed[encoding] = compressed;
      answer.grew?.(compressed.length);
    }
    return reply.send(compressed);
  });
}

/** A streamed answer: chunked, and compressed as a stream when the client accepts it. */
function sendParts(request: FastifyRequest, reply: FastifyReply, answer: Streamed): FastifyReply {
  const encoding = encodingFor(request);
  const headers: Record<string, string> = { ...answer.headers, vary: encoding ? 'Accept, Accept-Encoding' : 'Accept' };
  if (encoding) headers['content-encoding'] = encoding;
  const body = Readable.from(answer.parts(), { objectMode: false });
  if (!encoding) return reply.code(answer.status).headers(varied(reply, headers)).send(body);
  const compressed = COMPRESSING[encoding]();
  // A client that leaves ends both streams (and the serializing with them).
  pipeline(body, compressed, () => undefined);
  return reply.code(answer.status).headers(varied(reply, headers)).send(compressed);
}

/**
 * The headers a representation is sent with, made once per encoding: Vary names Accept-Encoding
 * only on compressed answers (an identity body suits every client, and the seed's `Vary: Accept`
 * stays exact for clients that ask for no compression).
 */
function headersOf(answer: Representation, encoding: Encoding | null): Record<string, string> {
  const key = encoding ?? 'identity';
  const made = answer.sent?.[key];
  if (made) return made;
  const headers: Record<string, string> = { ...answer.headers, vary: encoding ? 'Accept, Accept-Encoding' : 'Accept' };
  if (answer.etag) headers.etag = answer.etag;
  if (encoding) headers['content-encoding'] = encoding;
  (answer.sent ??= {})[key] = headers;
  return headers;
}

/** An answer without a body (204 after a delete, 301 to the slashed path). */
export function sendEmpty(reply: FastifyReply, status: number, headers: Record<string, string> = {}): FastifyReply {
  reply.removeHeader('content-type');
  return reply.code(status).headers(varied(reply, { ...headers, vary: 'Accept' })).send();
}

/** If-None-Match as RFC 9110 reads it: `*`, or a list of tags compared weakly. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The encoding the client prefers among ours; none for identity or `x-no-compression`. */
function encodingFor(request: FastifyRequest): Encoding | null {
  if (request.headers['x-no-compression'] !== undefined || !request.headers['accept-encoding']) return null;
  // negotiator 1.0 breaks ties by `preferred` (@types/negotiator still describes 0.6).
  const negotiator = new Negotiator(request) as unknown as { encoding(available: string[], options: { preferred: string[] }): string | undefined };
  const chosen = negotiator.encoding(PREFERENCE, { preferred: PREFERENCE });
  return chosen && chosen !== 'identity' ? (chosen as Encoding) : null;
}
