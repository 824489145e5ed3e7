/** What a route needs of the request's URL, read the same way everywhere. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseQueryString, type QueryPairs } from '../query/params.ts';
import { sendEmpty } from './respond.ts';

/** The path and the query (with its `?`, or ''), as the client sent them. */
export function splitUrl(url: string): [path: string, query: string] {
  const index = url.indexOf('?');
  return index === -1 ? [url, ''] : [url.slice(0, index), url.slice(index)];
}

export function queryPairs(request: FastifyRequest): QueryPairs {
  return parseQueryString(splitUrl(request.url)[1].slice(1));
}

/** Scheme and host as the client addressed them; the server's own address when it named none (HTTP/1.0). */
export function origin(request: FastifyRequest): string {
  const socket = request.raw.socket;
  const host = request.host || `${socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress}:${socket.localPort}`;
  return `${request.protocol}://${host}`;
}

/** The request's own absolute URL without its query. */
export function baseUrl(request: FastifyRequest): string {
  return `${origin(request)}${splitUrl(request.url)[0]}`;
}

/** Django's APPEND_SLASH: 301 to the same path with a slash, query kept. */
export function redirectWithSlash(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const [path, query] = splitUrl(request.url);
  return sendEmpty(reply, 301, { location: `${path}/${query}` });
}
