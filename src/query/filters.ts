/**
 * Field filters (http.md, Filtering): `field=value`, `field__lookup=value`, foreign keys followed
 * to their targets' stored fields (`project__title__icontains=water`), and the Python-literal
 * dictionaries of `filter=`, `exclude=` and `q_filterN`. Parsed and typed here, once, into a
 * tree the store turns into parameterised SQL.
 */
import type { Entity, Resource, StoredField } from '../resources/define.js';
import { ENTITY_BY_TABLE } from '../resources/index.js';
import { isIsoDate, toCanonicalUtc } from '../text/time.js';
import { lastValue, type QueryPairs } from './params.js';
import { LiteralError, parsePythonLiteral, type PyValue } from './python-literal.js';

export const LOOKUPS = ['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'in', 'gt', 'gte', 'lt', 'lte', 'isnull', 'range'] as const;
export type LookupName = (typeof LOOKUPS)[number];
const TEXT_LOOKUPS = new Set<LookupName>(['iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith']);
const RESERVED = new Set(['page', 'limit', 'offset', 'ordering', 'format', 'filter', 'exclude', 'fields']);

export interface FilterTerm {
  kind: 'term';
  /** Foreign keys followed from the record, each with the table it leads to. */
  hops: { foreignKey: string; table: string }[];
  /** The compared field, in the last table reached. */
  name: string;
  field: StoredField;
  lookup: LookupName;
  /** Typed: a value, a list (in, range), or a boolean (isnull); null means IS NULL. */
  value: unknown;
}

export type FilterTree = FilterTerm | { kind: 'and' | 'or'; items: FilterTree[] } | { kind: 'not'; item: FilterTree };

export class FilterError extends Error {}

const invalidValue = (param: string, value: unknown) =>
  new FilterError(`Invalid value for filter '${param}': ${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)}`);

interface Resolved {
  hops: FilterTerm['hops'];
  name: string;
  field: StoredField;
  lookup: LookupName;
}

function storedField(entity: Entity, name: string): StoredField | null {
  const field = entity.fields[name];
  return field && field.kind === 'stored' && field.type !== 'json' ? field : null;
}

/** `a__b__lookup` -> the field it names and the lookup; null when its first part names no field. */
function resolve(table: string, key: string, fail: () => never): Resolved | null {
  const parts = key.split('__');
  let entity = ENTITY_BY_TABLE.get(table) as Entity;
  const hops: FilterTerm['hops'] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const field = storedField(entity, parts[index]);
    if (!field) return index === 0 ? null : fail();
    const rest = parts.slice(index + 1);
    const target = field.references && parts[index] !== 'id' ? ENTITY_BY_TABLE.get(field.references) : undefined;
    if (rest.length === 0) return { hops, name: parts[index], field, lookup: 'exact' };
    if (rest.length === 1 && (LOOKUPS as readonly string[]).includes(rest[0]) && !(target && storedField(target, rest[0]))) {
      return { hops, name: parts[index], field, lookup: rest[0] as LookupName };
    }
    if (!target) return fail();
    hops.push({ foreignKey: parts[index], table: target.table });
    entity = target;
  }
  return fail();
}

/** One value of the field's type, from query-string text or a Python literal; undefined if it does not fit. */
function typed(field: StoredField, value: PyValue): unknown {
  if (value === null) return undefined;
  const text = typeof value === 'string' ? value.trim() : value;
  switch (field.type) {
    case 'int':
      if (typeof text === 'number') return Number.isInteger(text) ? text : undefined;
      return typeof text === 'string' && /^[+-]?\d{1,15}$/.test(text) ? Number(text) : undefined;
    case 'decimal':
      if (typeof text === 'number') return text;
      return typeof text === 'string' && /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : undefined;
    case 'bool':
      if (typeof text === 'boolean') return text;
      return { true: true, True: true, '1': true, false: false, False: false, '0': false }[String(text)];
    case 'date':
      return typeof text === 'string' && isIsoDate(text) ? text : undefined;
    case 'timestamp':
      if (typeof text !== 'string') return undefined;
      return isIsoDate(text) ? `${text}T00:00:00.000000Z` : (toCanonicalUtc(text) ?? undefined);
    default:
      return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  }
}

const flag = (value: PyValue) => (typeof value === 'boolean' ? value : { true: true, True: true, '1': true, false: false, False: false, '0': false }[String(value)]);

/** The typed value of a lookup; `fromText` splits comma lists the way query strings write them. */
function lookupValue(resolved: Resolved, value: PyValue, fromText: boolean, fail: () => never): unknown {
  const { field, lookup } = resolved;
  if (TEXT_LOOKUPS.has(lookup) && field.type !== 'text') return fail();
  if (lookup === 'isnull') return flag(value) ?? fail();
  if (lookup === 'exact' && value === null) return null;
  if (lookup === 'in' || lookup === 'range') {
    const items = fromText && typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : fail();
    if (lookup === 'range' && items.length !== 2) return fail();
    return items.map((item) => typed(field, item) ?? fail());
  }
  return typed(field, value) ?? fail();
}

function term(table: string, key: string, value: PyValue, fromText: boolean, unknownKey: () => never, invalid: () => never): FilterTerm | null {
  const resolved = resolve(table, key, invalid);
  if (!resolved) return fromText ? null : unknownKey();
  return { kind: 'term', ...resolved, value: lookupValue(resolved, value, fromText, invalid) };
}

/** A dictionary parameter: every key must name a field; the terms are ANDed. */
function dictionary(table: string, param: string, text: string): FilterTree {
  let parsed: PyValue;
  try {
    parsed = parsePythonLiteral(text);
  } catch (error) {
    if (error instanceof LiteralError) throw new FilterError(`Query param ${param} is invalid`);
    throw error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FilterError(`Query param ${param} is invalid`);
  const items = Object.entries(parsed).map(([key, value]) => {
    const unknownKey = (): never => {
      throw new FilterError(`Error in request: Cannot resolve keyword '${key.split('__')[0]}' into field.`);
    };
    return term(table, key, value, false, unknownKey, () => {
      throw invalidValue(key, value);
    }) as FilterTerm;
  });
  return { kind: 'and', items };
}

/** Every filter of a request, ANDed: field parameters, `filter`, NOT `exclude`, and the ORed `q_filterN`. */
export function parseFilters(resource: Resource, pairs: QueryPairs): FilterTree {
  const items: FilterTree[] = [];
  for (const [key, value] of pairs) {
    if (RESERVED.has(key) || /^q_filter\d+$/.test(key)) continue;
    const found = term(resource.table, key, value, true, () => {
      throw invalidValue(key, value);
    }, () => {
      throw invalidValue(key, value);
    });
    if (found) items.push(found);
  }
  const filter = lastValue(pairs, 'filter');
  if (filter) items.push(dictionary(resource.table, 'filter', filter));
  const exclude = lastValue(pairs, 'exclude');
  if (exclude) items.push({ kind: 'not', item: dictionary(resource.table, 'exclude', exclude) });
  const alternatives: FilterTree[] = [];
  for (let number = 1; ; number += 1) {
    const text = lastValue(pairs, `q_filter${number}`);
    if (text === undefined) break;
    alternatives.push(dictionary(resource.table, `q_filter${number}`, text));
  }
  if (alternatives.length) items.push({ kind: 'or', items: alternatives });
  return { kind: 'and', items };
}

/** A text that is the same for the same filters (a cache key): the tree without field declarations. */
export function filterKey(filters: FilterTree | undefined): string {
  return JSON.stringify(filters ?? null, (key, value) => (key === 'field' ? undefined : value));
}
