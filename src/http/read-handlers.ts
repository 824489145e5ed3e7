/**
 * GET and OPTIONS of a resource: the list (/rest/v1/, page numbers), the legacy list (/api/v1/,
 * offsets), one record and the metadata. Each reads through the store's Reader and answers
 * through the respond step; GET answers go through the response cache.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller, Resource } from '../resources/define.ts';
import { tablesRead } from '../resources/reads.ts';
import { renderRecords } from '../resources/render.ts';
import { CsvOptionError, parseCsvOptions, PLAIN_CSV, type CsvOptions } from '../query/csv-options.ts';
import { FilterError } from '../query/filters.ts';
import { locatePage, offsetLinks, pageLinks, parseListQuery, parseOffset, type ListQuery } from '../query/list-query.ts';
import type { QueryPairs } from '../query/params.ts';
import { badFilter, invalidPage, notFound } from './errors.ts';
import { metadata } from './metadata.ts';
import { chooseFormat, type Format } from './negotiate.ts';
import { represent, representJson, representList, send } from './respond.ts';
import { recordSchema } from './schemas.ts';
import { resourceOf } from './services.ts';
import { baseUrl, queryPairs } from './url.ts';

export const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
export const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
const MAX_ID = 2 ** 31 - 1;
/** A detail segment: `<pk>` or `<pk>.<format>`, as DRF's router and format suffixes match it. */
const DETAIL_SEGMENT = /^([^/.]+)(?:\.([a-z0-9]+))?$/;

type ListRequest = FastifyRequest<{ Params: { format?: string } }>;
type DetailRequest = FastifyRequest<{ Params: { segment: string } }>;

/** The renderer for this request; an unknown format is 404 without route headers. */
function requireFormat(request: FastifyRequest, suffix: string | undefined, pairs: QueryPairs): Format {
  const format = chooseFormat(request, suffix, pairs);
  if (format === null) throw notFound(false);
  return format;
}

/** The format of a list request, with the list's Allow header from here on. */
export function listFormat(request: ListRequest, reply: FastifyReply): Format {
  const format = requireFormat(request, request.params.format, queryPairs(request));
  reply.header('allow', LIST_ALLOW);
  return format;
}

/** The record id and format of a detail path; 404 without route headers when it is no id. */
export function detailTarget(request: DetailRequest, reply: FastifyReply): { id: number; format: Format } {
  const match = DETAIL_SEGMENT.exec(request.params.segment);
  if (!match) throw notFound(false);
  const format = requireFormat(request, match[2], queryPairs(request));
  if (!/^[0-9]+$/.test(match[1]) || Number(match[1]) > MAX_ID) throw notFound(false);
  reply.header('allow', DETAIL_ALLOW);
  return { id: Number(match[1]), format };
}

/** The list query, or a 400 naming the filter that cannot be applied (decisions D8, D9). */
export function listQuery(resource: Resource, pairs: QueryPairs, caller: Caller): ListQuery {
  try {
    return parseListQuery(resource, pairs, caller);
  } catch (error) {
    if (error instanceof FilterError) throw badFilter(error.message);
    throw error;
  }
}

/** How a CSV answer is written (`bom`, `delimiter`): asked of CSV answers only, as other formats ignore them. */
export function csvOptions(format: string, pairs: QueryPairs): CsvOptions {
  if (format !== 'csv') return PLAIN_CSV;
  try {
    return parseCsvOptions(pairs);
  } catch (error) {
    if (error instanceof CsvOptionError) throw badFilter(error.message);
    throw error;
  }
}

/**
 * The page's neighbours as a Link header (RFC 8288), beside the body's `next` and `previous`:
 * for clients that page by it (httr2, requests' `response.links`).
 */
function linkHeader(reply: FastifyReply, links: { next: string | null; previous: string | null }): void {
  const values = [links.next && `<${links.next}>; rel="next"`, links.previous && `<${links.previous}>; rel="prev"`].filter(Boolean);
  if (values.length) reply.header('link', values.join(', '));
}

/** One record as JSON, as the record's route writes it (compiled once per schema by Fastify). */
const recordSerializer = (reply: FastifyReply, resource: Resource) => reply.compileSerializationSchema(recordSchema(resource)) as (record: unknown) => string;

