/**
 * Reading records for answers: a list's count and pages, one record, and the related rows a page
 * renders with. The reader only chooses; each way of answering lives in its own room, with why
 * and when it is chosen:
 *
 *   counts     project-counts.ts (lists of project records, filters on their own fields: kept per
 *              project across writes), else counted in SQL once per version of the list's tables
 *   pages      pages/in-memory.ts (deep pages of lists up to 200,000 records), else
 *              pages/seek.ts (where a deep page starts, in id order or a field's) and pages/in-sql.ts (the SQL,
 *              walking the order's index or sorting the matches), the matches of a filter kept in
 *              memory for its every order by pages/kept-matches.ts (SQLite)
 *   related    related-rows.ts (by column, small tables whole in memory)
 *
 * Every cache is trusted only while what it was read from is unchanged, and each room describes
 * its own for the registry (caches.ts, /metrics).
 */
import type { Kysely } from 'kysely';
import { filterKey, filtersAnything, ownFieldsOnly, type FilterTree } from '../query/filters.ts';
import { SERVICE, type Caller, type Entity, type Lookup, type Resource, type Row } from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { tablesRead } from '../resources/reads.ts';
import type { CacheDescription } from './caches.ts';
import { ChangedProjects } from './changed-projects.ts';
import { fromColumns } from './columns.ts';
import { stamp, VersionedCache } from './data-version.ts';
import type { Database, Engine, Versions } from './engine/index.ts';
import type { IdSet } from './idset.ts';
import { countQuery, recordQuery, selectColumns, wholeListQuery, type PageRequest } from './list-sql.ts';
import { MemoryPages } from './pages/in-memory.ts';
import { KeptMatches, type SharedMatches } from './pages/kept-matches.ts';
import { SqlPages } from './pages/in-sql.ts';
import { SeekMarks } from './pages/seek.ts';
import { describeVersioned, LIST_TABLES, listKey, LONG_ROWS } from './pages/shared.ts';
import { ProjectCounts, type Neighbours, type SharedHistogram } from './project-counts.ts';
import { RelatedRows } from './related-rows.ts';
import { Settling } from './settling.ts';
import { column, editableAmong, seenAmong } from './visibility.ts';

/** How long a list's tables must have been unchanged before what is built in memory for them is (settling.ts). */
const SETTLED_MS = 1000;

export class Reader {
  readonly engine: Engine;
  /** Counts per list as a caller sees it and per version of its tables, where not kept per project. */
  readonly counts = new VersionedCache<number>();
  readonly projectCounts: ProjectCounts;
  readonly memory: MemoryPages;
  readonly seeks: SeekMarks;
  readonly related: RelatedRows;
  private readonly sql: SqlPages;
  readonly kept: KeptMatches;
  private readonly settling: Settling;
  private readonly changes: ChangedProjects;

  /** `neighbours`: the service's other workers, sharing counts per project and kept matches (commands/cluster-sharing.ts). */
  constructor(engine: Engine, options: { settledMs?: number; neighbours?: { counts?: Neighbours<SharedHistogram>; matches?: Neighbours<SharedMatches> } } = {}) {
    this.engine = engine;
    this.settling = new Settling(options.settledMs ?? SETTLED_MS);
    this.changes = new ChangedProjects(engine);
    const tableSize = (resource: Resource) => this.count(resource, SERVICE);
    this.kept = new KeptMatches(engine, this.settling, this.changes, options.neighbours?.matches);
    // A first count that reads every record reads its matches' ids too, for the page's set (kept-matches.ts).
    const withIds = (resource: Resource, filters: FilterTree, versions: Versions) => this.kept.tallied(resource, filters, stamp(versions, tablesRead(resource)));
    this.projectCounts = new ProjectCounts(engine, this.changes, { neighbours: options.neighbours?.counts, withIds });
    this.memory = new MemoryPages(engine, this.settling, tableSize);
    this.seeks = new SeekMarks(engine, this.changes);
    this.sql = new SqlPages(engine, tableSize, async (resource, caller, filters, most) => (this.projectCounts.keeps(resource, filters) ? this.projectCounts.whereMatches(resource, caller, filters, filterKey(filters), most) : null), this.kept);
    this.related = new RelatedRows(engine, this.settling);
  }

  /** How long tables must have been unchanged before what is built in memory for them is (0: at once; Infinity: never). */
  get settledMs(): number {
    return this.settling.ms;
  }

  set settledMs(ms: number) {
    this.settling.ms = ms;
  }

  /** How many records the caller may see that match the filters. */
  async count(resource: Resource, caller: Caller, filters?: FilterTree): Promise<number> {
    if (this.projectCounts.keeps(resource, filters)) return this.projectCounts.count(resource, caller, filters, filterKey(filters));
    const key = listKey(resource, caller, filters);
    const version = await this.stampOf(resource);
    const held = await this.memory.heldCount(version, key);
    if (held !== undefined) return held;
    const matched = this.counts.peek(version, key) ? null : await this.publicMatches(resource, caller, version, filters);
    if (matched) return matched.size;
    return this.counts.get(version, key, async () => {
      const [row] = await this.engine.runLong((await countQuery(this.engine, resource, caller, filters)).compile());
      return Number(row.count);
    });
  }

