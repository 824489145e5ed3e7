/**
 * A database engine behind one small interface, as Kysely keeps each dialect behind its own: the
 * rest of the service never asks which engine it runs on. What differs lives in sqlite.ts and
 * postgres.ts: how SQL is shaped for our tables (the Dialect), how queries run, stream and bulk
 * load, and how a change of data is noticed.
 */
import type { CacheDescription } from '../caches.ts';
import type { ColumnDataType, CompiledQuery, Expression, Kysely, OrderByModifiers, RawBuilder, SqlBool } from 'kysely';
import type { StoredField } from '../../resources/define.ts';
import type { IdSet } from '../idset.ts';

/** Tables are declared at run time (resources/), so rows are typed by the declarations, not here. */
export type Database = Record<string, Record<string, unknown>>;

/** A row as a driver hands it over: column name -> value. */
export type Columns = Record<string, unknown>;

/** One ORDER BY term: an expression and its direction, NULL placement included. */
export type OrderByTerm = [Expression<unknown>, OrderByModifiers];

/** How an engine writes SQL for the declared tables. Pure: no connection. */
export interface Dialect {
  columnType(field: StoredField): ColumnDataType | Expression<unknown>;
  /** Column type of decision D7's sort keys: compared by code point (UTF-8 bytes), never by locale. */
  readonly sortKeyType: ColumnDataType | Expression<unknown>;
  toDb(field: StoredField, value: unknown): unknown;
  fromDb(field: StoredField, value: unknown): unknown;
  /** The true literal, as the engine stores booleans. */
  readonly true: unknown;
  /**
   * ORDER BY terms for one column with http.md's NULL placement (last ascending, first
   * descending), written so that the indexes of `orderIndexes` serve them.
   */
  orderTerms(column: Expression<unknown>, nullable: boolean, descending: boolean): OrderByTerm[];
  /**
   * The indexes, by name suffix, that serve filters on `column` and lists ordered by it either
   * way and then by id ascending, each in one index scan: page 1 reads 20 index entries. Those
   * the planner reads a range from (carryingIndexes) end with the `carried` columns, so that a
   * count of a range's records per project reads an index alone (store/project-counts.ts).
   */
  orderIndexes(column: string, nullable: boolean, carried: readonly string[]): Record<string, RawBuilder<unknown>[]>;
  /**
   * The name suffixes of the indexes of `orderIndexes` that end with the carried columns: those
   * the planner reads a range of the field from, and those a walk in the field's order reads
   * alone where the engine would otherwise visit each row it passes (PostgreSQL).
   */
  carryingIndexes(nullable: boolean): readonly string[];
  /**
   * Whether a sorted page of a filter no index serves finds the filter's matches apart first
   * (store/list-sql.ts, `matchesFirst`): SQLite reads them from the narrowest index holding the
   * filtered column, 3–4× faster than its plan of walking the whole order's index; PostgreSQL
   * plans the same subquery as a nested loop probing each row of the order, slower than its own
   * (where they are few, their ids are gathered as one array instead: pages/in-sql.ts, FEW_APART).
   */
  readonly matchesApart: boolean;
  /**
   * Whether the rows a page skips (its OFFSET) are read from the table all the same: PostgreSQL's
   * LIMIT discards rows the scan below it has already fetched, a heap page each; SQLite counts the
   * offset before it reads a row its index does not hold. Where they are, a deep page's ids are
   * found first in the order's index alone, then its rows (list-sql.ts, `idsFirst`).
   */
  readonly readsSkippedRows: boolean;
  /** Whether an index can carry columns after its key that it is not ordered by (PostgreSQL's INCLUDE). */
  readonly includes: boolean;
  /** The statement that gathers the planner's statistics of a new index, where the engine keeps some per index (null: per column, already there). */
  analyzeIndex(name: string): RawBuilder<unknown> | null;
  /**
   * `column` is one of a list given as ONE parameter, so that a query reading related rows by
   * id has one SQL text whatever the number of ids, compiled once (store/related-rows.ts).
   */
  inList(column: Expression<unknown>, list: unknown): RawBuilder<SqlBool>;
  /** The value of that parameter for a list of ids. */
  listParameter(ids: readonly unknown[]): unknown;
  /**
   * `column` is one of the few values a subquery gives (a page's ids, list-sql.ts `idsFirst`; a
   * text's keys that match a part lookup, filter-sql.ts `byKeys`): PostgreSQL reads them first as
   * one array, so that no plan made for any LIMIT (a prepared statement's generic plan), nor one
   * that cannot know how many keys match, joins them by hashing the whole table (transactions by
   * `value`, page 20 at scale 100: 175 ms so, 9 ms; their counts per project where the description
   * holds `ro`: 250–380 ms so, 55 ms from the key's index); SQLite looks each up in the subquery's rows.
   */
  amongFew(column: Expression<unknown>, ids: Expression<unknown>): RawBuilder<SqlBool>;
  /**
   * A condition true while the running statement is within its time, checked for each row whose
   * `column` a filter scans (LIKE): where the engine cannot stop a statement from outside; null
   * where it can. (The column ties the check to the row: a term of no column is checked once.)
   */
  readonly withinTime: ((column: Expression<unknown>) => RawBuilder<SqlBool>) | null;
  /**
   * The trigram index of a text's D7 key column (a field declared `index: 'search'`): the
   * statements that make it (and keep it current where the engine does not) and those that remove
   * it. SQLite: an FTS5 table with the `trigram` tokenizer, kept by triggers, holding no text of
   * its own; PostgreSQL: a GIN index of `pg_trgm`, which the planner uses for LIKE by itself.
   */
  trigramIndex(table: string, column: string): { create: RawBuilder<unknown>[]; drop: RawBuilder<unknown>[] };
  /**
   * The records whose `column` may contain all of `trigrams` (the key's three-character parts),
   * found in its trigram index: a superset that LIKE then decides; null where the planner finds
   * them itself (PostgreSQL).
   */
  trigramCandidates: ((table: string, column: string, id: Expression<unknown>, trigrams: readonly string[]) => RawBuilder<SqlBool>) | null;
  /**
   * Whether the id is among the set of ids a statement run by `Engine.runAmong` is given
   * (pages/kept-matches.ts): SQLite asks a function of the connection, which reads the set's
   * shared memory; PostgreSQL reads a bit of the set sent with the statement as one parameter.
   */
  among(id: Expression<unknown>): RawBuilder<SqlBool>;
}

