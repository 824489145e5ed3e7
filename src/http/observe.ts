/**
 * What an operator sees of each request: its id (X-Request-Id, taken from the caller when it is
 * a sane one, made otherwise, returned on every answer), one log line when it is answered, the
 * request metrics, and GET /metrics itself.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskUrl } from '../ops/redact.ts';
import type { Metrics } from '../ops/metrics.ts';
import { ApiError } from './errors.ts';
import { bearerMatches, METRICS_CHALLENGE, METRICS_NEED_TOKEN } from './metrics-listener.ts';

/** Ids a proxy or client may choose: short, and nothing a log reader could mistake for structure. */
const SANE_ID = /^[\w.:@/+=-]{1,128}$/;

/** Fastify's genReqId: the caller's X-Request-Id when sane, a new UUID otherwise. */
export function requestId(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

/** Who asked, for the log: a user id, `admin` for the service's own administrator, or anonymous. */
function callerOf(request: FastifyRequest): number | string {
  const caller = request.caller;
  if (!caller) return 'anonymous';
  return caller.userId ?? (caller.isAdmin ? 'admin' : 'anonymous');
}

export function registerObservation(app: FastifyInstance, metrics: Metrics): void {
  // First of all hooks: every answer, cached and refused ones included, names its request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.answered(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Probes log at warn (health.ts): their info lines are dropped here.
    request.log.info(
      { method: request.method, url: maskUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, caller: callerOf(request), cache: request.cache },
      'request',
    );
    done();
  });
}

/**
 * GET /metrics on the API's port: only with METRICS_TOKEN set, and only for
 * `Authorization: Bearer <token>`; without the token the path is not found here (metrics are the
 * operator's: METRICS_PORT serves them on a listener of their own, metrics-listener.ts).
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  if (!token) return;
  app.get('/metrics', { config: { probe: true }, logLevel: 'warn' }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!bearerMatches(request.headers.authorization, token)) throw new ApiError(401, METRICS_NEED_TOKEN, false, { 'www-authenticate': METRICS_CHALLENGE });
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.text());
  });
}
