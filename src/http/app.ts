/** The Fastify application: resource routes, the API root, and the answers every route shares. */
import { createServer, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DEFAULT_CALLER_LIMITS, DEFAULT_LIMITS, type CallerLimits, type Limits, type RateLimit } from '../config.ts';
import type { Logger } from '../ops/logger.ts';
import { Metrics } from '../ops/metrics.ts';
import { ReportPool, type ReportPoolOptions } from '../reports/pool.ts';
import { RESOURCES } from '../resources/index.ts';
import type { Engine } from '../store/engine/index.ts';
import { Reader } from '../store/reader.ts';
import { registerAuthentication } from './auth.ts';
import { LargePages, TokenFailures } from './callers.ts';
import { ApiError, clientError, databaseUnavailable, invalidHost, notFound, queryTooLong, refusedByFramework, serverError, storageFull, storageReadOnly, unsupportedMediaType } from './errors.ts';
import { registerCors, registerLoadShedding, registerRateLimit } from './guards.ts';
import { registerMetricsRoute, registerObservation, requestId } from './observe.ts';
import { representError, representJson, send } from './respond.ts';
import { ResponseCache } from './response-cache.ts';
import { registerDocs } from './docs.ts';
import { offerExplorer, registerExplorer } from './explorer.ts';
import { registerHealth } from './health.ts';
import { registerReports } from './report-routes.ts';
import { registerWholeLists } from './whole-lists.ts';
import { registerBodyParsers } from './bodies.ts';
import { resourceRoutes, takesTrailingSlash } from './routes.ts';
import type { Services } from './services.ts';
import { WriteHealth } from './write-health.ts';
import { origin, redirectWithSlash, splitUrl } from './url.ts';

export interface AppOptions {
  engine: Engine;
  /** The reader answers are read through (its caches with it); one of the engine's own by default. */
  reader?: Reader;
  /** Resolves once the schema is current; requests wait for it (503 while the database is away). */
  schemaReady?: () => Promise<void>;
  timeZone: string;
  /** Fastify's trustProxy: true, or the proxies believed (config.ts, TRUST_PROXY). */
  trustProxy?: boolean | string;
  /** Django's ALLOWED_HOSTS: `next`/`previous` links are built from the Host a request names, so only these may be named. */
  allowedHosts?: string[] | null;
  /** Where requests and errors are logged (ops/logger.ts); none: nowhere. */
  logger?: Logger;
  /** The figures GET /metrics shows; the engine's queries are fed to the same (cli.ts). */
  metrics?: Metrics;
  /** Time limits and load shedding; unset ones as config.ts's defaults, but load shedding off. */
  limits?: Partial<Limits>;
  /** Origins allowed signed-in requests and writes from scripts (guards.ts). */
  corsOrigins?: readonly string[];
  rateLimit?: RateLimit | null;
  /** When set, GET /metrics is served, for it as a Bearer token only; unset: /metrics is not found (metrics-listener.ts). */
  metricsToken?: string | null;
  /** Per-caller limits (callers.ts); unset ones as config.ts's defaults. */
  callerLimits?: Partial<CallerLimits>;
  /**
   * Report files made on threads reading `databaseUrl` (reports/pool.ts), closed with the app;
   * none: made in this thread (tests of a database only this connection sees).
   */
  reports?: ReportPoolOptions;
}

/** Request bodies over 1 MiB are refused with 413 (http.md). */
const BODY_LIMIT = 1024 * 1024;

/**
 * Node's HTTP server with the time limits set: a client slower than them is answered 408 and
 * disconnected; the limits are checked a few times per headers timeout.
 */
function serverWithLimits(limits: Limits) {
  return (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer({
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
    }, handler);
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    return server;
  };
}

const sendError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => send(request, reply, representError(reply, error));