/** Why the database's storage refuses writes: no space left, or only reads allowed. */
export type StorageFault = 'full' | 'read-only';

/**
 * A column an insert fills from what the database already holds (Engine.insertMany): the value
 * `of` the row's own column `from`, a correlated subquery (a record's project, found through its
 * parent), so that no second pass rewrites every row.
 */
export interface LookedUp {
  column: string;
  from: string;
  of(key: Expression<unknown>): Expression<unknown>;
}

/** What a bulk load (Engine.bulkLoad) is offered beside the engine's statements. */
export interface BulkLoad {
  /** Surrounds the making of every index of a table the load filled from empty. */
  indexing<T>(work: () => Promise<T>): Promise<T>;
}

/** A row of the change log (data-version.ts): a table a change wrote, and the project it wrote there (null: the whole table). */
export interface ChangeRow {
  tbl: string;
  project: number | null;
}

export interface Engine {
  /** For messages only ("sqlite ./data/rsr.sqlite"). */
  readonly name: 'sqlite' | 'postgres';
  /** Where the data lives, for messages (never a password). */
  readonly location: string;
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;

  /** Runs a compiled query (in `db` when given: a transaction); SQL text that recurs is prepared once. */
  run(query: CompiledQuery, db?: Kysely<Database>): Promise<Columns[]>;
  /**
   * A read that may take long (a count, a deep or filtered page): off the event loop where
   * statements would otherwise run on it (SQLite's reader threads); as `run` elsewhere.
   */
  runLong(query: CompiledQuery): Promise<Columns[]>;
  /** The first column of every row as ids (32-bit integers), read as `runLong` reads. */
  readIds(query: CompiledQuery): Promise<Int32Array>;
  /** How many rows hold each value of the first column (Tally), read as `runLong` reads. */
  tally(query: CompiledQuery): Promise<Tally>;
  /**
   * Both at once, of one statement: the first column as ids, the second's values tallied (a
   * filter's matches and their counts per project, from one scan: pages/kept-matches.ts).
   */
  readIdsTallied(query: CompiledQuery): Promise<IdsTallied>;
  /**
   * As `runLong`, with `among` the set the statement's `Dialect.among` checks ids against
   * (pages/kept-matches.ts); absent where the engine cannot give it one (a snapshot).
   */
  runAmong?(query: CompiledQuery, among: IdSet): Promise<Columns[]>;
  /** The rows of a query in batches, read as they are asked for, beside other queries. */
  stream(query: CompiledQuery, batchSize: number): AsyncIterable<Columns[]>;
  /** Rows of values (in `columns` order) into one table, inside the caller's transaction `db`; and `lookedUp` for each. */
  insertMany(db: Kysely<Database>, table: string, columns: readonly string[], rows: readonly unknown[][], lookedUp?: LookedUp): Promise<void>;
  /** Surrounds a bulk load: whatever helps the engine load much data, and what it offers the load (BulkLoad). */
  bulkLoad<T>(work: (load: BulkLoad) => Promise<T>): Promise<T>;
  /**
   * Gathers the planner's statistics of every table but `except` (in `db` when given: a
   * migration's transaction), and forgets any it had of those.
   */
  analyze(except: readonly string[], db?: Kysely<Database>): Promise<void>;
  /**
   * After a bulk load of `tables`, outside any transaction: marks their rows as seen by every
   * transaction, where the engine keeps such a mark (PostgreSQL's visibility map, which rows
   * just loaded lack until autovacuum comes: without it a count or a page read from an index
   * that carries every column it needs visits each row in the table too). Nothing elsewhere.
   */
  vacuum(tables: readonly string[]): Promise<void>;

