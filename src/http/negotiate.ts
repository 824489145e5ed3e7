/**
 * Which renderer answers (http.md, "Formats and content negotiation"). JSON for everything,
 * including `?format=api` (decision D1); a path suffix overrides `?format=`; any other format
 * value is 404.
 */
import { lastValue, type QueryPairs } from '../query/params.js';

export type Format = 'json';

const JSON_NAMES = new Set(['', 'json', 'api']);

export function chooseFormat(suffix: string | undefined, pairs: QueryPairs): Format | null {
  if (suffix !== undefined) return suffix === 'json' ? 'json' : null;
  const asked = lastValue(pairs, 'format');
  return asked === undefined || JSON_NAMES.has(asked) ? 'json' : null;
}
