/**
 * Reading records for answers: a list's count and pages, one record, and the related rows a page
 * renders with. The caches that make repeated reads cheap belong here, each trusted only while
 * the tables the resource is read from are unchanged (its stamp): counts, the orders of lists
 * read deep, and the noted positions that let deep pages in id order start near their first row.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { FilterTree } from '../query/filters.ts';
import { filterKey, filtersAnything } from '../query/filters.ts';
import { SERVICE, type Caller, type Entity, type Lookup, type Resource, type Row } from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { tablesRead } from '../resources/reads.ts';
import { fromColumns } from './columns.ts';
import { sizeOnly, type CacheDescription } from './caches.ts';
import { stamp, VersionedCache } from './data-version.ts';
import { IdSet } from './idset.ts';
import { ProjectCounts } from './project-counts.ts';
import type { Database, Engine } from './engine/index.ts';
import { countQuery, markQuery, matchQuery, orderQuery, pageQuery, recordQuery, selectColumns, type PageRequest, type Seek } from './list-sql.ts';
import { column, editableAmong, seenAmong, visibilityKey } from './visibility.ts';

/** Lookups send at most this many ids per query. */
const LOOKUP_CHUNK = 1000;

/**
 * A deep page in id order would walk every row before it (probing each one's project for
 * visibility). Instead the ids at positions 0, SEEK_STEP, 2·SEEK_STEP, … of the list are noted
 * as pages that deep are asked for (once per version of the list's tables), and a page starts
 * from the nearest one before it: it walks fewer than SEEK_STEP rows however deep it is.
 */
const SEEK_STEP = 1000;

/** Reads that walk or return this many rows run off the event loop (Engine.runLong). */
const LONG_ROWS = 300;

/**
 * A deep page read in SQL walks every row before it, each one's project probed for visibility.
 * Instead it is a slice of the list's ids in its order, kept per version of the tables it reads
 * and made in memory from two parts that many lists share: the table's ids in that order (one
 * index scan per version of the table), kept where they are in the list: the ids the caller
 * sees and the filters match (a set per list whatever its order, which is also its count). Its
 * records are then read by id. Tables longer than ORDERED_MAX, lists holding less than 1/SPARSE
 * of their table, and lists whose tables changed less than SETTLED_MS ago (being written to,
 * they would change again before what was built for them paid off) are walked in SQL as before.
 * The orders kept hold at most ORDERED_IDS ids in all (4 bytes each), the lists as many, the
 * sets at most MATCHES_BYTES.
 */
const ORDERED_MAX = 200_000;
const ORDERED_IDS = 4_000_000;
const MATCHES_BYTES = 32 * 1024 * 1024;
const SPARSE = 16;
const SETTLED_MS = 1000;

/**
 * Related rows are mostly read by id from small tables that seldom change (organisations,
 * projects, users): such a table, of at most SMALL_TABLE rows and unchanged for SETTLED_MS, is read
 * whole once per version of it and its rows found in memory, at most TABLE_ROWS rows in all.
 */
const SMALL_TABLE = 20_000;
const TABLE_ROWS = 200_000;

interface Marks {
  ids: number[];
  complete: boolean;
  /** Extensions run one after the other: concurrent deep pages note each position once. */
  extending: Promise<unknown>;
}

export class Reader {
  readonly engine: Engine;
  /** Counts per list as a caller sees it and per version of its tables (read by the metrics). */
  readonly counts = new VersionedCache<number>();
  /** Counts of lists whose records belong to projects, kept per project across writes. */
  readonly projectCounts: ProjectCounts;
  /** Noted positions of lists in id order (see SEEK_STEP), per list as a caller sees it. */
  readonly marks = new VersionedCache<Marks>();
  /** Tables' ids in the orders deep pages asked for (see ORDERED_MAX), per version of the table. */
  readonly orders = new VersionedCache<Int32Array>({ maxWeight: ORDERED_IDS, weigh: (ids) => ids.length });
  /** The ids in lists read deep, per list as a caller sees it. */
  readonly matches = new VersionedCache<IdSet>({ maxWeight: MATCHES_BYTES, weigh: (ids) => ids.bytes });
  /** The ids of lists read deep in their order, per list as a caller sees it and order. */
  readonly lists = new VersionedCache<Int32Array>({ maxWeight: ORDERED_IDS, weigh: (ids) => ids.length });
  /** Small tables' rows by id (see SMALL_TABLE), per version of the table; null for a larger one. */
  readonly tables = new VersionedCache<Map<number, Row> | null>({ maxWeight: TABLE_ROWS, weigh: (rows) => rows?.size ?? 0 });
  /** Per resource or table, the stamp last seen, and since when (performance.now()): see `settled`. */
  private readonly stamps = new Map<string, { version: number; since: number }>();
  private readonly related = new Map<string, CompiledQuery>();
  private readonly pages = new VersionedCache<CompiledQuery>();

