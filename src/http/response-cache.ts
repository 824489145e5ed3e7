/**
 * Finished JSON bodies of GET requests, kept per instance and served again while the data
 * version in the database is the one they were made at: exact after any write, from any
 * instance. A repeated request is answered from an onRequest hook with its stored ETag, so it
 * costs one indexed read and the write of a prepared buffer (issue: cache what is cacheable).
 * Bodies are compressed once per encoding a client asks for, not once per answer.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { Engine } from '../store/engine/index.ts';
import { origin } from './url.ts';

const MAX_ENTRIES = 2000;
const MAX_BYTES = 32 * 1024 * 1024;

/** As the compression plugin has them (app.ts): smaller bodies go as they are. */
export const COMPRESS_THRESHOLD = 1024;
export const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
type Encoding = (typeof ENCODINGS)[number];
const PREFERENCE = [...ENCODINGS, 'identity'];
const COMPRESS: Record<Encoding, (body: Buffer) => Buffer> = {
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => gzipSync(body),
  deflate: (body) => deflateSync(body),
};

interface Entry {
  key: string;
  version: number;
  /** Encoded once: writing a string would encode it to UTF-8 again on every answer. */
  body: Buffer;
  compressed: Partial<Record<Encoding, Buffer>>;
  etag: string;
  allow: string;
}

const size = (entry: Entry) => Object.values(entry.compressed).reduce((total, body) => total + body.length, entry.body.length);

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  private readonly engine: Engine;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /**
   * Everything a body depends on: the URL as addressed (its origin as the links show it), who
   * asks (per-user fields, not only visibility) and the Accept header, which may choose XML or
   * CSV for the same URL (only JSON bodies are kept).
   */
  private key(request: FastifyRequest): string {
    const caller = request.caller;
    const who = caller.isAdmin ? 'admin' : (caller.userId ?? 'anonymous');
    return `${origin(request)}${request.url}|${who}|${request.headers.accept ?? ''}`;
  }

  /** Answers a GET (or HEAD: Node sends no body then) from the cache at an unchanged data version. */
  register(app: FastifyInstance): void {
    // A callback hook: a hit on SQLite is answered without a single promise.
    app.addHook('onRequest', (request, reply, done) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || this.entries.size === 0) return done();
      const kept = this.entries.get(this.key(request));
      if (!kept) return done();
      // Most recently used last: eviction drops the entries longest unused.
      this.entries.delete(kept.key);
      this.entries.set(kept.key, kept);
      let now: number | undefined;
      try {
        now = this.engine.versionNow();
      } catch (error) {
        return done(error as Error);
      }
      if (now !== undefined) return now === kept.version ? this.answer(request, reply, kept) : done();
      this.engine.version().then((version) => (version === kept.version ? this.answer(request, reply, kept) : done()), done);
    });
  }

  /** Answers with the JSON body `make` gives, and remembers it for identical requests at this data version. */
  async send(request: FastifyRequest, reply: FastifyReply, make: () => Promise<unknown>): Promise<FastifyReply> {
    const version = await this.engine.version();
    const body = Buffer.from(reply.serialize(await make()) as string);
    const etag = `"${createHash('sha1').update(body).digest('base64')}"`;
    const entry: Entry = { key: this.key(request), version, body, compressed: {}, etag, allow: String(reply.getHeader('allow') ?? '') };
    this.remember(entry);
    return this.answer(request, reply, entry);
  }

  /**
   * The same headers and bytes for a first answer and a cached one. Conditional requests go
   * through the ETag plugin (304); every other answer is written as it is, past onSend.
   */
  private answer(request: FastifyRequest, reply: FastifyReply, entry: Entry): FastifyReply {
    const headers: Record<string, string | number> = { allow: entry.allow, etag: entry.etag, 'content-type': 'application/json', vary: 'Accept' };
    const encoding = this.encodingFor(request, entry);
    const body = encoding ? this.compressed(entry, encoding) : entry.body;
    if (encoding) Object.assign(headers, { vary: 'Accept, accept-encoding', 'content-encoding': encoding });
    if (request.headers['if-none-match']) return reply.headers(headers).send(body);
    reply.hijack();
    reply.raw.writeHead(200, { ...headers, 'content-length': body.length });
    reply.raw.end(body);
    return reply;
  }

  /** The encoding the client prefers among ours, as the compression plugin picks it; none for identity. */
  private encodingFor(request: FastifyRequest, entry: Entry): Encoding | null {
    const refused = request.headers['x-no-compression'] !== undefined;
    if (refused || !request.headers['accept-encoding'] || entry.body.length < COMPRESS_THRESHOLD) return null;
    // negotiator 1.0 breaks ties by `preferred` (@types/negotiator still describes 0.6).
    const negotiator = new Negotiator(request) as unknown as { encoding(available: string[], options: { preferred: string[] }): string | undefined };
    const chosen = negotiator.encoding(PREFERENCE, { preferred: PREFERENCE });
    return chosen && chosen !== 'identity' ? (chosen as Encoding) : null;
  }

  private compressed(entry: Entry, encoding: Encoding): Buffer {
    let body = entry.compressed[encoding];
    if (!body) {
      body = entry.compressed[encoding] = COMPRESS[encoding](entry.body);
      if (this.entries.get(entry.key) === entry) {
        this.bytes += body.length;
        this.evict(0, 0);
      }
    }
    return body;
  }

  private remember(entry: Entry): void {
    const previous = this.entries.get(entry.key);
    if (previous) this.bytes -= size(previous);
    this.entries.delete(entry.key);
    if (entry.body.length > MAX_BYTES) return;
    this.evict(1, entry.body.length);
    this.entries.set(entry.key, entry);
    this.bytes += entry.body.length;
  }

  /** Drops the least recently used entries until `entries` more entries of `bytes` more bytes fit. */
  private evict(entries: number, bytes: number): void {
    while (this.entries.size > 0 && (this.entries.size + entries > MAX_ENTRIES || this.bytes + bytes > MAX_BYTES)) {
      const [oldest, dropped] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      this.bytes -= size(dropped);
    }
  }
}
