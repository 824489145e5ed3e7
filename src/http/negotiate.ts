/**
 * Which renderer answers (http.md, "Formats and content negotiation"): a path suffix, else
 * `?format=`, else the Accept header; JSON by default, for `format=api` and for browsers
 * (decision D1). An unknown `format` value or suffix is 404.
 */
import Negotiator from 'negotiator';
import type { FastifyRequest } from 'fastify';
import { lastValue, type QueryPairs } from '../query/params.ts';

export type Format = 'json' | 'xml' | 'csv';

const BY_NAME: Record<string, Format> = { '': 'json', json: 'json', api: 'json', xml: 'xml', csv: 'csv' };
const BY_MEDIA_TYPE: Record<string, Format> = { 'application/json': 'json', 'text/html': 'json', 'application/xml': 'xml', 'text/csv': 'csv' };

export function chooseFormat(request: FastifyRequest, suffix: string | undefined, pairs: QueryPairs): Format | null {
  if (suffix !== undefined) return suffix === 'api' ? null : (BY_NAME[suffix] ?? null);
  const asked = lastValue(pairs, 'format');
  if (asked !== undefined) return BY_NAME[asked] ?? null;
  const preferred = new Negotiator(request).mediaType(Object.keys(BY_MEDIA_TYPE));
  return BY_MEDIA_TYPE[preferred ?? 'application/json'] ?? 'json';
}