  /** How long a list's tables must have been unchanged before deep pages are found in memory (SETTLED_MS). */
  settledMs: number;

  constructor(engine: Engine, options: { settledMs?: number } = {}) {
    this.engine = engine;
    this.projectCounts = new ProjectCounts(engine);
    this.settledMs = options.settledMs ?? SETTLED_MS;
  }

  /** How many records the caller may see that match the filters; counted once per version of its tables. */
  async count(resource: Resource, caller: Caller, filters?: FilterTree): Promise<number> {
    if (this.projectCounts.keeps(resource, filters)) return this.projectCounts.count(resource, caller, filters, filterKey(filters));
    const key = listKey(resource, caller, filters);
    const version = await this.stampOf(resource);
    const matched = this.matches.peek(version, key);
    if (matched) return (await matched).size;
    return this.counts.get(version, key, async () => {
      const [row] = await this.engine.runLong((await countQuery(this.engine, resource, caller, filters)).compile());
      return Number(row.count);
    });
  }

  /**
   * One page of the caller's matching records, in the requested order. The compiled query is
   * kept per version of the list's tables under every input it is made from, values included (a
   * key that holds everything cannot pick another query's SQL or parameters): the same page read
   * again after its answer was evicted or made stale costs no building and compiling. `total` is
   * the list's count.
   */
  async page(resource: Resource, caller: Caller, page: PageRequest, total: number, filters?: FilterTree): Promise<Row[]> {
    const found = page.offset >= LONG_ROWS ? await this.findDeep(resource, caller, page, total, filters) : null;
    if (found) return this.inOrder(entityOf(resource.table), found);
    const seeking = await this.seekFor(resource, caller, page, filters);
    const walk = await this.walks(resource, page, total, filters);
    const request = { ...page, offset: seeking?.offset ?? page.offset, walk };
    const key = JSON.stringify([resource.name, visibilityKey(caller), filterKey(filters), request, seeking?.seek ?? null]);
    const query = await this.pages.get(await this.stampOf(resource), key, async () => (await pageQuery(this.engine, resource, caller, request, filters, seeking?.seek)).compile());
    // A page that walks many rows (deep, filtered, or large) may take long: off the event loop.
    const long = request.offset + request.limit >= LONG_ROWS || filtersAnything(filters);
    return this.rows(entityOf(resource.table), await (long ? this.engine.runLong(query) : this.engine.run(query)));
  }

  /**
   * Whether a filtered page is found by walking its order's index, checking the filters row by
   * row, rather than by the filters' indexes and a sort of every match. The count is known: the
   * walk meets about (offset + limit) × rows / matches rows, the sort handles every match; the
   * cheaper one is chosen, so neither costs more than the square root of (offset + limit) × rows.
   * (A planner knows neither the count nor, with parameters, how many rows a range holds.)
   */
  private async walks(resource: Resource, page: PageRequest, total: number, filters?: FilterTree): Promise<boolean> {
    if (!filtersAnything(filters) || (page.pinned && resource.pinnedOrder)) return false;
    const rows = await this.count(resource, SERVICE);
    return (page.offset + page.limit) * rows <= total * total;
  }

