/**
 * The related rows a page renders with (a budget item's project, a transaction's organisations),
 * read for the whole page at once: one query per relation, never one per record. Related rows are
 * mostly read by id from small tables that seldom change (organisations, projects, users): such a
 * table, of at most SMALL_TABLE rows and settled (settling.ts), is read whole once per version of
 * it and its rows found in memory, at most TABLE_ROWS rows in all.
 */
import { CompiledQuery, sql } from 'kysely';
import type { Entity, Row } from '../resources/define.ts';
import { sizeOnly, type CacheDescription } from './caches.ts';
import { fromColumns } from './columns.ts';
import { stamp, VersionedCache } from './data-version.ts';
import type { Engine } from './engine/index.ts';
import { selectColumns } from './list-sql.ts';
import { describeVersioned, LONG_ROWS } from './pages/shared.ts';
import type { Settling } from './settling.ts';
import { column } from './visibility.ts';

/** Lookups send at most this many ids per query. */
const LOOKUP_CHUNK = 1000;
const SMALL_TABLE = 20_000;
const TABLE_ROWS = 200_000;

export class RelatedRows {
  /** Small tables' rows by id, per version of the table; null for a larger one. */
  readonly tables = new VersionedCache<Map<number, Row> | null>({ maxWeight: TABLE_ROWS, weigh: (rows) => rows?.size ?? 0 });
  private readonly statements = new Map<string, CompiledQuery>();
  private readonly engine: Engine;
  private readonly settling: Settling;
  /** The most rows a table kept whole may hold (SMALL_TABLE; smaller in tests). */
  private readonly smallTable: number;

  constructor(engine: Engine, settling: Settling, smallTable = SMALL_TABLE) {
    this.engine = engine;
    this.settling = settling;
    this.smallTable = smallTable;
  }

  /** Rows of `entity` whose `columnName` is one of `values`, in no particular order. */
  async byColumn(entity: Entity, columnName: string, values: readonly unknown[]): Promise<Row[]> {
    const whole = columnName === 'id' ? await this.wholeTable(entity) : null;
    if (whole) return [...new Set(values)].flatMap((id) => whole.get(id as number) ?? []);
    const wanted = [...new Set(values.filter((value) => value !== null && value !== undefined))];
    const query = this.statement(entity, columnName);
    const rows: Row[] = [];
    for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
      const list = this.engine.dialect.listParameter(wanted.slice(start, start + LOOKUP_CHUNK));
      const compiled = CompiledQuery.raw(query.sql, [list]);
      const columns = await (wanted.length >= LONG_ROWS ? this.engine.runLong(compiled) : this.engine.run(compiled));
      for (const row of columns) rows.push(fromColumns(entity, this.engine.dialect, row));
    }
    return rows;
  }

  /** The records of `ids`, in that order. */
  async inOrder(entity: Entity, ids: number[]): Promise<Row[]> {
    const byId = new Map((await this.byColumn(entity, 'id', ids)).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
  }

  caches(): CacheDescription[] {
    return [
      describeVersioned('small_tables', this.tables, `the rows of a table of at most ${SMALL_TABLE.toLocaleString('en')} rows, by id`, 'table', 'a write to the table', 'rows'),
      { name: 'related_statements', holds: 'the compiled SQL reading related rows by a column', key: 'table, column', bound: 'one per table and column', stale: 'never (no data in it)', figures: sizeOnly(this.statements) },
    ];
  }

  /** Every row of a small table by id, when it has settled; null otherwise. */
  private async wholeTable(entity: Entity): Promise<Map<number, Row> | null> {
    const version = stamp(this.engine.versionNow() ?? (await this.engine.version()), [entity.table]);
    const kept = this.tables.peek(version, entity.table);
    if (kept) return kept;
    if (!this.settling.settled(`table ${entity.table}`, version)) return null;
    return this.tables.get(version, entity.table, async () => {
      // A larger table is told by skipping SMALL_TABLE entries of its narrowest index, no row
      // read, not by its first 20,001 rows read and dropped (at scale 100, users' and
      // organisations': 470 ms for a page's first answer).
      const past = this.engine.db.selectFrom(`${entity.table} as t`).select(sql.lit(1).as('past')).limit(1).offset(this.smallTable);
      if ((await this.engine.runLong(past.compile())).length) return null;
      const rows = await this.engine.runLong(selectColumns(this.engine.db.selectFrom(`${entity.table} as t`), entity).limit(this.smallTable + 1).compile());
      if (rows.length > this.smallTable) return null; // grown since
      // Shared by every answer from now on: frozen, so that none can change what another shows.
      return new Map(rows.map((columns) => {
        const row = Object.freeze(fromColumns(entity, this.engine.dialect, columns));
        return [row.id as number, row];
      }));
    });
  }

  /**
   * Rows of `entity` whose `column` is in a list: one SQL text per table and column, whatever the
   * list (its only parameter), so it is built and compiled once.
   */
  private statement(entity: Entity, columnName: string): CompiledQuery {
    const key = `${entity.table}.${columnName}`;
    let query = this.statements.get(key);
    if (!query) {
      const built = selectColumns(this.engine.db.selectFrom(`${entity.table} as t`), entity).where(this.engine.dialect.inList(column('t', columnName), null));
      this.statements.set(key, (query = built.compile()));
    }
    return query;
  }
}