  /**
   * Runs `work` in a transaction no other process runs at the same time (migrations): instances
   * started together take turns, and each finds what the one before it did.
   */
  exclusively<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;

  /** Makes `id` generated on insert when not given (a new table). */
  generateIds(db: Kysely<Database>, table: string): Promise<void>;
  /**
   * Makes what keeps generated ids from ever being handed out twice, where the tables do not
   * already (migration 12): SQLite's table of sequences; nothing on PostgreSQL, whose identity
   * columns have sequences that never go back.
   */
  createIdSequences(db: Kysely<Database>): Promise<void>;
  /**
   * The id of a record about to be inserted into `table` by the writing transaction `db`: above
   * every id the table ever held or handed out, deleted since or not. Undefined where the insert
   * generates it itself (PostgreSQL's identity columns).
   */
  nextId(db: Kysely<Database>, table: string): Promise<number | undefined>;
  /**
   * The next generated id follows the largest stored one; never moves back, so the ids of records
   * deleted since (or replaced by an import) stay used. Run as an import's last step and at
   * start-up: PostgreSQL never rolls a sequence back, so one moved before a failure would stay moved.
   */
  syncGeneratedIds(db: Kysely<Database>, table: string): Promise<void>;
  /** An insert refused because its generated id is taken (a sequence behind its table). */
  isIdClash(error: unknown, table: string): boolean;

