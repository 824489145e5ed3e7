/**
 * A list request's paging and ordering, parsed and validated once (http.md, "The list envelope
 * and pagination" and "Ordering").
 */
import type { Caller, OrderTerm, Resource } from '../resources/define.ts';
import { parseFilters, type FilterTree } from './filters.ts';
import { lastValue, linkWith, type QueryPairs } from './params.ts';

export const PAGE_SIZE = 30;
/** http.md, Ordering: only the first keys of `ordering` count. */
export const MAX_ORDER_KEYS = 10;
export const MAX_PAGE_SIZE = 1000;
const PLAIN_INTEGER = /^[0-9]+$/;

export type PageSpec = { kind: 'number'; number: number } | { kind: 'last' } | { kind: 'invalid' };

export interface ListQuery {
  filters: FilterTree;
  page: PageSpec;
  limit: number;
  order: OrderTerm[];
  /** No usable ordering was asked for, so the resource's own order (and pinned ids) applies. */
  pinned: boolean;
}

/** `limit`: a positive integer, at most 1000; anything else means the default 30. */
export function parseLimit(pairs: QueryPairs): number {
  const raw = lastValue(pairs, 'limit');
  if (raw === undefined || !PLAIN_INTEGER.test(raw)) return PAGE_SIZE;
  const size = Number(raw);
  return size > 0 ? Math.min(size, MAX_PAGE_SIZE) : PAGE_SIZE;
}

/** `page`: absent or empty is 1, `last` the last page; 0, negative or not a plain integer is invalid. */
export function parsePage(pairs: QueryPairs): PageSpec {
  const raw = lastValue(pairs, 'page');
  if (raw === undefined || raw === '') return { kind: 'number', number: 1 };
  if (raw === 'last') return { kind: 'last' };
  if (!PLAIN_INTEGER.test(raw)) return { kind: 'invalid' };
  const number = Number(raw);
  return number >= 1 ? { kind: 'number', number } : { kind: 'invalid' };
}

/** Orderable fields: the resource's stored columns and foreign-key ids (derived ones are not). */
function orderable(resource: Resource, name: string): boolean {
  const field = resource.fields[name];
  return field !== undefined && field.kind === 'stored' && field.orderable;
}

/**
 * `ordering=a,-b`: only the first MAX_ORDER_KEYS keys count; unknown or derived names dropped,
 * and a field named again adds nothing; none left means the default order; `id` ascending
 * always ends the order so that pages never overlap or skip (decision D6).
 */
export function parseOrdering(resource: Resource, pairs: QueryPairs): { order: OrderTerm[]; pinned: boolean } {
  const requested = (lastValue(pairs, 'ordering') ?? '')
    .split(',', MAX_ORDER_KEYS)
    .map((term) => term.trim())
    .map((term) => ({ field: term.replace(/^-/, ''), descending: term.startsWith('-') }))
    .filter((term, index, terms) => term.field !== '' && orderable(resource, term.field) && terms.findIndex((other) => other.field === term.field) === index);
  const pinned = requested.length === 0;
  const order = pinned ? [...resource.defaultOrder] : requested;
  if (!order.some((term) => term.field === 'id')) order.push({ field: 'id', descending: false });
  return { order, pinned };
}

/** Throws FilterError for a filter that names a field but cannot be applied, or that the caller may not use. */
export function parseListQuery(resource: Resource, pairs: QueryPairs, caller: Caller): ListQuery {
  return { filters: parseFilters(resource, pairs, caller), page: parsePage(pairs), limit: parseLimit(pairs), ...parseOrdering(resource, pairs) };
}

export interface Page {
  number: number;
  offset: number;
  isLast: boolean;
}

/** Resolves the page against the count; null when it does not exist ("Invalid page."). */
export function locatePage(spec: PageSpec, limit: number, count: number): Page | null {
  const pages = Math.max(1, Math.ceil(count / limit));
  if (spec.kind === 'invalid') return null;
  const number = spec.kind === 'last' ? pages : spec.number;
  if (number > pages) return null;
  return { number, offset: (number - 1) * limit, isLast: number === pages };
}

/** next: the following page; previous: page − 1, without `page` for page 1 (http.md). */
export function pageLinks(base: string, pairs: QueryPairs, page: Page): { next: string | null; previous: string | null } {
  return {
    next: page.isLast ? null : linkWith(base, pairs, 'page', String(page.number + 1)),
    previous: page.number <= 1 ? null : linkWith(base, pairs, 'page', page.number === 2 ? null : String(page.number - 1)),
  };
}

/**
 * The legacy interface's `offset` (http.md): a plain non-negative integer, else 0. Kept exact
 * however large (tastypie echoes `offset=9223372036854775808` as it is).
 */
export function parseOffset(pairs: QueryPairs): bigint {
  const raw = lastValue(pairs, 'offset');
  return raw !== undefined && PLAIN_INTEGER.test(raw) ? BigInt(raw) : 0n;
}

/** `/api/v1/` links: next while records remain; previous without `offset` when it would be 0 or less. */
export function offsetLinks(base: string, pairs: QueryPairs, offset: bigint, limit: number, count: number): { next: string | null; previous: string | null } {
  const back = offset - BigInt(limit);
  return {
    next: offset + BigInt(limit) < BigInt(count) ? linkWith(base, pairs, 'offset', String(offset + BigInt(limit))) : null,
    previous: offset > 0n ? linkWith(base, pairs, 'offset', back > 0n ? String(back) : null) : null,
  };
}
