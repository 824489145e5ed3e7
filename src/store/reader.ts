/**
 * Reading records for answers: a list's count and pages, one record, and the related rows a page
 * renders with. The caches that make repeated reads cheap belong here, each trusted only while
 * the tables the resource is read from are unchanged (its stamp): counts, and the noted positions
 * that let deep pages in id order start near their first row.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { FilterTree } from '../query/filters.ts';
import { filterKey, filtersAnything } from '../query/filters.ts';
import { type Caller, type Entity, type Lookup, type Resource, type Row } from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { tablesRead } from '../resources/reads.ts';
import { fromColumns } from './columns.ts';
import { stamp, VersionedCache } from './data-version.ts';
import type { Database, Engine } from './engine/index.ts';
import { countQuery, markQuery, pageQuery, recordQuery, selectColumns, type PageRequest, type Seek } from './list-sql.ts';
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
  /** Noted positions of lists in id order (see SEEK_STEP), per list as a caller sees it. */
  readonly marks = new VersionedCache<Marks>();
  private readonly related = new Map<string, CompiledQuery>();
  private readonly pages = new VersionedCache<CompiledQuery>();

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /** How many records the caller may see that match the filters; counted once per version of its tables. */
  async count(resource: Resource, caller: Caller, filters?: FilterTree): Promise<number> {
    const key = `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}`;
    return this.counts.get(await this.stampOf(resource), key, async () => {
      const [row] = await this.engine.runLong((await countQuery(this.engine, resource, caller, filters)).compile());
      return Number(row.count);
    });
  }

  /**
   * One page of the caller's matching records, in the requested order. The compiled query is
   * kept per version of the list's tables under every input it is made from, values included (a
   * key that holds everything cannot pick another query's SQL or parameters): the same page read
   * again after its answer was evicted or made stale costs no building and compiling.
   */
  async page(resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree): Promise<Row[]> {
    const seeking = await this.seekFor(resource, caller, page, filters);
    const request = seeking ? { ...page, offset: seeking.offset } : page;
    const key = JSON.stringify([resource.name, visibilityKey(caller), filterKey(filters), request, seeking?.seek ?? null]);
    const query = await this.pages.get(await this.stampOf(resource), key, async () => (await pageQuery(this.engine, resource, caller, request, filters, seeking?.seek)).compile());
    // A page that walks many rows (deep, filtered, or large) may take long: off the event loop.
    const long = request.offset + request.limit >= LONG_ROWS || filtersAnything(filters);
    return this.rows(entityOf(resource.table), await (long ? this.engine.runLong(query) : this.engine.run(query)));
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
        const entity = entityOf(table);
        const wanted = [...new Set(values.filter((value) => value !== null && value !== undefined))];
        const query = this.relatedQuery(entity, columnName);
        const rows: Row[] = [];
        for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
          const list = this.engine.dialect.listParameter(wanted.slice(start, start + LOOKUP_CHUNK));
          const compiled = CompiledQuery.raw(query.sql, [list]);
          rows.push(...this.rows(entity, await (wanted.length >= LONG_ROWS ? this.engine.runLong(compiled) : this.engine.run(compiled))));
        }
        return rows;
      },
      visible: (table, ids) => seenAmong(this.engine, table, ids, caller),
      editable: (projects) => editableAmong(this.engine, projects, caller),
    };
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