export function buildApp(options: AppOptions): FastifyInstance {
  const limits: Limits = { ...DEFAULT_LIMITS, maxEventLoopDelayMs: 0, ...options.limits };
  const metrics = options.metrics ?? new Metrics();
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : { logger: false }),
    // One line per request, written by observe.ts when it is answered.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: requestId,
    serverFactory: serverWithLimits(limits),
    trustProxy: options.trustProxy ?? false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 500 },
    // A path that cannot be decoded, or a segment too long to be an id, names nothing here.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      void sendError(request, reply as unknown as FastifyReply, notFound(false));
    },
    clientErrorHandler: answerClientError,
  });
  const responses = new ResponseCache(options.engine);
  const reader = options.reader ?? new Reader(options.engine);
  const reports = options.reports ? new ReportPool(options.reports) : null;
  if (reports) app.addHook('onClose', () => reports.close());
  const callerLimits: CallerLimits = { ...DEFAULT_CALLER_LIMITS, ...options.callerLimits };
  const largePages = new LargePages(callerLimits.largePageSize, callerLimits.largePagesPerCaller, () => metrics.callerLimited.inc({ limit: 'large_pages' }));
  const tokenFailures = callerLimits.tokenFailures ? new TokenFailures(callerLimits.tokenFailures, () => metrics.callerLimited.inc({ limit: 'token_failures' })) : null;
  const services: Services = { engine: options.engine, reader, responses, metrics, timeZone: options.timeZone, reports, writes: new WriteHealth(), largePages };
  app.decorate('services', services);
  metrics.watch({
    responseCache: () => responses.stats(),
    countCache: () => {
      const kept = reader.projectCounts.figures();
      return { hits: reader.counts.hits + kept.hits, misses: reader.counts.misses + kept.misses, entries: reader.counts.size + kept.histograms };
    },
    deepPages: () => ({ hits: reader.memory.lists.hits, misses: reader.memory.lists.misses, ids: reader.memory.orders.weighs + reader.memory.lists.weighs }),
    pool: () => options.engine.poolStats(),
    reports: () => services.reports?.load ?? null,
    caches: () => [responses.describe(), ...reader.caches(), ...options.engine.caches()],
  });

  // onRequest hooks run in the order registered here, and plugins load in the same order: every
  // answer, a cached one or a refusal, passes the same steps up to where it is given.
  const step = (register: (scope: FastifyInstance) => void) => void app.register(fp(async (scope: FastifyInstance) => register(scope)));
  step((scope) => registerObservation(scope, metrics));
  registerCors(app, options.corsOrigins ?? []);
  step((scope) => checkHostAndSchema(scope, options));
  registerLoadShedding(app, limits.maxEventLoopDelayMs, metrics);
  step((scope) => registerAuthentication(scope, options.engine, tokenFailures));
  registerRateLimit(app, options.rateLimit ?? null, metrics);
  step((scope) => offerExplorer(scope));
  step((scope) => responses.register(scope));

  finishConnectionsWhenClosing(app);
  registerBodyParsers(app);
  for (const resource of RESOURCES) void app.register(resourceRoutes, { resource });
  void app.register(registerDocs);
  void app.register(async (scope) => {
    registerReports(scope);
    registerWholeLists(scope);
    registerExplorer(scope);
    registerHealth(scope);
    registerMetricsRoute(scope, metrics, options.metricsToken ?? null);
    scope.get('/rest/v1/', async (request, reply) => {
      const names = RESOURCES.map((resource) => resource.name).sort();
      return send(request, reply, representJson(reply, Object.fromEntries(names.map((name) => [name, `${origin(request)}/rest/v1/${name}/`]))));
    });
  });

  app.setNotFoundHandler(async (request, reply) => {
    const [path] = splitUrl(request.url);
    if (!path.endsWith('/') && takesTrailingSlash(path, RESOURCES)) return redirectWithSlash(request, reply);
    return sendError(request, reply, notFound());
  });

  app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => sendError(request, reply, asApiError(error, request, options.engine)));

  return app;
}

/**
 * While the server closes, a kept-alive connection is closed as soon as its request in flight is
 * answered (it goes idle): otherwise it would hold the shutdown open until its keep-alive
 * timeout. Checked every 50 ms while closing, so that answering costs nothing extra before.
 */
function finishConnectionsWhenClosing(app: FastifyInstance): void {
  app.addHook('preClose', (done) => {
    const closer = setInterval(() => app.server.closeIdleConnections(), 50);
    closer.unref();
    app.server.once('close', () => clearInterval(closer));
    done();
  });
}

/**
 * Django's ALLOWED_HOSTS (a cached answer's links are as much the Host's as a fresh one's), and
 * the schema gate: requests wait until the schema is current. Probes pass both.
 */
function checkHostAndSchema(app: FastifyInstance, options: AppOptions): void {
  const allowed = options.allowedHosts;
  if (allowed) {
    app.addHook('onRequest', (request, reply, done) => done(request.routeOptions.config.probe || hostAllowed(request.host, allowed) ? undefined : invalidHost()));
  }
  const schemaReady = options.schemaReady;
  if (schemaReady) {
    let ready = false;
    // Hooks every answer passes take callbacks: an async hook costs a promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      if (ready || request.routeOptions.config.probe) return done();
      schemaReady().then(() => {
        ready = true;
        done();
      }, done);
    });
  }
}

/** Any error a request ends in, as an entry of the catalogue; what is none is logged and 500. */
function asApiError(error: FastifyError | ApiError, request: FastifyRequest, engine: Engine): ApiError {
  if (error instanceof ApiError) return error;
  if (engine.isStatementTimeout(error)) {
    request.log.warn({ err: error, url: request.url }, 'statement timeout');
    return queryTooLong();
  }
  const fault = engine.storageFault(error);
  if (fault) {
    // The cause, as the database gave it: the operator learns what to mend.
    request.log.error({ err: error }, fault === 'full' ? "write refused: the database's storage is full" : 'write refused: the database is read-only');
    request.server.services.writes.failed(fault);
    return fault === 'full' ? storageFull() : storageReadOnly();
  }
  if (engine.isUnavailable(error)) return databaseUnavailable();
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedMediaType(request.headers['content-type'] ?? '');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return refusedByFramework(error.statusCode, error.message);
  request.log.error({ err: error }, 'request failed');
  return serverError();
}

/** What Node's parser refused (http.md, Errors: every error body is JSON), written to the socket as Fastify does. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = clientError(error.code);
  const body = JSON.stringify(refusal.body);
  // The answer to HEAD has the headers of the body it leaves out.
  const head = (error as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`);
  }
  socket.destroy(error);
}

/** Django's host validation: an exact name, or `.example.org` for it and every subdomain; the port does not count. */
function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  return allowed.some((pattern) => (pattern.startsWith('.') ? name === pattern.slice(1) || name.endsWith(pattern) : name === pattern));
}
