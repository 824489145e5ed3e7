/** The Fastify application: resource routes, the API root, and the answers every route shares. */
import compress from '@fastify/compress';
import etag from '@fastify/etag';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { RESOURCES } from '../resources/index.ts';
import type { Engine } from '../store/engine/index.ts';
import { Reader } from '../store/reader.ts';
import { registerAuthentication } from './auth.ts';
import { ApiError, clientError, databaseUnavailable, invalidHost, notFound, unsupportedMediaType } from './errors.ts';
import { COMPRESS_THRESHOLD, ENCODINGS, ResponseCache } from './response-cache.ts';
import { registerResource, takesTrailingSlash } from './routes.ts';
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

export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 500 },
    // A path that cannot be decoded, or a segment too long to be an id, names nothing here.
    // These replies skip the app's hooks: their headers are set here, and a Buffer keeps Fastify's charset off.
    frameworkErrors: (error, request, reply) => {
      const answer = notFound(false);
      void (reply as unknown as FastifyReply).code(answer.status).header('vary', 'Accept').header('content-type', 'application/json').send(Buffer.from(JSON.stringify(answer.body)));
    },
    clientErrorHandler: answerClientError,
  });

  const allowed = options.allowedHosts;
  if (allowed) {
    // First of all hooks: a cached answer's links are as much the Host's as a fresh one's.
    app.addHook('onRequest', (request, reply, done) => done(hostAllowed(request.host, allowed) ? undefined : invalidHost()));
  }

  // http.md: every response carries Vary: Accept; JSON is application/json without a charset.
  // Hooks every answer passes take callbacks: an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    const vary = String(reply.getHeader('vary') ?? '').split(',').map((name) => name.trim()).filter(Boolean);
    if (!vary.some((name) => name.toLowerCase() === 'accept')) reply.header('vary', ['Accept', ...vary].join(', '));
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) reply.header('content-type', 'application/json');
    done(null, payload);
  });

  const schemaReady = options.schemaReady;
  if (schemaReady) {
    let ready = false;
    app.addHook('onRequest', (request, reply, done) => {
      if (ready) return done();
      schemaReady().then(() => {
        ready = true;
        done();
      }, done);
    });
  }

  // Conditional requests (ETag / If-None-Match -> 304) and compression for clients that ask.
  void app.register(etag);
  void app.register(compress, { global: true, threshold: COMPRESS_THRESHOLD, encodings: [...ENCODINGS] });
  registerBodyParsers(app);
  registerAuthentication(app, options.engine);
  // Routes load after the plugins above, so that compression sees them declared (its onRoute hook).
  const responses = new ResponseCache(options.engine);
  responses.register(app);
  void app.register(async (api) => {
    const reader = options.reader ?? new Reader(options.engine);
    for (const resource of RESOURCES) registerResource(api, resource, { engine: options.engine, reader, timeZone: options.timeZone, responses });
    api.get('/rest/v1/', async (request) => {
      const names = RESOURCES.map((resource) => resource.name).sort();
      return Object.fromEntries(names.map((name) => [name, `${origin(request)}/rest/v1/${name}/`]));
    });
  });

  app.setNotFoundHandler(async (request, reply) => {
    const [path] = splitUrl(request.url);
    if (!path.endsWith('/') && takesTrailingSlash(path, RESOURCES)) return redirectWithSlash(request, reply);
    return reply.code(404).send({ detail: 'Not found.' });
  });

  app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      if (!error.withRouteHeaders) reply.removeHeader('allow');
      return reply.code(error.status).send(error.body);
    }
    if (options.engine.isUnavailable(error)) {
      const unavailable = databaseUnavailable();
      reply.removeHeader('allow');
      return reply.code(unavailable.status).header('retry-after', '1').send(unavailable.body);
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(unsupportedMediaType(request.headers['content-type'] ?? '').body);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ detail: error.message });
    }
    request.log.error(error);
    return reply.code(500).send({ detail: 'A server error occurred.' });
  });

  return app;
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
      done(new ApiError(400, { detail: `JSON parse error - ${(error as Error).message}` }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