  /**
   * A public list's matches where no index serves its filters, as a kept set (pages/kept-matches.ts):
   * every caller sees every match, so the set's size is the count, and a count would read every
   * record as the set's read does. Its pages then walk among the set, where a walk of rows checking
   * the filters is long (organisations whose LinkedIn address holds `he` at scale 100: a count,
   * then 12,000 rows walked for each page). Null where a count is read instead.
   */
  private async publicMatches(resource: Resource, caller: Caller, version: number, filters: FilterTree | undefined): Promise<IdSet | null> {
    if (resource.visibility.kind !== 'public' || !filters || !filtersAnything(filters) || !ownFieldsOnly(filters)) return null;
    if (!this.kept.available || !this.kept.scansEveryRecord(resource, filters) || !this.kept.mayRead(resource, version, filters)) return null;
    return this.kept.of(resource, caller, filters, version, true);
  }

  /** One page of the caller's matching records, in the requested order; `total` is the list's count. */
  async page(resource: Resource, caller: Caller, page: PageRequest, total: number, filters?: FilterTree): Promise<Row[]> {
    const entity = entityOf(resource.table);
    const version = await this.stampOf(resource);
    const found = page.offset >= LONG_ROWS ? await this.memory.find(resource, caller, page, total, version, filters) : null;
    if (found) return this.related.inOrder(entity, found);
    const seeking = await this.seeks.seekFor(resource, caller, page, version, filters);
    let rows = await this.sql.read(resource, caller, page, total, version, filters, seeking);
    // Short from where the list begins, the page reaches into the nulls its range leaves out (seek.ts).
    if (seeking?.beforeNulls && rows.length < Math.min(page.limit, total - page.offset)) {
      this.seeks.noteValuesEnd(resource, caller, page, version, filters, seeking.offset + rows.length);
      rows = await this.sql.read(resource, caller, page, total, version, filters);
    }
    if (!seeking && rows.length > 0) this.seeks.noteStart(resource, caller, page, version, filters, rows[0]);
    return rows.map((row) => fromColumns(entity, this.engine.dialect, row));
  }

  /**
   * Every one of the caller's matching records in the requested order, `batch` at a time, read by
   * one statement (one snapshot: records written meanwhile are in it or not, never half), beside
   * other queries: a whole-list download, never held whole.
   */
  async *whole(resource: Resource, caller: Caller, order: Pick<PageRequest, 'order' | 'pinned'>, filters?: FilterTree, batch = 500): AsyncGenerator<Row[]> {
    const entity = entityOf(resource.table);
    const query = (await wholeListQuery(this.engine, resource, caller, order, filters)).compile();
    for await (const rows of this.engine.stream(query, batch)) yield rows.map((row) => fromColumns(entity, this.engine.dialect, row));
  }

  /** Its caches, for the registry (caches.ts) and /metrics. */
  caches(): CacheDescription[] {
    return [
      describeVersioned('counts', this.counts, 'a list\'s count', 'resource, what the caller may see, filters', LIST_TABLES),
      ...this.projectCounts.caches(),
      ...this.seeks.caches(),
      ...this.memory.caches(),
      ...this.sql.caches(),
      ...this.kept.caches(),
      ...this.related.caches(),
      ...this.changes.caches(),
    ];
  }

  /** What the resource's answers are made at now (data-version.ts, `stamp`). */
  async stampOf(resource: Resource): Promise<number> {
    return stamp(this.engine.versionNow() ?? (await this.engine.version()), tablesRead(resource));
  }

  /** One record as the caller may see it, or null. */
  one(resource: Resource, caller: Caller, id: number): Promise<Row | null> {
    return oneRecord(this.engine, resource, caller, id);
  }

  /** Batched reads of related rows for one page (one query per relation, never one per record). */
  lookup(caller: Caller): Lookup {
    return {
      byColumn: (table, columnName, values) => this.related.byColumn(entityOf(table), columnName, values),
      visible: (table, ids) => seenAmong(this.engine, table, ids, caller),
      editable: (projects) => editableAmong(this.engine, projects, caller),
    };
  }
}

/** One record as the caller may see it, or null; `db` is the transaction of a write that reads it. */
export async function oneRecord(engine: Engine, resource: Resource, caller: Caller, id: number, db?: Kysely<Database>): Promise<Row | null> {
  const [columns] = await engine.run((await recordQuery(engine, resource, caller, id, db)).compile(), db);
  return columns ? fromColumns(entityOf(resource.table), engine.dialect, columns) : null;
}

/** Every record of a table in id order, a batch at a time (export), read beside other queries. */
export async function* allRecords(engine: Engine, entity: Entity, batch = 1000): AsyncGenerator<Row[]> {
  const query = selectColumns(engine.db.selectFrom(`${entity.table} as t`), entity).orderBy(column('t', 'id'));
  for await (const rows of engine.stream(query.compile(), batch)) yield rows.map((row) => fromColumns(entity, engine.dialect, row));
}
