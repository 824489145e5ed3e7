/**
 * Finished answers of GET requests (any format), kept per process and sent again while the
 * tables they were read from are unchanged (store/data-version.ts, `stamp`): exact after any
 * write, from any process, and still kept after a write to a table they do not read. A repeated
 * request is answered from an onRequest hook through the same respond step
 * as a fresh one (respond.ts), so it costs one indexed read and the write of a prepared buffer.
 * An answer is kept once its URL has been asked for twice: URLs asked for once do not churn it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CacheDescription } from '../store/caches.ts';
import { stamp } from '../store/data-version.ts';
import type { Engine, Versions } from '../store/engine/index.ts';
import { send, type Representation, type Streamed } from './respond.ts';
import { origin } from './url.ts';

const MAX_ENTRIES = 2000;
const MAX_BYTES = 32 * 1024 * 1024;
/** URLs asked for once, remembered so that an answer asked for again is kept (a probation list). */
const MAX_SEEN = 10_000;

interface Entry {
  key: string;
  /** The tables the answer was read from, and their stamp when it was made. */
  tables: readonly string[];
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
  /**
   * Keys whose answer was made once and not kept: most URLs a busy service sees (a dashboard's
   * cache-busting parameter, a crawler) are asked for once, and keeping each answer would only
   * push out those asked for again and again. An answer is kept the second time it is made.
   */
  private readonly seen = new Set<string>();
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

  /** Its entry in the registry of caches (store/caches.ts). */
  describe(): CacheDescription {
    return {
      name: 'responses',
      holds: 'a finished answer: its bytes, headers, ETag and each compression made of it',
      key: 'URL as addressed, caller, Accept',
      bound: `${MAX_ENTRIES.toLocaleString('en')} answers, ${MAX_BYTES.toLocaleString('en')} bytes; kept the second time a key is asked for`,
      stale: "a write to any table the answer's resource is read from",
      figures: () => ({ entries: this.entries.size, hits: this.hits, misses: this.misses, weight: this.bytes }),
    };
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
      let now: Versions | undefined;
      try {
        now = this.engine.versionNow();
      } catch (error) {
        return done(error as Error);
      }
      const answer = (versions: Versions) => {
        if (stamp(versions, kept.tables) !== kept.version) return done();
        this.hits += 1;
        request.cache = 'hit';
        void send(request, reply, kept.answer);
      };
      if (now !== undefined) return answer(now);
      this.engine.version().then(answer, done);
    });
  }

  /**
   * Sends the answer `make` gives, read from `tables`, and remembers it for identical requests
   * while those tables are unchanged.
   */
  async send(request: FastifyRequest, reply: FastifyReply, tables: readonly string[], make: () => Promise<Representation | Streamed>): Promise<FastifyReply> {
    this.misses += 1;
    request.cache = 'miss';
    const version = stamp(this.engine.versionNow() ?? (await this.engine.version()), tables);
    const answer = await make();
    const key = this.key(request);
    if (this.admits(key)) {
      // A streamed answer is kept once it is whole (never, if the client leaves before).
      if ('parts' in answer) answer.whenWhole((whole) => this.remember({ key, tables, version, answer: whole, bytes: whole.body.length }));
      else this.remember({ key, tables, version, answer, bytes: answer.body.length });
    }
    return send(request, reply, answer);
  }

  /** Whether an answer for `key` is to be kept: the second time it was asked for (or later). */
  private admits(key: string): boolean {
    if (this.seen.delete(key) || this.entries.has(key)) return true;
    if (this.seen.size >= MAX_SEEN) this.seen.delete(this.seen.values().next().value as string);
    this.seen.add(key);
    return false;
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
