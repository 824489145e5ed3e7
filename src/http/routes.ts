/**
 * The routes of each resource, generated from its declaration: the list and one record (with
 * their format-suffix forms), the legacy /api/v1/ list, OPTIONS, the writes, and 405 for the
 * methods a route does not offer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller, Resource, Row } from '../resources/define.ts';
import { renderRecords } from '../resources/render.ts';
import { FilterError } from '../query/filters.ts';
import { locatePage, offsetLinks, pageLinks, parseListQuery, parseOffset, type ListQuery } from '../query/list-query.ts';
import type { QueryPairs } from '../query/params.ts';
import type { Engine } from '../store/engine/index.ts';
import type { Reader } from '../store/reader.ts';
import { ApiError, invalidPage, methodNotAllowed, notFound } from './errors.ts';
import { chooseFormat, type Format } from './negotiate.ts';
import { respond } from './renderers.ts';
import type { ResponseCache } from './response-cache.ts';
import { metadata } from './metadata.ts';
import { legacySchema, pageSchema, recordSchema } from './schemas.ts';
import { baseUrl, origin, queryPairs, redirectWithSlash } from './url.ts';
import { remove, requireSignedIn, save } from './writes.ts';

export const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
export const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
const MAX_ID = 2 ** 31 - 1;
/** A detail segment: `<pk>` or `<pk>.<format>`, as DRF's router and format suffixes match it. */
const DETAIL_SEGMENT = /^([^/.]+)(?:\.([a-z0-9]+))?$/;

export interface RouteContext {
  engine: Engine;
  reader: Reader;
  timeZone: string;
  responses: ResponseCache;
}

/** The renderer for this request; an unknown format is 404 without route headers. */
function requireFormat(request: FastifyRequest, suffix: string | undefined, pairs: QueryPairs): Format {
  const format = chooseFormat(request, suffix, pairs);
  if (format === null) throw notFound(false);
  return format;
}

/** The list query, or a 400 naming the filter that cannot be applied (decisions D8, D9). */
export function listQuery(resource: Resource, pairs: QueryPairs, caller: Caller): ListQuery {
  try {
    return parseListQuery(resource, pairs, caller);
  } catch (error) {
    if (error instanceof FilterError) throw new ApiError(400, { detail: error.message });
    throw error;
  }
}

