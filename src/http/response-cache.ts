/**
 * Finished JSON bodies of GET requests, kept per instance and served again while the data
 * version in the database is the one they were made at: exact after any write, from any
 * instance. A repeated request is answered from an onRequest hook with its stored ETag, so it
 * costs one indexed read and a buffer write (issue: cache what is cacheable).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../store/connect.js';
import { dataVersion } from '../store/data-version.js';

const MAX_ENTRIES = 2000;
const MAX_BYTES = 64 * 1024 * 1024;

interface Entry {
  version: number;
  body: string;
  etag: string;
  allow: string;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly connection: Connection) {}

  /** Everything a body depends on: the URL as addressed, and who asks (per-caller fields). */
  private key(request: FastifyRequest): string {
    const caller = request.caller;
    const who = caller.isAdmin ? 'admin' : (caller.userId ?? 'anonymous');
    return `${request.protocol}://${request.host}${request.url}|${who}`;
  }

  /** Answers a GET (or HEAD: Node sends no body then) from the cache at an unchanged data version. */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || this.entries.size === 0) return;
      const kept = this.entries.get(this.key(request));
      if (!kept || kept.version !== (await dataVersion(this.connection))) return;
      return reply.header('allow', kept.allow).header('etag', kept.etag).type('application/json').send(kept.body);
    });
  }

  /** The body `make` gives, remembered for identical requests at this data version. */
  async json(request: FastifyRequest, reply: FastifyReply, make: () => Promise<unknown>): Promise<string> {
    const version = await dataVersion(this.connection);
    const serialized = reply.serialize(await make());
    const body = typeof serialized === 'string' ? serialized : Buffer.from(serialized as Buffer).toString('utf8');
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
