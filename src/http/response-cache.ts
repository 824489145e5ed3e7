/**
 * Finished JSON bodies of GET requests, kept per instance and served again while the data
 * version in the database is the one they were made at: exact after any write, from any
 * instance. A repeated request is answered from an onRequest hook with its stored ETag, so it
 * costs one indexed read and the write of a prepared buffer (issue: cache what is cacheable).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../store/connect.js';
import { dataVersion, dataVersionNow } from '../store/data-version.js';

const MAX_ENTRIES = 2000;
const MAX_BYTES = 64 * 1024 * 1024;

interface Entry {
  version: number;
  /** Encoded once: writing a string would encode it to UTF-8 again on every answer. */
  body: Buffer;
  etag: string;
  allow: string;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly connection: Connection) {}

  /**
   * Everything a body depends on: the URL as addressed, who asks (per-caller fields) and the
   * Accept header, which may choose XML or CSV for the same URL (only JSON bodies are kept).
   */
  private key(request: FastifyRequest): string {
    const caller = request.caller;
    const who = caller.isAdmin ? 'admin' : (caller.userId ?? 'anonymous');
    return `${request.protocol}://${request.host}${request.url}|${who}|${request.headers.accept ?? ''}`;
  }

  /** Answers a GET (or HEAD: Node sends no body then) from the cache at an unchanged data version. */
  register(app: FastifyInstance): void {
    const answer = (request: FastifyRequest, reply: FastifyReply, kept: Entry) => {
      const headers = { allow: kept.allow, etag: kept.etag, 'content-type': 'application/json' };
      // Compression and 304s are the plugins' work (onSend); a plain hit skips onSend entirely
      // and writes the headers the full path would have written.
      if (request.headers['accept-encoding'] || request.headers['if-none-match']) return reply.headers(headers).send(kept.body);
      reply.hijack();
      reply.raw.writeHead(200, { ...headers, vary: 'Accept', 'content-length': kept.body.length });
      reply.raw.end(kept.body);
    };
    // A callback hook: a hit on SQLite is answered without a single promise.
    app.addHook('onRequest', (request, reply, done) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || this.entries.size === 0) return done();
      const kept = this.entries.get(this.key(request));
      if (!kept) return done();
      let now: number | undefined;
      try {
        now = dataVersionNow(this.connection);
      } catch (error) {
        return done(error as Error);
      }
      if (now !== undefined) return now === kept.version ? answer(request, reply, kept) : done();
      dataVersion(this.connection).then((version) => (version === kept.version ? answer(request, reply, kept) : done()), done);
    });
  }

  /** The body `make` gives, remembered for identical requests at this data version. */
  async json(request: FastifyRequest, reply: FastifyReply, make: () => Promise<unknown>): Promise<Buffer> {
    const version = await dataVersion(this.connection);
    const body = Buffer.from(reply.serialize(await make()) as string);
    const etag = `"${createHash('sha1').update(body).digest('base64')}"`;
    reply.header('etag', etag);
    this.remember(this.key(request), { version, body, etag, allow: String(reply.getHeader('allow') ?? '') });
    return body;
  }

  private remember(key: string, entry: Entry): void {
    const previous = this.entries.get(key);
    if (previous) this.bytes -= previous.body.length;
    this.entries.delete(key);
    while (this.entries.size >= MAX_ENTRIES || (this.bytes + entry.body.length > MAX_BYTES && this.entries.size > 0)) {
      const [oldest, dropped] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      this.bytes -= dropped.body.length;
    }
    if (entry.body.length > MAX_BYTES) return;
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
  }
}
