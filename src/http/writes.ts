/**
 * Writes over HTTP: POST on a list, PUT / PATCH / DELETE on a record (http.md). The caller was
 * authenticated by auth.ts; the body was parsed by app.ts's content-type parsers; the store
 * validates, checks permissions and writes in one transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiText } from '../resources/messages.ts';
import { storedFields, type Resource, type Row } from '../resources/define.ts';
import type { Problem } from '../resources/validate.ts';
import { formValues } from '../resources/written-values.ts';
import { deleteRecord, saveRecord, WriteRefused, type WriteKind } from '../store/save.ts';
import { invalidData, methodNotAllowed, notADictionary, notAuthenticated, notFound, permissionDenied } from './errors.ts';
import { detailTarget, listFormat, renderOne } from './read-handlers.ts';
import type { Format } from './negotiate.ts';
import { represent, send, sendEmpty } from './respond.ts';
import { resourceOf } from './services.ts';
import { origin } from './url.ts';

type DetailRequest = FastifyRequest<{ Params: { segment: string } }>;

const PYTHON_TYPE: Record<string, string> = { string: 'str', number: 'int', boolean: 'bool', object: 'list' };

/** The request body as a record, or DRF's refusal of anything that is not a dictionary. */
function bodyRecord(request: FastifyRequest): Row {
  // No body at all is an empty one; a JSON `null` is refused below.
  const body = request.body === undefined ? {} : request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Row;
  // DRF's Serializer.run_validation of `null`: "No data provided", not the type's name.
  if (body === null) throw invalidData({ non_field_errors: ['No data provided'] });
  const type = PYTHON_TYPE[Array.isArray(body) ? 'object' : typeof body] ?? typeof body;
  throw notADictionary(type);
}

/** DRF's validation error body: each field's messages, in field order. */
function validationBody(resource: Resource, problems: Problem[]): Record<string, string[]> {
  const order = [...storedFields(resource).map(([name]) => name), ...(resource.nested ?? []).map((nested) => nested.field)];
  const body: Record<string, string[]> = {};
  for (const problem of [...problems].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field))) {
    (body[problem.field] ??= []).push(apiText(problem, resource));
  }
  return body;
}

function refusal(resource: Resource, error: unknown): unknown {
  if (!(error instanceof WriteRefused)) return error;
  if (error.reason === 'not_found') return notFound();
  if (error.reason === 'forbidden') return permissionDenied();
  return invalidData(validationBody(resource, error.problems));
}

export function requireSignedIn(request: FastifyRequest): void {
  if (request.caller.userId === null && !request.caller.isAdmin) throw notAuthenticated();
}

const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** Validates and saves the body as a new record (id null) or over an existing one; its id. */
async function save(request: FastifyRequest, kind: WriteKind, id: number | null): Promise<number> {
  const resource = resourceOf(request);
  const body = bodyRecord(request);
  const input = FORM_TYPES.test(request.headers['content-type'] ?? '') ? formValues(storedFields(resource), body, kind === 'patch') : body;
  try {
    const saved = await saveRecord(request.server.services.engine, resource, request.caller, kind, id, input);
    request.server.services.writes.succeeded();
    return saved;
  } catch (error) {
    throw refusal(resource, error);
  }
}

/** The saved record, as a GET of it in the asked format would show it to the caller (DRF renders writes' answers too). */
async function answerWith(request: FastifyRequest, reply: FastifyReply, id: number, format: Format) {
  return send(request, reply, represent(reply, format, await renderOne(request, id), { listKey: null, filename: resourceOf(request).name }));
}

/** Before a list's POST body is read: anonymous writes are refused first, as DRF authenticates first. */
export async function mayCreate(request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) {
  listFormat(request, reply);
  // DRF authenticates before it looks for the method: a method never allowed is 405 once signed in.
  requireSignedIn(request);
  if (resourceOf(request).readOnly) throw methodNotAllowed('POST');
}

/** Before a record's PUT, PATCH or DELETE body is read. */
export async function mayChange(request: DetailRequest, reply: FastifyReply) {
  if (reply.sent) return;
  detailTarget(request, reply);
  requireSignedIn(request);
  if (resourceOf(request).readOnly) throw methodNotAllowed(request.method);
}

export async function create(request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) {
  const format = listFormat(request, reply);
  const id = await save(request, 'create', null);
  reply.code(201).header('location', `${origin(request)}/rest/v1/${resourceOf(request).name}/${id}/`);
  return answerWith(request, reply, id, format);
}

export async function change(request: DetailRequest, reply: FastifyReply) {
  const { id, format } = detailTarget(request, reply);
  if (request.method === 'DELETE') return remove(request, reply, id);
  await save(request, request.method === 'PUT' ? 'replace' : 'patch', id);
  return answerWith(request, reply, id, format);
}

async function remove(request: FastifyRequest, reply: FastifyReply, id: number) {
  const resource = resourceOf(request);
  try {
    await deleteRecord(request.server.services.engine, resource, request.caller, id);
    request.server.services.writes.succeeded();
  } catch (error) {
    throw refusal(resource, error);
  }
  return sendEmpty(reply, 204);
}