  /** The data versions, when they are known without asking the database (every cached answer checks them). */
  versionNow(): Versions | undefined;
  /** The data versions, from the database if need be. */
  version(): Promise<Versions>;
  /** Data changed through this instance: the next answer reads the version afresh. */
  changed(): void;
  /**
   * A writing transaction's first step: moves the data version on (where writers wait for each
   * other, at most `waitMs`), gives each of `tables` the new version, writes the change log's
   * `logged` rows at it (those known before the change begins), and lets other instances know at
   * commit. The new data version.
   */
  beginChange(db: Kysely<Database>, tables: readonly string[], waitMs: number, logged: readonly ChangeRow[]): Promise<number>;
  /**
   * Whether a write's checks read before `beginChange` (data-version.ts, `checkThenChange`).
   * PostgreSQL: yes, every other writer waits for the version row while it is held, and each
   * statement under it is a round trip. SQLite: no, a process's writes already take turns on its
   * one connection, and a read before the write lock would fail the write (SQLITE_BUSY_SNAPSHOT)
   * whenever another process wrote in between.
   */
  readonly checksBeforeChange: boolean;
  /** The database is held by another writer now: try again shortly. */
  isBusy(error: unknown): boolean;
  /** The database cannot be reached or used now (answered 503), as opposed to a bad query. */
  isUnavailable(error: unknown): boolean;
  /** A write failed because the database's storage refuses writes now (a full disk, a read-only file system or server), or null. */
  storageFault(error: unknown): StorageFault | null;
  /**
   * Whether writes would fail now for such a cause (readiness): what can be seen without writing,
   * and for what cannot, the fault writes met lately (`remembered`).
   */
  writesBlocked(remembered: StorageFault | null): Promise<StorageFault | null>;
  /** A statement stopped for running longer than `statementTimeoutMs`. */
  isStatementTimeout(error: unknown): boolean;
  /**
   * Whether a text's D7 key column, which an index of its order holds, has few distinct keys
   * beside its rows, as the planner's statistics say: a part lookup is then decided on the keys
   * first (filter-sql.ts). False where unknown (key-statistics.ts).
   */
  fewKeys(table: string, column: string): boolean;
  /** Connections of the pool (PostgreSQL); null where there is none. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /** Its caches (prepared statements; SQLite's statistics too), for the registry of caches (store/caches.ts). */
  caches(): CacheDescription[];

  /** Closes every connection and stops listening for changes. */
  close(): Promise<void>;
}

export interface EngineOptions {
  /** PostgreSQL connections per instance. */
  poolSize?: number;
  /** How long one statement may run before the database stops it (answered 503). */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long a query may go unanswered (a server gone silent) before it fails; 503 too. */
  queryTimeoutMs?: number;
  /** Told how long each statement took, and whether it failed (the metrics). */
  onQuery?(seconds: number, failed: boolean): void;
  /** Told of errors no request sees: a pooled connection that broke while idle (the log). */
  onError?(error: Error, what: string): void;
  /**
   * SQLite: threads of its own for reads that may take long (2); 0 where the caller is itself a
   * thread off the event loop (a report thread), so that such reads run where they are asked.
   */
  readerThreads?: number;
}

/**
 * The values of a column (32-bit integers; null as -1), ascending, each with how many rows hold
 * it: counts per project (project-counts.ts). SQLite groups through a temporary B-tree sorted as
 * it is filled, which was most of a first count: at scale 100, budget items of a date range per
 * project, 0.37 s, of which reading the 550,000 projects 0.08 s. Its reader threads read the
 * values and tally them (tallyOf); PostgreSQL groups by hashing, as it did.
 */
export interface Tally {
  values: Int32Array;
  counts: Int32Array;
}

/** A statement's first column as ids and its second tallied (Engine.readIdsTallied). */
export interface IdsTallied {
  ids: Int32Array;
  tally: Tally;
}

/** Values dense enough (their span at most this many times their number, or below this span) are counted in an array indexed by value, else sorted. */
const DENSE_SPAN_PER_VALUE = 4;
const DENSE_SPAN = 1 << 20;

