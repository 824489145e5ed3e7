/**
 * Field filters (http.md, Filtering): `field=value`, `field__lookup=value`, foreign keys followed
 * to their targets' stored fields (`project__title__icontains=water`), and the Python-literal
 * dictionaries of `filter=`, `exclude=` and `q_filterN`. Parsed and typed here, once, into a
 * tree the store turns into parameterised SQL.
 */
import type { Caller, Entity, Resource, StoredField } from '../resources/define.ts';
import { ENTITY_BY_TABLE } from '../resources/index.ts';
import { isIsoDate, toCanonicalUtc } from '../text/time.ts';
import { lastValue, type QueryPairs } from './params.ts';
import { LiteralError, parsePythonLiteral, type PyValue } from './python-literal.ts';

export const LOOKUPS = ['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'in', 'gt', 'gte', 'lt', 'lte', 'isnull', 'range'] as const;
export type LookupName = (typeof LOOKUPS)[number];
const TEXT_LOOKUPS = new Set<LookupName>(['iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith']);

/** The lookups a field's filter takes: text lookups on text fields only. */
export const lookupsOf = (field: StoredField): LookupName[] => LOOKUPS.filter((lookup) => field.type === 'text' || !TEXT_LOOKUPS.has(lookup));
const RESERVED = new Set(['page', 'limit', 'offset', 'ordering', 'format', 'filter', 'exclude', 'fields']);

/** http.md, Filtering: the limits that keep a hostile query string from costing the database. */
export const MAX_HOPS = 10;
export const MAX_TERMS = 50;

/** A foreign key followed from one record to the record it names. */
export interface Hop {
  foreignKey: string;
  table: string;
  /**
   * The related record may be one the caller may not see (a visible project's private parent):
   * only visible ones may match, so that no answer depends on what the caller cannot see.
   */
  masked: boolean;
}

export interface FilterTerm {
  kind: 'term';
  /** Foreign keys followed from the record, each with the table it leads to. */
  hops: Hop[];
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
const notAllowed = (param: string) => new FilterError(`Invalid filter '${param}'`);
const tooDeep = (param: string) => new FilterError(`Filter path too deep: '${param}'`);
const tooMany = () => new FilterError('Too many filters');

interface Resolved {
  hops: Hop[];
  name: string;
  field: StoredField;
  lookup: LookupName;
}

/** The stored field `name` (or an alias of it) names, with its own name; json fields filter nothing. */
function storedField(entity: Entity, name: string): [string, StoredField] | null {
  const own = entity.filterAliases?.[name] ?? name;
  const field = entity.fields[own];
  return field && field.kind === 'stored' && field.type !== 'json' ? [own, field] : null;
}

const mayFilter = (field: StoredField, caller: Caller) => field.filter === undefined || (field.filter === 'admins' && caller.isAdmin);

/**
 * The foreign keys from a record of `resource` that lead to records the caller may see, because
 * the record itself is visible only when they are (its visibility path); null when the record
 * is not tied to a project.
 */
function visiblePath(resource: Resource): readonly string[] | null {
  if (resource.visibility.kind === 'project') return resource.visibility.path;
  return resource.visibility.kind === 'own-projects' ? [] : null;
}

const projectTied = (entity: Entity) => entity.projectPath !== undefined;

/**
 * `a__b__lookup` -> the field it names and the lookup; null when its first part names no field.
 * Every field on the way must be one the caller may filter by; a hop off the visibility path
 * into records tied to a project is masked (see Hop).
 */
function resolve(resource: Resource, key: string, caller: Caller, fail: () => never): Resolved | null {
  const parts = key.split('__');
  let entity: Entity = resource;
  let path = visiblePath(resource);
  const hops: Hop[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const found = storedField(entity, parts[index]);
    if (!found) return index === 0 ? null : fail();
    if (parts.length > MAX_HOPS + 2) throw tooDeep(key);
    const [name, field] = found;
    if (!mayFilter(field, caller)) throw notAllowed(key);
    const rest = parts.slice(index + 1);
    const target = field.references && name !== 'id' ? ENTITY_BY_TABLE.get(field.references) : undefined;
    const masked = target !== undefined && !caller.isAdmin && projectTied(target) && path?.[0] !== name;
    const isLookup = rest.length === 1 && (LOOKUPS as readonly string[]).includes(rest[0]) && !(target && storedField(target, rest[0]));
    if (rest.length === 0 || isLookup) {
      const lookup = (rest[0] ?? 'exact') as LookupName;
      // A foreign key reached through a relation is not shown: it compares as the record it names.
      if (masked && hops.length > 0) return { hops: [...hops, { foreignKey: name, table: target.table, masked }], name: 'id', field: target.fields.id as StoredField, lookup };
      return { hops, name, field, lookup };
    }
    if (!target) return fail();
    if (hops.length === MAX_HOPS) throw tooDeep(key);
    hops.push({ foreignKey: name, table: target.table, masked });
    entity = target;
    path = target.projectPath ?? null;
  }
  return fail();
}

const INT_RANGE = 2 ** 31;

/** Text the databases can compare: no NUL (PostgreSQL refuses it), no lone surrogates. */
const comparableText = (text: string) => !text.includes('\0') && text.isWellFormed();

/** One value of the field's type, from query-string text or a Python literal; undefined if it does not fit. */
function typed(field: StoredField, value: PyValue): unknown {
  if (value === null) return undefined;
  if (typeof value === 'string' && !comparableText(value)) return undefined;
  const text = typeof value === 'string' ? value.trim() : value;
  switch (field.type) {
    case 'int': {
      const number = typeof text === 'number' ? text : typeof text === 'string' && /^[+-]?\d{1,10}$/.test(text) ? Number(text) : NaN;
      // Integer columns hold 32 bits: a value beyond them would be a database error, not "no match".
      return Number.isInteger(number) && number >= -INT_RANGE && number < INT_RANGE ? number : undefined;
    }
    case 'decimal': {
      const number = typeof text === 'number' ? text : typeof text === 'string' && /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
      return Number.isFinite(number) ? number : undefined;
    }
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

/**
 * One filter; null when its name is no field (ignored in a query string). Whether a masked
 * relation is empty is asked as "does it name a visible record" (exists), never of the id itself.
 */
function term(resource: Resource, caller: Caller, key: string, value: PyValue, fromText: boolean, unknownKey: () => never, invalid: () => never): FilterTree | null {
  const resolved = resolve(resource, key, caller, invalid);
  if (!resolved) return fromText ? null : unknownKey();
  const typedValue = lookupValue(resolved, value, fromText, invalid);
  const last = resolved.hops.at(-1);
  const asksEmpty = resolved.lookup === 'isnull' ? typedValue === true : resolved.lookup === 'exact' && typedValue === null;
  if (last?.masked && resolved.name === 'id' && asksEmpty) {
    return { kind: 'not', item: { kind: 'term', ...resolved, lookup: 'isnull', value: false } };
  }
  return { kind: 'term', ...resolved, value: typedValue };
}

/** Counts the terms of a request as they are read: more than MAX_TERMS is refused before any is applied. */
class TermBudget {
  private used = 0;

  spend(count = 1): void {
    this.used += count;
    if (this.used > MAX_TERMS) throw tooMany();
  }
}

/** A dictionary parameter: every key must name a field; the terms are ANDed. */
function dictionary(resource: Resource, caller: Caller, param: string, text: string, budget: TermBudget): FilterTree {
  let parsed: PyValue;
  try {
    parsed = parsePythonLiteral(text);
  } catch (error) {
    if (error instanceof LiteralError) throw new FilterError(`Query param ${param} is invalid`);
    throw error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FilterError(`Query param ${param} is invalid`);
  const entries = Object.entries(parsed);
  budget.spend(Math.max(1, entries.length));
  const items = entries.map(([key, value]) => {
    const unknownKey = (): never => {
      throw new FilterError(`Error in request: Cannot resolve keyword '${key.split('__')[0]}' into field.`);
    };
    return term(resource, caller, key, value, false, unknownKey, () => {
      throw invalidValue(key, value);
    }) as FilterTree;
  });
  return { kind: 'and', items };
}

/**
 * Every filter of a request, ANDed: field parameters, `filter`, NOT `exclude`, and the ORed
 * `q_filterN`. What the caller may filter by depends on who they are (http.md, Filtering).
 */
export function parseFilters(resource: Resource, pairs: QueryPairs, caller: Caller): FilterTree {
  const budget = new TermBudget();
  const items: FilterTree[] = [];
  for (const [key, value] of pairs) {
    if (RESERVED.has(key) || /^q_filter\d+$/.test(key)) continue;
    const invalid = () => {
      throw invalidValue(key, value);
    };
    const found = term(resource, caller, key, value, true, invalid, invalid);
    if (found) {
      budget.spend();
      items.push(found);
    }
  }
  const filter = lastValue(pairs, 'filter');
  if (filter) items.push(dictionary(resource, caller, 'filter', filter, budget));
  const exclude = lastValue(pairs, 'exclude');
  if (exclude) items.push({ kind: 'not', item: dictionary(resource, caller, 'exclude', exclude, budget) });
  const alternatives: FilterTree[] = [];
  for (let number = 1; ; number += 1) {
    const text = lastValue(pairs, `q_filter${number}`);
    if (text === undefined) break;
    alternatives.push(dictionary(resource, caller, `q_filter${number}`, text, budget));
  }
  if (alternatives.length) items.push({ kind: 'or', items: alternatives });
  return { kind: 'and', items };
}

/** Whether the filters only look at the list's own fields (no foreign key followed). */
export function ownFieldsOnly(filters: FilterTree | undefined): boolean {
  if (!filters) return true;
  switch (filters.kind) {
    case 'term': return filters.hops.length === 0;
    case 'not': return ownFieldsOnly(filters.item);
    default: return filters.items.every(ownFieldsOnly);
  }
}

/** Whether the tree filters anything (parseFilters gives an empty `and` for none). */
export const filtersAnything = (filters: FilterTree | undefined): boolean => filters !== undefined && !(filters.kind === 'and' && filters.items.length === 0);

/** Each parsed tree's key, made once: a request's reads ask for it many times (counts, pages, kept matches, statements). */
const filterKeys = new WeakMap<FilterTree, string>();

/**
 * A text that is the same for the same filters (a cache key): the tree without field declarations.
 * No filters and an empty `and` (a request's none) are the same key: what is counted for one at
 * start (ProjectCounts#warm) is found for the other. A tree is not changed once parsed.
 */
export function filterKey(filters: FilterTree | undefined): string {
  if (!filters || !filtersAnything(filters)) return 'null';
  let key = filterKeys.get(filters);
  if (key === undefined) filterKeys.set(filters, (key = JSON.stringify(filters, (name, value) => (name === 'field' ? undefined : value))));
  return key;
}
