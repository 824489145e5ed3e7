/**
 * The routes of each resource, one plugin per resource, generated from its declaration: the
 * list and one record (with their format-suffix forms), the legacy /api/v1/ list, OPTIONS, the
 * writes, and 405 for the methods a route does not offer. The handlers live in
 * read-handlers.ts and writes.ts and find the resource in the route's config.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../resources/define.ts';
import { methodNotAllowed } from './errors.ts';
import { detail, detailOptions, detailTarget, LIST_ALLOW, legacyList, list, listOptions } from './read-handlers.ts';
import { legacySchema, pageSchema, recordSchema } from './schemas.ts';
import { redirectWithSlash } from './url.ts';
import { change, create, mayChange, mayCreate, requireSignedIn } from './writes.ts';

type DetailRequest = FastifyRequest<{ Params: { segment: string } }>;

/** A method the path never offers: 405 with the path's Allow, once signed in (DRF authenticates first). */
async function refuseOnList(request: FastifyRequest, reply: FastifyReply) {
  reply.header('allow', LIST_ALLOW);
  requireSignedIn(request);
  throw methodNotAllowed(request.method);
}

async function refuseOnDetail(request: DetailRequest, reply: FastifyReply) {
  detailTarget(request, reply);
  requireSignedIn(request);
  throw methodNotAllowed(request.method);
}

/** `/<id>` without slash or suffix is not a route of its own: Django's APPEND_SLASH redirects it. */
async function slashRedirect(request: DetailRequest, reply: FastifyReply) {
  if (!request.routeOptions.url?.endsWith('/') && !request.params.segment.includes('.')) return redirectWithSlash(request, reply);
}

export async function resourceRoutes(app: FastifyInstance, { resource }: { resource: Resource }): Promise<void> {
  const config = { resource };
  const record = { response: { 200: recordSchema(resource) } };
  app.get(`/api/v1/${resource.name}/`, { config, schema: { response: { 200: legacySchema(resource) } } }, legacyList);
  for (const url of [`/rest/v1/${resource.name}/`, `/rest/v1/${resource.name}.:format`, `/rest/v1/${resource.name}.:format/`]) {
    app.get(url, { config, schema: { response: { 200: pageSchema(resource) } } }, list);
    app.options(url, { config }, listOptions);
    app.post(url, { config, schema: { response: { 201: recordSchema(resource) } }, onRequest: mayCreate }, create);
    app.route({ method: ['PUT', 'PATCH', 'DELETE'], url, config, handler: refuseOnList });
  }
  for (const url of [`/rest/v1/${resource.name}/:segment/`, `/rest/v1/${resource.name}/:segment`]) {
    app.get(url, { config, onRequest: slashRedirect, schema: record }, detail);
    app.options(url, { config, onRequest: slashRedirect }, detailOptions);
    app.route({ method: ['PUT', 'PATCH', 'DELETE'], url, config, schema: record, onRequest: [slashRedirect, mayChange], handler: change });
    app.post(url, { config, onRequest: slashRedirect }, refuseOnDetail);
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
