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
 * A write does not make a set stale where the filters look at the list's own fields only and the
 * table carries its records' project: the projects the change log names (data-version.ts) are
 * read again, their records' ids taken out of a copy of the set and their matches put in (at
 * scale 100 a few dozen records, where the set's read is a scan of up to a million). Lists being
 * written to, whose versions move many times a second, then keep their sets as other lists do
 * (with 5 % writes, links, budget items and transactions searched for two letters were walked
 * and sorted again at each new version). Other sets are read only for lists whose tables have
 * settled (settling.ts): a table being written to would make each set stale before it paid off.
 *
 * A set read whole is told to the service's other workers (Neighbours), which keep it where they
 * hold none as new: the scan is made once per service, not once per worker that meets the filter.
 *
 * Both stores (Engine.runAmong, Dialect.among): SQLite's reader thread is handed the set's shared
 * memory; PostgreSQL is sent it with the statement, one bitmap, each id a bit read by get_bit
 * (at scale 100, custom fields' values like `he` by `type`: 17–37 ms a page among the 484,000
 * matches, where a walk checking each row's text took 0.4–1.1 s under the mixed load).
 */
import { filterKey, ownFieldsOnly, type FilterTree } from '../../query/filters.ts';
import { SERVICE, type Caller, type Resource } from '../../resources/define.ts';
import { entityOf } from '../../resources/index.ts';
import type { CacheDescription } from '../caches.ts';
import { projectColumnName } from '../columns.ts';
import type { ChangedProjects } from '../changed-projects.ts';
import { VersionedCache } from '../data-version.ts';
import type { Engine, Tally } from '../engine/index.ts';
import { decidedOnKeys, servedByIndex } from '../filter-sql.ts';
import { IdSet } from '../idset.ts';
import { filterMatchQuery, matchesAndProjectsQuery, projectMatchesQuery } from '../list-sql.ts';
import type { Neighbours } from '../project-counts.ts';
import type { Settling } from '../settling.ts';
import { visibilityKey } from '../visibility.ts';
import { describeVersioned, LIST_TABLES } from './shared.ts';

/** The sets' bitmaps in all: 8 KiB per 65,536 ids of the table's range (at scale 100, 128 KiB for custom fields). */
const KEPT_BYTES = 24 * 1024 * 1024;

/**
 * The ids a first count read beside its tally (KeptMatches#tallied), until a page takes them as
 * its set: at most this many bytes, of a few lists (a set of 932,000 custom fields' ids, 3.7 MB).
 */
const OFFERED_BYTES = 16 * 1024 * 1024;
const OFFERED_LISTS = 16;

/** A write to more projects than this (an import) makes a set read again whole rather than patched. */
const PATCH_PROJECTS = 1000;

/** A set read whole, as it goes to another worker (IdSet#flat). */
export type SharedMatches = { key: string; version: number; keys: Int32Array; bits: Uint32Array };

/** A set's key: the list and filters, and what the caller may see where the filters depend on it (masked). */
const setKey = (resource: Resource, caller: Caller, filters: FilterTree) => `${resource.name}|${masked(filters) ? visibilityKey(caller) : 'whoever asks'}|${filterKey(filters)}`;

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
  /** The matches a first count read, at its version, until a page takes them as its set (tallied). */
  private readonly offered = new VersionedCache<Int32Array>({ maxEntries: OFFERED_LISTS, maxWeight: OFFERED_BYTES, weigh: (ids) => ids.byteLength });
  /** Sets patched from older ones, and the projects read again for them (tests). */
  patches = 0;
  projectsRead = 0;
  private readonly engine: Engine;
  /** What the change log says of a stretch of versions, asked once for every entry behind. */
  private readonly changes: ChangedProjects;
  private readonly settling: Settling;
  private readonly neighbours: Neighbours<SharedMatches> | undefined;

  constructor(engine: Engine, settling: Settling, changes: ChangedProjects, neighbours?: Neighbours<SharedMatches>) {
    this.engine = engine;
    this.changes = changes;
    this.settling = settling;
    this.neighbours = neighbours;
    neighbours?.hear((shared) => this.take(shared));
  }

  /** Whether pages can be read among kept matches at all. */
  get available(): boolean {
    return this.engine.runAmong !== undefined;
  }

  /** Whether a set of the list's matches may be read at `version`: it is kept across writes, or the list's tables have settled. */
  mayRead(resource: Resource, version: number, filters: FilterTree): boolean {
    return this.patchable(resource, filters) || this.settling.settled(resource.name, version);
  }

  /**
   * The set of the filters' matches at `version`: kept, patched from an older one, or where
   * `read` and mayRead, read now; else null.
   */
  async of(resource: Resource, caller: Caller, filters: FilterTree, version: number, read: boolean): Promise<IdSet | null> {
    const key = setKey(resource, caller, filters);
    const kept = this.sets.peek(version, key);
    if (kept) return kept;
    const older = this.sets.latest(key);
    if (older && older.version < version && this.patchable(resource, filters)) {
      return this.sets.get(version, key, () => this.patched(resource, caller, filters, key, older, version));
    }
    if (!read || !this.mayRead(resource, version, filters)) return null;
    return this.sets.get(version, key, () => this.read(resource, caller, filters, key, version));
  }

  /**
   * The projects of the filters' matches tallied (a first count, project-counts.ts), read by the
   * same scan as their ids, which are offered to a page of the same version that reads the set.
   * Where no index serves the filters (a two-letter search of a text of many distinct keys) each
   * read every record, and the page's walk, checking each row, gives way to the set where it
   * comes up short (at scale 100 on PostgreSQL, custom fields' values like `ed` by `type`: the
   * count 1.1 s, then the set 0.5 s; both at once 0.8 s). Only offered, not kept: a set kept is
   * patched at every write to its list, and a page whose walk meets its matches needs none (kept
   * so, every set a first count read: with 5 % writes at scale 100 on SQLite, 551–590 requests a
   * second where 702–747). Null where the count reads its own way: an index serves the filters,
   * a set is kept already, or writes do not patch the list's sets.
   */
  async tallied(resource: Resource, filters: FilterTree, version: number): Promise<Tally | null> {
    if (!this.available || !this.patchable(resource, filters) || !this.scansEveryRecord(resource, filters)) return null;
    const key = setKey(resource, SERVICE, filters);
    if ((this.sets.latest(key)?.version ?? -1) >= version) return null;
    const { ids, tally } = await this.engine.readIdsTallied(matchesAndProjectsQuery(this.engine, resource, filters).compile());
    this.offered.put(version, key, ids);
    return tally;
  }

  /** Whether no index serves the filters: their matches, for a count or a set, are found by reading every record. */
  scansEveryRecord(resource: Resource, filters: FilterTree): boolean {
    return !servedByIndex(filters, decidedOnKeys(this.engine, resource.table));
  }

  /** A set another worker read whole: kept unless one as new or newer is held or being read here. */
  private take({ key, version, keys, bits }: SharedMatches): void {
    const held = this.sets.latest(key);
    const set = IdSet.fromFlat({ keys, bits });
    if (set && !(held && held.version >= version)) this.sets.put(version, key, set);
  }

  /** Whether a write leaves the list's sets to be patched, not read again (see above). */
  private patchable(resource: Resource, filters: FilterTree): boolean {
    return ownFieldsOnly(filters) && projectColumnName(entityOf(resource.table)) !== null;
  }

  /** Every match read, and told to the other workers. */
  private async read(resource: Resource, caller: Caller, filters: FilterTree, key: string, version: number): Promise<IdSet> {
    const offered = this.offered.peek(version, key);
    // Taken once: the set holds them from now on.
    if (offered) this.offered.delete(key);
    const set = IdSet.of(offered ? await offered : await this.engine.readIds((await filterMatchQuery(this.engine, resource, caller, filters)).compile()));
    this.neighbours?.tell({ key, version, ...set.flat() });
    return set;
  }

  /** The set at `older`'s version brought to `version`: the projects changed since read again (all, where the log cannot name them). */
  private async patched(resource: Resource, caller: Caller, filters: FilterTree, key: string, older: { version: number; value: Promise<IdSet> }, version: number): Promise<IdSet> {
    const [set, changed] = await Promise.all([older.value.catch(() => null), this.changes.between(resource.table, older.version, version)]);
    if (!set || !changed || changed.size > PATCH_PROJECTS) return this.read(resource, caller, filters, key, version);
    const projects = [...changed];
    // A few projects' records, through the project's index: read at once on the service's own
    // connection, not queued behind the reader threads' scans (a page would wait twice).
    const ids = async (filtered?: FilterTree) => (await this.engine.run(projectMatchesQuery(this.engine, resource, projects, filtered).compile())).map((row) => Number(row.id));
    // Every record of those projects out, their matches in: a record deleted stays in the set,
    // where no walk of the table meets it.
    const [records, matches] = [await ids(), await ids(filters)];
    this.patches += 1;
    this.projectsRead += projects.length;
    return set.patched(records, matches);
  }

  caches(): CacheDescription[] {
    return [
      describeVersioned('offered_matches', this.offered, 'the ids of a filter\'s matches a first count read with its tally, until a page takes them as its set', 'resource, filters', LIST_TABLES, 'bytes'),
      describeVersioned('kept_matches', this.sets, 'the ids a list\'s filters match, whoever asks (pages read among them)', 'resource, filters (and what the caller may see, where a filter follows a relation to records some may not)', `${LIST_TABLES}; where the filters look at the list's own fields and its table carries the project, patched instead: the projects a write changed read again`, 'bytes'),
    ];
  }
}
