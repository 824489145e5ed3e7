/** The Fastify application: resource routes, the API root, and the answers every route shares. */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { RESOURCES } from '../resources/index.ts';
import type { Engine } from '../store/engine/index.ts';
import { Reader } from '../store/reader.ts';
import { registerAuthentication } from './auth.ts';
import { ApiError, clientError, databaseUnavailable, invalidHost, jsonParseError, notFound, refusedByFramework, serverError, unsupportedMediaType } from './errors.ts';
import { representError, representJson, send } from './respond.ts';
import { ResponseCache } from './response-cache.ts';
import { registerHealth } from './health.ts';
import { registerReports } from './report-routes.ts';
import { resourceRoutes, takesTrailingSlash } from './routes.ts';
import type { Services } from './services.ts';
import { origin, redirectWithSlash, splitUrl } from './url.ts';

export interface AppOptions {
  engine: Engine;
  /** The reader answers are read through (its caches with it); one of the engine's own by default. */
  reader?: Reader;
  /** Resolves once the schema is current; requests wait for it (503 while the database is away). */
  schemaReady?: () => Promise<void>;
  timeZone: string;
  trustProxy?: boolean;
  /** Django's ALLOWED_HOSTS: `next`/`previous` links are built from the Host a request names, so only these may be named. */
  allowedHosts?: string[] | null;
  logger?: boolean;
}

/** Request bodies over 1 MiB are refused with 413 (http.md). */
const BODY_LIMIT = 1024 * 1024;

const sendError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => send(request, reply, representError(reply, error));

export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 500 },
    // A path that cannot be decoded, or a segment too long to be an id, names nothing here.
    frameworkErrors: (error, request, reply) => void sendError(request, reply as unknown as FastifyReply, notFound(false)),
    clientErrorHandler: answerClientError,
  });
  const responses = new ResponseCache(options.engine);
  const services: Services = { engine: options.engine, reader: options.reader ?? new Reader(options.engine), responses, timeZone: options.timeZone };
  app.decorate('services', services);

  const allowed = options.allowedHosts;
  if (allowed) {
    // First of all hooks: a cached answer's links are as much the Host's as a fresh one's.
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

  registerBodyParsers(app);
  registerAuthentication(app, options.engine);
  responses.register(app);
  for (const resource of RESOURCES) void app.register(resourceRoutes, { resource });
  registerReports(app);
  registerHealth(app);
  app.get('/rest/v1/', async (request, reply) => {
    const names = RESOURCES.map((resource) => resource.name).sort();
    return send(request, reply, representJson(reply, Object.fromEntries(names.map((name) => [name, `${origin(request)}/rest/v1/${name}/`]))));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const [path] = splitUrl(request.url);
    if (!path.endsWith('/') && takesTrailingSlash(path, RESOURCES)) return redirectWithSlash(request, reply);
    return sendError(request, reply, notFound());
  });

  app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => sendError(request, reply, asApiError(error, request, options.engine)));

  return app;
}

/** Any error a request ends in, as an entry of the catalogue; what is none is logged and 500. */
function asApiError(error: FastifyError | ApiError, request: FastifyRequest, engine: Engine): ApiError {
  if (error instanceof ApiError) return error;
  if (engine.isUnavailable(error)) return databaseUnavailable();
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedMediaType(request.headers['content-type'] ?? '');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return refusedByFramework(error.statusCode, error.message);
  request.log.error(error);
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

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Bodies DRF's JSONParser and FormParser accept (http.md, Errors): JSON (an empty body is an
 * empty object) and HTML forms; any other media type is 415.
 */
function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (body.length === 0) return done(null, {});
    try {
      // Bytes that are not UTF-8 are refused, not read as U+FFFD (DRF's JSONParser decodes strictly).
      done(null, JSON.parse(STRICT_UTF8.decode(body as Buffer)));
    } catch (error) {
      done(jsonParseError((error as Error).message), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
