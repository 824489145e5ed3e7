/**
 * No caller takes the service for itself (README, "Limits"): who a caller is (callerKey), how
 * many large list pages one caller may have being made at once (LargePages), and how many wrong
 * API keys one address may try before unknown keys from it are refused (TokenFailures).
 *
 * Counted in each worker process on its own, as the rate limit and the report line are: what
 * they share out (the event loop, the SQLite reader threads, the worker's share of the
 * PostgreSQL pool) is the worker's, so a caller holding its limit on one worker leaves that
 * worker's other callers their share. Across WORKERS, one caller may have up to WORKERS times
 * the limit at once (its connections are dealt to the workers in turn).
 */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimit } from '../config.ts';
import { throttled, type ApiError } from './errors.ts';

/**
 * An address as limits count it: IPv4 as it is (an IPv4-mapped IPv6 address too), IPv6 by its
 * /64, the block one subscriber is usually given (a single host may hold all of it).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('%')[0].split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (64:ff9b::1.2.3.4) stands for two groups.
  const width = (groups: string[]) => groups.length + (groups.at(-1)?.includes('.') ? 1 : 0);
  const groups = ip.includes('::') ? [...front, ...Array<string>(Math.max(0, 8 - width(front) - width(back))).fill('0'), ...back] : front;
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/**
 * Who a per-caller limit counts for: the user an API key names, else the client's address
 * (`request.ip`: the proxy's word for it under TRUST_PROXY, the socket's otherwise).
 */
export function callerKey(request: FastifyRequest): string {
  const caller = request.caller;
  if (caller?.userId != null) return `user:${caller.userId}`;
  return `ip:${addressKey(request.ip)}`;
}

/** The seconds a caller refused for too many large pages at once is told to wait: about what one takes. */
export const LARGE_PAGE_RETRY_SECONDS = 1;

/**
 * Large list pages being made, per caller: a page of `size` records or more (JSON, XML or CSV;
 * /rest/v1/ and /api/v1/) reads, renders and sends that many records, so one caller asking for
 * fifty at once would hold the event loop and the reader threads for all of them. Past `perCaller`
 * at once a caller is answered 429 with Retry-After; its pages count until their last byte is
 * sent (a streamed page is made as it is sent), or its client goes away. Answers from the
 * response cache are not counted: they cost a write of bytes already made.
 */
export class LargePages {
  private readonly held = new Map<string, number>();
  readonly size: number;
  readonly perCaller: number;
  private readonly onRefused: () => void;

  constructor(size: number, perCaller: number, onRefused: () => void = () => undefined) {
    this.size = size;
    this.perCaller = perCaller;
    this.onRefused = onRefused;
  }

  /**
   * A page of `limit` records for this request: counted while it is made and sent when it is a
   * large one; throws the 429 when the caller already has its limit.
   */
  hold(request: FastifyRequest, reply: FastifyReply, limit: number): void {
    if (limit < this.size || this.perCaller <= 0) return;
    const key = callerKey(request);
    const mine = this.held.get(key) ?? 0;
    if (mine >= this.perCaller) {
      this.onRefused();
      throw throttled(LARGE_PAGE_RETRY_SECONDS);
    }
    this.held.set(key, mine + 1);
    let released = false;
    // `close` comes once the answer is sent, or once its client has gone: the page's work is over either way.
    reply.raw.once('close', () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    });
  }
}

interface Failures {
  /** When this address's window began (performance.now()). */
  since: number;
  /** Checks that failed in the window. */
  failed: number;
  /** Keys not seen passing that are being checked now: counted as failures until they pass. */
  checking: number;
  /** Whether its refusals have been logged (once per window). */
  told: boolean;
}

/** Addresses remembered at most: past it the oldest window is forgotten first. */
const MAX_ADDRESSES = 100_000;
/** Keys that passed the check, remembered (as hashes) at most, and for how long. */
const MAX_KNOWN_KEYS = 10_000;
const KNOWN_KEY_MS = 24 * 3_600_000;

/**
 * Wrong API keys per address (an IPv6 /64 counting as one). Once `limit.max` checks have failed
 * in a window of `limit.windowMs` (checks under way counting as failed until they pass, so that a
 * flood sent at once is held to the limit too), a key from that address that this process has
 * not seen pass in the last day is answered 429 with Retry-After until the window ends, without
 * being looked up: a guesser learns nothing more, and costs the database nothing. Keys seen
 * passing are checked as before, so callers with good keys who share an address with a guesser
 * are not held up; a key never used before from that address waits for the window's end.
 */
export class TokenFailures {
  private readonly limit: RateLimit;
  private readonly addresses = new Map<string, Failures>();
  private readonly known = new Map<string, number>();
  private readonly onRefused: () => void;

  constructor(limit: RateLimit, onRefused: () => void = () => undefined) {
    this.limit = limit;
    this.onRefused = onRefused;
  }

  /** The address's current window; a new one when `create` (the oldest forgotten past MAX_ADDRESSES). */
  private window(address: string, now: number, create: boolean): Failures | undefined {
    let entry = this.addresses.get(address);
    if (entry && now - entry.since >= this.limit.windowMs) {
      this.addresses.delete(address);
      entry = undefined;
    }
    if (!entry && create) {
      if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value as string);
      entry = { since: now, failed: 0, checking: 0, told: false };
      this.addresses.set(address, entry);
    }
    return entry;
  }

  private isKnown(hash: string, now: number): boolean {
    const seen = this.known.get(hash);
    return seen !== undefined && now - seen < KNOWN_KEY_MS;
  }

  /**
   * Before `key` (the text after `Token`, however malformed) from `request` is checked: the 429
   * to answer, or what to call with the check's outcome (null: none, the check could not be made).
   */
  begin(request: FastifyRequest, key: string): { refusal: ApiError } | { done(passed: boolean | null): void } {
    const now = performance.now();
    const address = addressKey(request.ip);
    const hash = createHash('sha256').update(key).digest('base64url');
    const known = this.isKnown(hash, now);
    const entry = known ? undefined : this.window(address, now, true);
    if (entry && entry.failed + entry.checking >= this.limit.max) {
      this.onRefused();
      const seconds = Math.max(1, Math.ceil((entry.since + this.limit.windowMs - now) / 1000));
      if (!entry.told) {
        entry.told = true;
        request.log.warn({ address, failed: entry.failed, checking: entry.checking, limit: this.limit.max, refusedForSeconds: seconds }, 'wrong API keys from one address: keys not seen passing are refused with 429 until the window ends');
      }
      return { refusal: throttled(seconds) };
    }
    if (entry) entry.checking += 1;
    return {
      done: (passed) => {
        if (entry) entry.checking -= 1;
        // null: no word on the key (the database away).
        if (passed === null) return;
        if (passed) {
          this.known.delete(hash);
          if (this.known.size >= MAX_KNOWN_KEYS) this.known.delete(this.known.keys().next().value as string);
          this.known.set(hash, performance.now());
        } else {
          // Counted in the window current now (a check that outlived its window opens the next).
          (this.window(address, performance.now(), true) as Failures).failed += 1;
        }
      },
    };
  }
}
