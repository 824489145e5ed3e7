/**
 * Writes over HTTP: POST on a list, PUT / PATCH / DELETE on a record (http.md). The caller was
 * authenticated by auth.ts; the body was parsed by app.ts's content-type parsers; the store
 * validates, checks permissions and writes in one transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiText } from '../resources/messages.ts';
import { storedFields, type Resource, type Row } from '../resources/define.ts';
import { coerceInput, type Problem } from '../resources/validate.ts';
import { deleteRecord, saveRecord, WriteRefused, type WriteKind } from '../store/save.ts';
import { invalidData, methodNotAllowed, notADictionary, notAuthenticated, notFound, permissionDenied } from './errors.ts';
import { detailTarget, listFormat, renderOne } from './read-handlers.ts';
import { represent, send, sendEmpty } from './respond.ts';
import { resourceOf } from './services.ts';
import { origin } from './url.ts';

type DetailRequest = FastifyRequest<{ Params: { segment: string } }>;

const PYTHON_TYPE: Record<string, string> = { string: 'str', number: 'int', boolean: 'bool', object: 'list' };

/** The request body as a record, or DRF's refusal of anything that is not a dictionary. */
function bodyRecord(request: FastifyRequest): Row {
  const body = request.body ?? {};
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Row;
  const type = body === null ? 'NoneType' : PYTHON_TYPE[Array.isArray(body) ? 'object' : typeof body] ?? typeof body;
  throw notADictionary(type);
}

/** DRF's validation error body: each field's messages, in field order. */
function validationBody(resource: Resource, problems: Problem[]): Record<string, string[]> {
  const order = [...storedFields(resource).map(([name]) => name), ...(resource.nested ?? []).map((nested) => nested.field)];
  const body: Record<string, string[]> = {};
  for (const problem of [...problems].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field))) {
    (body[problem.field] ??= []).push(apiText(problem, resource.name));
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

const isForm = (request: FastifyRequest) => (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/** Validates and saves the body as a new record (id null) or over an existing one; its id. */
async function save(request: FastifyRequest, kind: WriteKind, id: number | null): Promise<number> {
  const resource = resourceOf(request);
  const input = coerceInput(resource, bodyRecord(request), isForm(request));
  try {
    return await saveRecord(request.server.services.engine, resource, request.caller, kind, id, input);
  } catch (error) {
    throw refusal(resource, error);
  }
}

/** The saved record, as a GET of it would show it to the caller. */
async function answerWith(request: FastifyRequest, reply: FastifyReply, id: number) {
  return send(request, reply, represent(reply, 'json', await renderOne(request, id), { listKey: null, filename: resourceOf(request).name }));
}

/** Before a list's POST body is read: anonymous writes are refused first, as DRF authenticates first. */
export async function mayCreate(request: FastifyRequest<{ Params: { format?: string } }>, reply: FastifyReply) {
  listFormat(request, reply);
  // A method never allowed is 405 for everyone, signed in or not.
  if (resourceOf(request).readOnly) throw methodNotAllowed('POST');
  requireSignedIn(request);
}

/** Before a record's PUT, PATCH or DELETE body is read. */
export async function mayChange(request: DetailRequest, reply: FastifyReply) {
  if (reply.sent) return;
  detailTarget(request, reply);
  if (resourceOf(request).readOnly) throw methodNotAllowed(request.method);
  requireSignedIn(request);
}

export async function create(request: FastifyRequest, reply: FastifyReply) {
  const id = await save(request, 'create', null);
  reply.code(201).header('location', `${origin(request)}/rest/v1/${resourceOf(request).name}/${id}/`);
  return answerWith(request, reply, id);
}

export async function change(request: DetailRequest, reply: FastifyReply) {
  const { id } = detailTarget(request, reply);
  if (request.method === 'DELETE') return remove(request, reply, id);
  await save(request, request.method === 'PUT' ? 'replace' : 'patch', id);
  return answerWith(request, reply, id);
}

async function remove(request: FastifyRequest, reply: FastifyReply, id: number) {
  const resource = resourceOf(request);
  try {
    await deleteRecord(request.server.services.engine, resource, request.caller, id);
  } catch (error) {
    throw refusal(resource, error);
  }
  return sendEmpty(reply, 204);
}
