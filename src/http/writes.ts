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
import type { Engine } from '../store/engine/index.ts';
import { ApiError, notAuthenticated, notFound, permissionDenied } from './errors.ts';

const PYTHON_TYPE: Record<string, string> = { string: 'str', number: 'int', boolean: 'bool', object: 'list' };

/** The request body as a record, or DRF's refusal of anything that is not a dictionary. */
function bodyRecord(request: FastifyRequest): Row {
  const body = request.body ?? {};
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Row;
  const type = body === null ? 'NoneType' : PYTHON_TYPE[Array.isArray(body) ? 'object' : typeof body] ?? typeof body;
  throw new ApiError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] });
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
  return new ApiError(400, validationBody(resource, error.problems));
}

export function requireSignedIn(request: FastifyRequest): void {
  if (request.caller.userId === null && !request.caller.isAdmin) throw notAuthenticated();
}

const isForm = (request: FastifyRequest) => (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/** Saves the body as a new record (id null) or over an existing one; answers with the record. */
export async function save(engine: Engine, resource: Resource, kind: WriteKind, id: number | null, request: FastifyRequest): Promise<number> {
  const input = coerceInput(resource, bodyRecord(request), isForm(request));
  try {
    return await saveRecord(engine, resource, request.caller, kind, id, input);
  } catch (error) {
    throw refusal(resource, error);
  }
}

export async function remove(engine: Engine, resource: Resource, id: number, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  try {
    await deleteRecord(engine, resource, request.caller, id);
  } catch (error) {
    throw refusal(resource, error);
  }
  reply.code(204).removeHeader('content-type');
}