/** How many records the caller may see that match the list's filters. */
const countOf = (request: FastifyRequest, query: ListQuery) => request.server.services.reader.count(resourceOf(request), request.caller, query.filters);

/** The records of one page from `offset` on as the caller sees them, for both list interfaces; none past the end. */
async function readPage(request: FastifyRequest, query: ListQuery, count: number, offset: number) {
  const resource = resourceOf(request);
  const { reader, timeZone } = request.server.services;
  const caller = request.caller;
  const rows = offset < count ? await reader.page(resource, caller, { order: query.order, pinned: query.pinned, limit: query.limit, offset }, count, query.filters) : [];
  return renderRecords(resource, rows, reader.lookup(caller), { caller, timeZone });
}

/** One record as the caller sees it, or 404. */
export async function renderOne(request: FastifyRequest, id: number): Promise<Record<string, unknown>> {
  const resource = resourceOf(request);
  const { reader, timeZone } = request.server.services;
  const row = await reader.one(resource, request.caller, id);
  if (!row) throw notFound();
  const [record] = await renderRecords(resource, [row], reader.lookup(request.caller), { caller: request.caller, timeZone });
  return record;
}

export async function list(request: ListRequest, reply: FastifyReply) {
  const format = listFormat(request, reply);
  const resource = resourceOf(request);
  return request.server.services.responses.send(request, reply, tablesRead(resource), async () => {
    const pairs = queryPairs(request);
    const query = listQuery(resource, pairs, request.caller);
    // A large page counts against its caller's limit until it is sent (callers.ts): refused before any reading.
    request.server.services.largePages.hold(request, reply, query.limit);
    if (query.page.kind === 'invalid') throw invalidPage();
    const count = await countOf(request, query);
    const page = locatePage(query.page, query.limit, count);
    if (!page) throw invalidPage();
    const csv = csvOptions(format, pairs);
    const results = await readPage(request, query, count, page.offset);
    const links = pageLinks(baseUrl(request), pairs, page);
    linkHeader(reply, links);
    return representList(reply, format, { count, ...links, results }, { listKey: 'results', filename: resource.name, csv }, recordSerializer(reply, resource));
  });
}

/** The legacy offset interface of the original (http.md): same records, filters and order. */
export async function legacyList(request: ListRequest, reply: FastifyReply) {
  const format = requireFormat(request, request.params.format, queryPairs(request));
  const resource = resourceOf(request);
  return request.server.services.responses.send(request, reply, tablesRead(resource), async () => {
    const pairs = queryPairs(request);
    const query = listQuery(resource, pairs, request.caller);
    request.server.services.largePages.hold(request, reply, query.limit);
    const offset = parseOffset(pairs);
    const csv = csvOptions(format, pairs);
    const count = await countOf(request, query);
    // An offset past the end reads nothing, however large it is.
    const objects = await readPage(request, query, count, offset < BigInt(count) ? Number(offset) : count);
    const { next, previous } = offsetLinks(baseUrl(request), pairs, offset, query.limit, count);
    linkHeader(reply, { next, previous });
    const shownOffset = offset <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(offset) : offset;
    const meta = { limit: query.limit, next, offset: shownOffset, previous, total_count: count };
    return representList(reply, format, { meta, objects }, { listKey: 'objects', filename: resource.name, csv }, recordSerializer(reply, resource));
  });
}

export async function detail(request: DetailRequest, reply: FastifyReply) {
  const { id, format } = detailTarget(request, reply);
  const resource = resourceOf(request);
  return request.server.services.responses.send(request, reply, tablesRead(resource), async () => {
    const csv = csvOptions(format, queryPairs(request));
    return represent(reply, format, await renderOne(request, id), { listKey: null, filename: resource.name, csv });
  });
}

export async function listOptions(request: ListRequest, reply: FastifyReply) {
  listFormat(request, reply);
  return send(request, reply, representJson(reply, metadata(resourceOf(request), 'List', request.caller)));
}

export async function detailOptions(request: DetailRequest, reply: FastifyReply) {
  detailTarget(request, reply);
  return send(request, reply, representJson(reply, metadata(resourceOf(request), 'Instance', request.caller)));
}
