/**
 * The ids a list's filters match, whoever asks, kept in memory per version of the list's tables:
 * one read of every match serves the list's every order and page, each read by walking the
 * order's index and checking its ids against the set (pages/in-sql.ts, `among`), where without
 * it each order found the matches again (at scale 100, custom fields named like `ro` by
 * `-help_text`: 0.75–1.0 s a page under the mixed load, the matches found again each time).
 * What the caller may see is checked as the page is walked, so the set holds no caller: the
 * anonymous and every signed-in caller share it, unless a filter follows a relation to records
 * some callers may not see (a masked hop), whose matches depend on who asks.
 *
 * SQLite only (Engine.runAmong): PostgreSQL plans such pages its own way. Sets are read only for
 * lists whose tables have settled (settling.ts): a table being written to would make each set
 * stale before it paid off.
 */
import { filterKey, type FilterTree } from '../../query/filters.ts';
import type { Caller, Resource } from '../../resources/define.ts';
import type { CacheDescription } from '../caches.ts';
import { VersionedCache } from '../data-version.ts';
import type { Engine } from '../engine/index.ts';
import { IdSet } from '../idset.ts';
import { filterMatchQuery } from '../list-sql.ts';
import type { Settling } from '../settling.ts';
import { visibilityKey } from '../visibility.ts';
import { describeVersioned, LIST_TABLES } from './shared.ts';

/** The sets' bitmaps in all: 8 KiB per 65,536 ids of the table's range (at scale 100, 128 KiB for custom fields). */
const KEPT_BYTES = 24 * 1024 * 1024;

/** Whether a filter follows a relation to records some callers may not see. */
function masked(filters: FilterTree): boolean {
  switch (filters.kind) {
    case 'term': return filters.hops.some((hop) => hop.masked);
    case 'not': return masked(filters.item);
    default: return filters.items.some(masked);
  }
}

export class KeptMatches {
  readonly sets = new VersionedCache<IdSet>({ maxWeight: KEPT_BYTES, weigh: (ids) => ids.bytes });
  private readonly engine: Engine;
  private readonly settling: Settling;

  constructor(engine: Engine, settling: Settling) {
    this.engine = engine;
    this.settling = settling;
  }

  /** Whether pages can be read among kept matches at all. */
  get available(): boolean {
    return this.engine.runAmong !== undefined;
  }

  /** Whether a set of the list's matches may be read at `version`: its tables have settled. */
  mayRead(resource: Resource, version: number): boolean {
    return this.settling.settled(resource.name, version);
  }

  /** The set of the filters' matches at `version`: kept, or where `read` and the list's tables have settled, read now; else null. */
  async of(resource: Resource, caller: Caller, filters: FilterTree, version: number, read: boolean): Promise<IdSet | null> {
    const key = `${resource.name}|${masked(filters) ? visibilityKey(caller) : 'whoever asks'}|${filterKey(filters)}`;
    const kept = this.sets.peek(version, key);
    if (kept) return kept;
    if (!read || !this.mayRead(resource, version)) return null;
    return this.sets.get(version, key, async () => IdSet.of(await this.engine.readIds((await filterMatchQuery(this.engine, resource, caller, filters)).compile())));
  }

  caches(): CacheDescription[] {
    return [describeVersioned('kept_matches', this.sets, 'the ids a list\'s filters match, whoever asks (pages read among them)', 'resource, filters (and what the caller may see, where a filter follows a relation to records some may not)', LIST_TABLES, 'bytes')];
  }
}