  /** Its caches, for the registry (caches.ts) and /metrics. */
  caches(): CacheDescription[] {
    const listTables = "a write to any table the resource's answers are read from (its stamp)";
    const versioned = (name: string, cache: Pick<VersionedCache<unknown>, 'limits' | 'figures'>, holds: string, key: string, stale: string, unit = ''): CacheDescription => {
      const { entries, weight } = cache.limits;
      return { name, holds, key, bound: `${entries.toLocaleString('en')} entries${Number.isFinite(weight) ? `, ${weight.toLocaleString('en')} ${unit}` : ''}`, stale, figures: () => cache.figures() };
    };
    return [
      versioned('counts', this.counts, 'a list\'s count', 'resource, what the caller may see, filters', listTables),
      versioned('seek_marks', this.marks, `the ids at every ${SEEK_STEP.toLocaleString('en')}th place of a list in id order`, 'resource, what the caller may see, filters, direction', listTables),
      versioned('table_orders', this.orders, 'a table\'s ids in one order', 'resource, order', 'a write to the table', 'ids'),
      versioned('list_matches', this.matches, 'the ids a list holds (its count too)', 'resource, what the caller may see, filters', listTables, 'bytes'),
      versioned('list_orders', this.lists, 'a list\'s ids in its order (deep pages)', 'resource, what the caller may see, filters, order', listTables, 'ids'),
      versioned('small_tables', this.tables, `the rows of a table of at most ${SMALL_TABLE.toLocaleString('en')} rows, by id`, 'table', 'a write to the table', 'rows'),
      versioned('page_statements', this.pages, 'a page\'s compiled SQL', 'resource, what the caller may see, filters, page, seek', listTables),
      ...this.projectCounts.caches(),
      { name: 'related_statements', holds: 'the compiled SQL reading related rows by a column', key: 'table, column', bound: 'one per table and column', stale: 'never (no data in it)', figures: sizeOnly(this.related) },
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
      byColumn: async (table, columnName, values) => {
        const whole = columnName === 'id' ? await this.wholeTable(entityOf(table)) : null;
        return whole ? [...new Set(values)].flatMap((id) => whole.get(id as number) ?? []) : this.rowsWhere(entityOf(table), columnName, values);
      },
      visible: (table, ids) => seenAmong(this.engine, table, ids, caller),
      editable: (projects) => editableAmong(this.engine, projects, caller),
    };
  }

