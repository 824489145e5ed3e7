/**
 * What an operator sees of each request: its id (X-Request-Id, taken from the caller when it is
 * a sane one, made otherwise, returned on every answer), one log line when it is answered, the
 * request metrics, and GET /metrics itself.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskUrl } from '../ops/redact.ts';
import type { Metrics } from '../ops/metrics.ts';
import { ApiError } from './errors.ts';

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

/** Metrics are for the operator: with METRICS_TOKEN set, only `Authorization: Bearer <token>` reads them. */
function allowed(request: FastifyRequest, token: string | null): boolean {
  if (!token) return true;
  const given = Buffer.from(request.headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.get('/metrics', { config: { probe: true }, logLevel: 'warn' }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!allowed(request, token)) throw new ApiError(401, { detail: 'Metrics need the METRICS_TOKEN.' }, false, { 'www-authenticate': 'Bearer realm="metrics"' });
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.text());
  });
}
