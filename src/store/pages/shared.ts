/** What the ways of finding a page share: the key of a list as a caller sees it, and what a long read is. */
import { filterKey, type FilterTree } from '../../query/filters.ts';
import type { Caller, Resource } from '../../resources/define.ts';
import type { CacheDescription } from '../caches.ts';
import type { VersionedCache } from '../data-version.ts';
import type { PageRequest } from '../list-sql.ts';
import { visibilityKey } from '../visibility.ts';

/** Reads that walk or return this many rows run off the event loop (Engine.runLong). */
export const LONG_ROWS = 300;

/** A list as a caller sees it: its resource, what the caller may see, and the filters. */
export const listKey = (resource: Resource, caller: Caller, filters?: FilterTree) => `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}`;

/** That list in a page's order: what noted positions (seek.ts) and walks that came up short (in-sql.ts) are kept by. */
export const orderedListKey = (resource: Resource, caller: Caller, page: Pick<PageRequest, 'order'>, filters?: FilterTree) => `${listKey(resource, caller, filters)}|${JSON.stringify(page.order)}`;

/** What makes an entry about a list stale. */
export const LIST_TABLES = "a write to any table the resource's answers are read from (its stamp)";

/** A VersionedCache as the registry describes it (caches.ts). */
export function describeVersioned(name: string, cache: Pick<VersionedCache<unknown>, 'limits' | 'figures'>, holds: string, key: string, stale: string, unit = ''): CacheDescription {
  const { entries, weight, idleMs } = cache.limits;
  const most = `${entries.toLocaleString('en')} entries${Number.isFinite(weight) ? `, ${weight.toLocaleString('en')} ${unit}` : ''}`;
  return { name, holds, key, bound: `${most}; an entry unused for ${idleMs / 60_000} minutes goes`, stale, figures: () => cache.figures() };
}