export function registerResource(app: FastifyInstance, resource: Resource, context: RouteContext): void {
  const { engine, reader, timeZone, responses } = context;
  const listPaths = [`/rest/v1/${resource.name}/`, `/rest/v1/${resource.name}.:format`, `/rest/v1/${resource.name}.:format/`];
  const detailPaths = [`/rest/v1/${resource.name}/:segment/`, `/rest/v1/${resource.name}/:segment`];

  /** JSON bodies go through the response cache; XML and CSV are streamed afresh. */
  const cached = (request: FastifyRequest, reply: FastifyReply, format: Format, make: () => Promise<unknown>) =>
    format === 'json' ? responses.send(request, reply, make) : make();

  async function list(request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) {
    const pairs = queryPairs(request);
    const format = requireFormat(request, request.params.format, pairs);
    reply.header('allow', LIST_ALLOW);
    return cached(request, reply, format, () => listBody(request, reply, pairs, format));
  }

  async function listBody(request: FastifyRequest, reply: FastifyReply, pairs: QueryPairs, format: Format) {
    const query = listQuery(resource, pairs, request.caller);
    if (query.page.kind === 'invalid') throw invalidPage();
    const caller = request.caller;
    const count = await reader.count(resource, caller, query.filters);
    const page = locatePage(query.page, query.limit, count);
    if (!page) throw invalidPage();
    const rows = await reader.page(resource, caller, { order: query.order, pinned: query.pinned, limit: query.limit, offset: page.offset }, query.filters);
    const results = await renderRecords(resource, rows, reader.lookup(caller), { caller, timeZone });
    return respond(reply, format, { count, ...pageLinks(baseUrl(request), pairs, page), results }, { listKey: 'results', filename: resource.name });
  }

  /** The record id and format of a detail path; 404 without route headers when it is no id. */
  function detailTarget(request: FastifyRequest<{ Params: { segment: string } }>, reply: FastifyReply): { id: number; format: Format } {
    const match = DETAIL_SEGMENT.exec(request.params.segment);
    if (!match) throw notFound(false);
    const format = requireFormat(request, match[2], queryPairs(request));
    if (!/^[0-9]+$/.test(match[1]) || Number(match[1]) > MAX_ID) throw notFound(false);
    reply.header('allow', DETAIL_ALLOW);
    return { id: Number(match[1]), format };
  }

  const one = (reply: FastifyReply, format: Format, record: Row) => respond(reply, format, record, { listKey: null, filename: resource.name });

  /** One record as the caller sees it. */
  async function renderOne(id: number, caller: Caller) {
    const row = await reader.one(resource, caller, id);
    if (!row) throw notFound();
    const [record] = await renderRecords(resource, [row], reader.lookup(caller), { caller, timeZone });
    return record;
  }

  async function detail(request: FastifyRequest<{ Params: { segment: string } }>, reply: FastifyReply) {
    const { id, format } = detailTarget(request, reply);
    return cached(request, reply, format, async () => one(reply, format, await renderOne(id, request.caller)));
  }

  async function create(request: FastifyRequest, reply: FastifyReply) {
    const id = await save(engine, resource, 'create', null, request);
    reply.code(201).header('location', `${origin(request)}/rest/v1/${resource.name}/${id}/`);
    return renderOne(id, request.caller);
  }

  async function change(request: FastifyRequest<{ Params: { segment: string } }>, reply: FastifyReply) {
    const { id } = detailTarget(request, reply);
    if (request.method === 'DELETE') return remove(engine, resource, id, request, reply);
    await save(engine, resource, request.method === 'PUT' ? 'replace' : 'patch', id, request);
    return renderOne(id, request.caller);
  }

  const refuse = (allow: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', allow);
    throw methodNotAllowed(request.method);
  };

  /** The legacy offset interface of the original (http.md): same records, filters and order. */
  async function legacyList(request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) {
    const pairs = queryPairs(request);
    const format = requireFormat(request, request.params.format, pairs);
    const query = listQuery(resource, pairs, request.caller);
    const offset = parseOffset(pairs);
    const caller = request.caller;
    const count = await reader.count(resource, caller, query.filters);
    // An offset past the end reads nothing, however large it is.
    const rows = offset < BigInt(count) ? await reader.page(resource, caller, { order: query.order, pinned: query.pinned, limit: query.limit, offset: Number(offset) }, query.filters) : [];
    const { next, previous } = offsetLinks(baseUrl(request), pairs, offset, query.limit, count);
    const objects = await renderRecords(resource, rows, reader.lookup(caller), { caller, timeZone });
    const shownOffset = offset <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(offset) : offset;
    return respond(reply, format, { meta: { limit: query.limit, next, offset: shownOffset, previous, total_count: count }, objects }, { listKey: 'objects', filename: resource.name });
  }
  app.get(`/api/v1/${resource.name}/`, { schema: { response: { 200: legacySchema(resource) } } }, legacyList);

  for (const url of listPaths) {
    app.get(url, { schema: { response: { 200: pageSchema(resource) } } }, list);
    app.options(url, async (request: FastifyRequest<{ Params: { format?: string } }>, reply) => {
      requireFormat(request, request.params.format, queryPairs(request));
      reply.header('allow', LIST_ALLOW);
      return metadata(resource, 'List', request.caller);
    });
    // Anonymous writes are refused before their body is read (DRF authenticates first).
    app.post(url, {
      schema: { response: { 201: recordSchema(resource) } },
      onRequest: async (request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) => {
        requireFormat(request, request.params.format, queryPairs(request));
        reply.header('allow', LIST_ALLOW);
        // A method never allowed is 405 for everyone, signed in or not.
        if (resource.readOnly) throw methodNotAllowed('POST');
        requireSignedIn(request);
      },
    }, create);
    app.route({ method: ['PUT', 'PATCH', 'DELETE'], url, handler: refuse(LIST_ALLOW) });
  }
  for (const url of detailPaths) {
    // `/<id>` without slash or suffix is not a route of its own: Django's APPEND_SLASH redirects it.
    const slashed = url.endsWith('/');
    const redirect = async (request: FastifyRequest<{ Params: { segment: string } }>, reply: FastifyReply) => {
      if (!slashed && !request.params.segment.includes('.')) return redirectWithSlash(request, reply);
    };
    app.get(url, { onRequest: redirect, schema: { response: { 200: recordSchema(resource) } } }, detail);
    app.options(url, { onRequest: redirect }, async (request: FastifyRequest<{ Params: { segment: string } }>, reply) => {
      detailTarget(request, reply);
      return metadata(resource, 'Instance', request.caller);
    });
    app.route({
      method: ['PUT', 'PATCH', 'DELETE'],
      url,
      schema: { response: { 200: recordSchema(resource) } },
      onRequest: [redirect, async (request: FastifyRequest<{ Params: { segment: string } }>, reply: FastifyReply) => {
        if (reply.sent) return;
        detailTarget(request, reply);
        if (resource.readOnly) throw methodNotAllowed(request.method);
        requireSignedIn(request);
      }],
      handler: change,
    });
    app.post(url, { onRequest: redirect }, async (request: FastifyRequest<{ Params: { segment: string } }>, reply) => {
      detailTarget(request, reply);
      throw methodNotAllowed('POST');
    });
  }
}

/** Paths that are routes once a trailing slash is added (Django's APPEND_SLASH redirects them). */
export function takesTrailingSlash(path: string, resources: readonly Resource[]): boolean {
  const names = new Set(resources.map((resource) => resource.name));
  const parts = path.split('/');
  if (parts.length === 4 && parts[1] === 'api' && parts[2] === 'v1') return names.has(parts[3]);
  if (parts[0] !== '' || parts[1] !== 'rest' || parts[2] !== 'v1') return false;
  if (parts.length === 3) return true;
  const name = parts[3].replace(/\.[a-z0-9]+$/, '');
  if (parts.length === 4) return names.has(name);
  return parts.length === 5 && names.has(parts[3]) && parts[4] !== '';
}
