/**
 * What answers carry: the headers respond.ts and the routes send, the error answers (one
 * component per status, from the error catalogue's two shapes), 304, and the media types reads
 * and writes answer with. Operations name these by reference, so each is described once.
 */
import { jsonContent, ref, type Json } from './json.ts';

/** The headers respond.ts (and the routes) send, each described once. */
export const HEADERS: Record<string, Json> = {
  ETag: { description: 'The SHA-1 of the body: send it back in If-None-Match to be answered 304 while it is unchanged. Absent from answers sent as they are made (JSON lists of 300 records or more, the organisation export).', schema: { type: 'string' } },
  Vary: { description: '`Accept`, with `Accept-Encoding` when the body is compressed (and `Origin` where CORS origins are configured).', required: true, schema: { type: 'string' } },
  Allow: { description: "The methods the path takes: on the answers of lists and records (a refusal's too, where DRF's router sends it).", schema: { type: 'string' } },
  Location: { description: "The new record's URL.", required: true, schema: { type: 'string', format: 'uri' } },
  'Retry-After': { description: 'Seconds to wait before trying again: always with 429; with 503 unless a query was stopped for taking too long.', schema: { type: 'integer', minimum: 1 } },
  'Content-Disposition': { description: 'The file name to save the body as: `attachment; filename="…"` (CSV answers and report files; not the HTML preview of a report).', schema: { type: 'string' } },
  Link: { description: 'The neighbouring pages of a list (RFC 8288): `<url>; rel="next"`, `<url>; rel="prev"`, as the body\'s `next` and `previous`; absent on a list of one page.', schema: { type: 'string' } },
  'X-Total-Count': { description: 'How many records the whole list held when its download began.', required: true, schema: { type: 'integer', minimum: 0 } },
  'Set-Cookie': { description: '`<did>=True; Path=/` when the request named a download id (`did`): a page waiting for the file sees that it came.', schema: { type: 'string' } },
};
export const headers = (...names: string[]) => Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

export const ERROR = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };
export const FIELD_ERRORS = { type: 'object', description: 'Messages per field (or `non_field_errors`), or a `detail`.', additionalProperties: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] } };
const RESPONSES: Record<string, [description: string, schema: 'Error' | 'FieldErrors', headers: string[]]> = {
  400: ['A filter, page or body that cannot be used: a `detail`, or messages per field.', 'FieldErrors', []],
  401: ['Signing in is needed (report downloads).', 'Error', []],
  403: ['No credentials, a bad token, or no permission.', 'Error', []],
  404: ['No such record or page (or one the caller may not see), or an unknown format.', 'Error', []],
  413: ['The body is too large (over 1 MiB).', 'Error', []],
  415: ['The body is of a media type not accepted.', 'Error', []],
  429: ['Too many requests (when a rate limit is set): try again after Retry-After seconds.', 'Error', ['Retry-After']],
  503: ['The database is away, the service overloaded or a query too long: try again (after Retry-After seconds, where it says).', 'Error', ['Retry-After']],
};
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), ref('responses', String(status))]));
/** Every GET answers If-None-Match naming its current ETag with 304 (respond.ts). */
export const NOT_MODIFIED = { 304: ref('responses', 'NotModified') };

/** components.responses: one per error status, and 304. */
export function responseComponents(): Record<string, Json> {
  return {
    ...Object.fromEntries(Object.entries(RESPONSES).map(([status, [description, schema, more]]) => [status, { description, headers: headers('Vary', 'Allow', ...more), content: jsonContent(ref('schemas', schema)) }])),
    NotModified: { description: 'Not Modified: If-None-Match names the current ETag; no body.', headers: headers('ETag', 'Vary', 'Allow', 'Set-Cookie') },
  };
}

/** What reads answer with, and writes the record they stored: JSON, or XML or CSV when `?format=` or Accept asks for it. */
export const LIST_CONTENT = (schema: Json) => ({
  ...jsonContent(schema),
  'application/xml': { schema: { type: 'string' } },
  'text/csv': { schema: { type: 'string' } },
});
