/**
 * Finished answers of GET requests (any format), kept per instance and sent again while the
 * data version in the database is the one they were made at: exact after any write, from any
 * instance. A repeated request is answered from an onRequest hook through the same respond step
 * as a fresh one (respond.ts), so it costs one indexed read and the write of a prepared buffer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../store/engine/index.ts';
import { send, type Representation } from './respond.ts';
import { origin } from './url.ts';

const MAX_ENTRIES = 2000;
const MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  key: string;
  version: number;
  answer: Representation;
  bytes: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** How the response cache served this request (for its log line); unset where it has no part. */
    cache: 'hit' | 'miss' | undefined;
  }
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  private readonly engine: Engine;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /**
   * Everything a body depends on: the URL as addressed (its origin as the links show it), who
   * asks (per-user fields, not only visibility) and the Accept header, which may choose XML or
   * CSV for the same URL.
   */
  private key(request: FastifyRequest): string {
    const caller = request.caller;
    const who = caller.isAdmin ? 'admin' : (caller.userId ?? 'anonymous');
    return `${origin(request)}${request.url}|${who}|${request.headers.accept ?? ''}`;
  }

  /** What the metrics show of it. */
  stats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }

  /** Answers a GET (or HEAD: Node sends no body then) from the cache at an unchanged data version. */
  register(app: FastifyInstance): void {
    app.decorateRequest('cache', undefined);
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
      const replay = () => {
        this.hits += 1;
        request.cache = 'hit';
        void send(request, reply, kept.answer);
      };
      if (now !== undefined) return now === kept.version ? replay() : done();
      this.engine.version().then((version) => (version === kept.version ? replay() : done()), done);
    });
  }

  /** Sends the answer `make` gives, and remembers it for identical requests at this data version. */
  async send(request: FastifyRequest, reply: FastifyReply, make: () => Promise<Representation>): Promise<FastifyReply> {
    this.misses += 1;
    request.cache = 'miss';
    const version = await this.engine.version();
    const answer = await make();
    this.remember({ key: this.key(request), version, answer, bytes: answer.body.length });
    return send(request, reply, answer);
  }

  private remember(entry: Entry): void {
    const previous = this.entries.get(entry.key);
    if (previous) this.forget(previous);
    if (entry.bytes > MAX_BYTES) return;
    this.evict(1, entry.bytes);
    this.entries.set(entry.key, entry);
    this.bytes += entry.bytes;
    // A compressed body made later counts too, while the entry is still kept.
    entry.answer.grew = (bytes) => {
      if (this.entries.get(entry.key) !== entry) return;
      entry.bytes += bytes;
      this.bytes += bytes;
      this.evict(0, 0);
    };
  }

  private forget(entry: Entry): void {
    this.entries.delete(entry.key);
    this.bytes -= entry.bytes;
  }

  /** Drops the least recently used entries until `entries` more entries of `bytes` more bytes fit. */
  private evict(entries: number, bytes: number): void {
    while (this.entries.size > 0 && (this.entries.size + entries > MAX_ENTRIES || this.bytes + bytes > MAX_BYTES)) {
      this.forget(this.entries.values().next().value as Entry);
    }
  }
}
