/**
 * What stands between the open internet and the handlers, each a well-kept Fastify plugin:
 * CORS (@fastify/cors), load shedding (@fastify/under-pressure) and the rate limit
 * (@fastify/rate-limit). Their refusals are entries of the error catalogue, like every other.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RateLimit } from '../config.ts';
import type { Metrics } from '../ops/metrics.ts';
import { callerKey } from './callers.ts';
import { overloaded, throttled } from './errors.ts';

/** Headers a script on another origin may read (beyond the CORS-safelisted ones). */
const EXPOSED = 'ETag, Location, Allow, Link, Retry-After, Content-Disposition, X-Total-Count, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
/** What a listed origin's script may send: its token, JSON bodies, revalidation, its request id. */
const LISTED_HEADERS = 'Authorization, Content-Type, Accept, If-None-Match, X-Request-Id';
const WRITE_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
/** Any origin: anonymous reads, and no preflight granted. */
const ANYONE: FastifyCorsOptions = { origin: '*', methods: 'GET, HEAD', exposedHeaders: EXPOSED, preflight: false };

/**
 * CORS as README "Cross-origin requests" describes: any origin may read anonymously (GET and
 * HEAD are simple requests; no preflight is answered, so a token or a write cannot follow);
 * the origins of CORS_ORIGINS get preflights for signed-in reads and writes. Credentials
 * (cookies) are never involved: callers sign in with a token.
 */
function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  // The same answer whatever the Origin: no `Vary: Origin`, and the seed's `Vary: Accept` stays exact.
  if (origins.length === 0) return ANYONE;
  const listed = new Set(origins);
  return {
    // Options per request: the answer depends on the Origin, so every answer says `Vary: Origin`.
    delegator(request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) {
      const origin = request.headers.origin;
      if (!origin || !listed.has(origin)) return callback(null, ANYONE);
      // Only a real preflight is one: a plain OPTIONS is DRF's description of the endpoint.
      const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
      callback(null, { origin, methods: WRITE_METHODS, allowedHeaders: LISTED_HEADERS, exposedHeaders: EXPOSED, maxAge: 600, preflight });
    },
  } as FastifyCorsOptions;
}

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  void app.register(cors, { ...corsOptions(origins), hideOptionsRoute: true });
}

/**
 * Sheds load while the event loop lags: 503 with Retry-After, before any work. The liveness
 * probe still answers (an orchestrator must not kill a busy process); readiness says busy.
 */
export function registerLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number, metrics: Metrics): void {
  if (maxEventLoopDelayMs <= 0) return;
  // The delay is sampled once a second: the first sample after listening measures start-up
  // (compiling, preparing), not load, and is not held against the first callers.
  let listeningSince = Infinity;
  app.addHook('onListen', (done) => {
    listeningSince = performance.now();
    done();
  });
  void app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    pressureHandler: async (request: FastifyRequest) => {
      if (request.routeOptions.url === '/healthz' || request.routeOptions.url === '/metrics') return;
      if (performance.now() - listeningSince < WARM_UP_MS) return;
      metrics.shed.inc();
      throw overloaded();
    },
  });
}

/** One sample interval of @fastify/under-pressure, and a little more. */
const WARM_UP_MS = 1100;

/**
 * The rate limit (off unless RATE_LIMIT is set), counted per user or per address in this process.
 * It runs after authentication and before the response cache: cached answers count too.
 */
export function registerRateLimit(app: FastifyInstance, limit: RateLimit | null, metrics: Metrics): void {
  if (!limit) return;
  void app.register(rateLimit, {
    global: false,
    max: limit.max,
    timeWindow: limit.windowMs,
    // The signed-in user, or the address of an anonymous caller (an IPv6 /64 as one): callers.ts.
    keyGenerator: callerKey,
    errorResponseBuilder: (request, context) => {
      metrics.throttled.inc();
      return throttled(Math.max(1, Math.ceil(context.ttl / 1000)));
    },
  });
  void app.register(fp(async (scope: FastifyInstance) => {
    const limiter = scope.rateLimit() as unknown as (request: FastifyRequest, reply: unknown) => Promise<void>;
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config.probe) return done();
      limiter(request, reply).then(() => done(), done);
    });
  }));
}