  /** Rows of `entity` whose `columnName` is one of `values`, in no particular order. */
  private async rowsWhere(entity: Entity, columnName: string, values: readonly unknown[]): Promise<Row[]> {
    const wanted = [...new Set(values.filter((value) => value !== null && value !== undefined))];
    const query = this.relatedQuery(entity, columnName);
    const rows: Row[] = [];
    for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
      const list = this.engine.dialect.listParameter(wanted.slice(start, start + LOOKUP_CHUNK));
      const compiled = CompiledQuery.raw(query.sql, [list]);
      rows.push(...this.rows(entity, await (wanted.length >= LONG_ROWS ? this.engine.runLong(compiled) : this.engine.run(compiled))));
    }
    return rows;
  }

  /** Every row of a small table by id, when it has settled; null otherwise (see SMALL_TABLE). */
  private async wholeTable(entity: Entity): Promise<Map<number, Row> | null> {
    const version = stamp(this.engine.versionNow() ?? (await this.engine.version()), [entity.table]);
    const kept = this.tables.peek(version, entity.table);
    if (kept) return kept;
    if (!this.settled(`table ${entity.table}`, version)) return null;
    return this.tables.get(version, entity.table, async () => {
      const rows = await this.engine.runLong(selectColumns(this.engine.db.selectFrom(`${entity.table} as t`), entity).limit(SMALL_TABLE + 1).compile());
      if (rows.length > SMALL_TABLE) return null;
      // Shared by every answer from now on: frozen, so that none can change what another shows.
      return new Map(rows.map((columns) => {
        const row = Object.freeze(fromColumns(entity, this.engine.dialect, columns));
        return [row.id as number, row];
      }));
    });
  }

  /** The records of `ids`, in that order. */
  private async inOrder(entity: Entity, ids: number[]): Promise<Row[]> {
    const byId = new Map((await this.rowsWhere(entity, 'id', ids)).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
  }

  /** The ids of a deep page, found in memory (see ORDERED_MAX); null where it is read in SQL. */
  private async findDeep(resource: Resource, caller: Caller, page: PageRequest, total: number, filters?: FilterTree): Promise<number[] | null> {
    const version = await this.stampOf(resource);
    const key = listKey(resource, caller, filters);
    const ordered = `${key}|${JSON.stringify([page.order, page.pinned])}`;
    let list = this.lists.peek(version, ordered);
    if (!list) {
      if (!this.settled(resource.name, version)) return null;
      const order = await this.tableOrder(resource, page, total);
      if (!order) return null;
      list = this.lists.get(version, ordered, async () => {
        const matches = await this.matches.get(version, key, async () => {
          const set = new IdSet();
          for (const id of await this.engine.readIds((await matchQuery(this.engine, resource, caller, filters)).compile())) set.add(id);
          return set;
        });
        return order.filter((id) => matches.has(id));
      });
    }
    return Array.from((await list).subarray(page.offset, page.offset + page.limit));
  }

  /**
   * Whether what `key` names (a resource's tables, or one table) has been at `version` for
   * `settledMs`, as far as this reader has seen.
   */
  private settled(key: string, version: number): boolean {
    if (this.settledMs <= 0) return true;
    const seen = this.stamps.get(key);
    if (seen?.version === version) return performance.now() - seen.since >= this.settledMs;
    this.stamps.set(key, { version, since: performance.now() });
    return false;
  }

  /** Every id of the resource's table in the page's order, unless the table is too long or the list too sparse. */
  private async tableOrder(resource: Resource, page: PageRequest, total: number): Promise<Int32Array | null> {
    const version = stamp(this.engine.versionNow() ?? (await this.engine.version()), [resource.table]);
    const key = JSON.stringify([resource.name, page.order, page.pinned]);
    const kept = this.orders.peek(version, key);
    if (kept) return kept;
    const size = await this.count(resource, SERVICE);
    if (size > ORDERED_MAX || total * SPARSE < size) return null;
    return this.orders.get(version, key, async () => this.engine.readIds(orderQuery(this.engine, resource, page).compile()));
  }

  /**
   * Rows of `entity` whose `column` is in a list: one SQL text per table and column, whatever the
   * list (its only parameter), so it is built and compiled once.
   */
  private relatedQuery(entity: Entity, columnName: string): CompiledQuery {
    const key = `${entity.table}.${columnName}`;
    let query = this.related.get(key);
    if (!query) {
      const built = selectColumns(this.engine.db.selectFrom(`${entity.table} as t`), entity).where(this.engine.dialect.inList(column('t', columnName), null));
      this.related.set(key, (query = built.compile()));
    }
    return query;
  }

  private rows(entity: Entity, columns: Row[]): Row[] {
    return columns.map((row) => fromColumns(entity, this.engine.dialect, row));
  }

  private async seekFor(resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree): Promise<{ seek: Seek; offset: number } | null> {
    const [term] = page.order;
    const inIdOrder = page.order.length === 1 && term.field === 'id' && !(page.pinned && resource.pinnedOrder);
    if (!inIdOrder || page.offset < SEEK_STEP || resource.visibility.kind === 'organisations') return null;
    const descending = term.descending;
    const key = `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}|${descending}`;
    const marks = await this.marks.get(await this.stampOf(resource), key, async () => ({ ids: [], complete: false, extending: Promise.resolve() }));
    const wanted = Math.floor(page.offset / SEEK_STEP);
    const extension = marks.extending.then(async () => {
      while (!marks.complete && marks.ids.length <= wanted) {
        const query = await markQuery(this.engine, resource, caller, filters, descending, marks.ids.at(-1) ?? null, SEEK_STEP);
        const [row] = await this.engine.runLong(query.compile());
        if (row) marks.ids.push(Number(row.id));
        else marks.complete = true;
      }
    });
    marks.extending = extension.catch(() => undefined); // a failed query fails this request only
    await extension;
    const step = Math.min(wanted, marks.ids.length - 1);
    if (step < 1) return null;
    return { seek: { id: marks.ids[step], descending }, offset: page.offset - step * SEEK_STEP };
  }
}

/** A list as a caller sees it: its resource, what the caller may see, and the filters. */
const listKey = (resource: Resource, caller: Caller, filters?: FilterTree) => `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}`;

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