/** The tally of `values` (null as -1): in one pass over an array indexed by value where they are dense enough, else sorted. */
export function tallyOf(values: ArrayLike<number | null>): Tally {
  const read = new Int32Array(values.length);
  for (let index = 0; index < values.length; index += 1) read[index] = values[index] ?? -1;
  if (read.length === 0) return { values: read, counts: new Int32Array(0) };
  let [low, high] = [read[0], read[0]];
  for (const value of read) {
    if (value < low) low = value;
    else if (value > high) high = value;
  }
  const span = high - low + 1;
  if (span > Math.max(DENSE_SPAN, DENSE_SPAN_PER_VALUE * read.length)) return runsOf(read.sort());
  const counts = new Int32Array(span);
  for (const value of read) counts[value - low] += 1;
  let distinct = 0;
  for (const count of counts) if (count > 0) distinct += 1;
  const tally = { values: new Int32Array(distinct), counts: new Int32Array(distinct) };
  for (let index = 0, at = 0; index < span; index += 1) {
    if (counts[index] === 0) continue;
    tally.values[at] = index + low;
    tally.counts[at++] = counts[index];
  }
  return tally;
}

/** The tally of sorted values: each run's value and length. */
function runsOf(sorted: Int32Array): Tally {
  let distinct = 0;
  for (let index = 0; index < sorted.length; index += 1) if (index === 0 || sorted[index] !== sorted[index - 1]) distinct += 1;
  const tally = { values: new Int32Array(distinct), counts: new Int32Array(distinct) };
  for (let index = 0, at = -1; index < sorted.length; index += 1) {
    if (index === 0 || sorted[index] !== sorted[index - 1]) tally.values[(at += 1)] = sorted[index];
    tally.counts[at] += 1;
  }
  return tally;
}

/** The first column of each row as ids (Engine.readIds where rows come as objects). */
export const idsOf = (rows: readonly Columns[]): Int32Array => Int32Array.from(rows, (row) => Number(Object.values(row)[0]));

/** The tally of each row's `at`th column (Engine.tally where rows come as objects). */
export const tallyOfRows = (rows: readonly Columns[], at = 0): Tally => tallyOf(rows.map((row) => {
  const value = Object.values(row)[at];
  return value === null ? null : Number(value);
}));

/** Engine.readIdsTallied where rows come as objects. */
export const idsTalliedOf = (rows: readonly Columns[]): IdsTallied => ({ ids: idsOf(rows), tally: tallyOfRows(rows, 1) });

/**
 * Rows of a value (`valueColumn`) and its `count`, grouped and ordered by the database (null
 * first), as a tally. Checked ascending: a histogram out of order would answer wrongly.
 */
export function tallyOfGroups(rows: readonly Columns[], valueColumn: string): Tally {
  const tally = { values: new Int32Array(rows.length), counts: new Int32Array(rows.length) };
  for (const [index, row] of rows.entries()) {
    tally.values[index] = row[valueColumn] === null ? -1 : Number(row[valueColumn]);
    tally.counts[index] = Number(row.count);
    if (index > 0 && tally.values[index] <= tally.values[index - 1]) throw new Error(`counts by ${valueColumn} out of order`);
  }
  return tally;
}

/** Runs a read, telling `observe` (the statement metrics) how long it took and whether it failed. */
export async function timed<T>(observe: EngineOptions['onQuery'], read: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let failed = true;
  try {
    const result = await read();
    failed = false;
    return result;
  } finally {
    observe?.((performance.now() - started) / 1000, failed);
  }
}

/** How long a statement may run when nothing else is said (EngineOptions.statementTimeoutMs). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * The data version, which every change moves on, and per table the data version of the table's
 * last change (store/data-version.ts keeps them and says what they are for).
 */
export interface Versions {
  readonly data: number;
  readonly tables: ReadonlyMap<string, number>;
}

/** The statement that reads the data version (store/data-version.ts keeps the table). */
export const VERSION_SQL = 'select version from data_version where id = 1';
/** The statement that reads the tables' versions. */
export const TABLE_VERSIONS_SQL = 'select name, version from table_version';

/** Versions of table_version's rows, read as [name, version] pairs. */
export const versionsOf = (data: number, rows: Iterable<readonly [unknown, unknown]>): Versions => ({
  data,
  tables: new Map([...rows].map(([name, version]) => [String(name), Number(version)])),
});

