/**
 * The embedded engine: SQLite through better-sqlite3, in this process. Statements are prepared
 * once per SQL text and run synchronously, rows read as arrays (half the cost of objects); reads
 * that may take long run on reader threads instead (sqlite-readers.ts). A lock is never waited
 * for inside a call (it would stop the event loop: changeData waits between tries).
 */
import { sizeOnly } from '../caches.ts';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, sql, type RawBuilder, type SqlBool, type SqliteDatabase } from 'kysely';
import { DEFAULT_STATEMENT_TIMEOUT_MS, TABLE_VERSIONS_SQL, VERSION_SQL, idsOf, timed, versionsOf, type Columns, type Database, type Dialect, type Engine, type EngineOptions, type OrderByTerm, type Versions } from './engine.ts';
import { isPlainName, objectLiteral } from '../../codegen/object-literal.ts';
import { SqliteReaders } from './sqlite-readers.ts';
import { configure, statementCache, StatementTimeout } from './sqlite-setup.ts';

const direction = (descending: boolean) => (descending ? 'desc' : 'asc');

/** Booleans as 0/1, decimals as REAL, dates and timestamps as ISO text, JSON as text. */
export const sqliteDialect: Dialect = {
  true: 1,
  sortKeyType: 'text', // SQLite's default BINARY collation compares bytes
  columnType(field) {
    switch (field.type) {
      case 'int': case 'bool': return 'integer';
      case 'decimal': return 'real';
      default: return 'text';
    }
  },
  toDb(field, value) {
    if (value === null || value === undefined) return null;
    if (field.type === 'bool') return value ? 1 : 0;
    if (field.type === 'json') return JSON.stringify(value);
    return value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'bool') return value === 1;
    if (field.type === 'json') return typeof value === 'string' ? JSON.parse(value) : value;
    return value;
  },
  // SQLite puts NULLs first and uses no index for NULLS LAST, but it does for `x IS NULL, x`.
  orderTerms(column, nullable, descending) {
    const terms: OrderByTerm[] = [[column, direction(descending)]];
    return nullable ? [[sql`${column} is null`, direction(descending)], ...terms] : terms;
  },
  // json_each reads the list; SQLite still finds each id through the column's index.
  inList: (column, list) => sql<SqlBool>`${column} in (select value from json_each(${list}))`,
  // better-sqlite3 cannot interrupt a statement: a scan asks, row by row, whether time is left.
  withinTime: (column) => sql<SqlBool>`rsr_within_time(${column})`,
  unindexed: (column) => sql`+${column}`,
  trigramIndex(table, column) {
    const name = trigramTable(table, column);
    const [fts, key] = [sql.table(name), sql.ref(column)];
    const insert = sql`insert into ${fts}(rowid, k) values (new.id, new.${key});`;
    const remove = sql`delete from ${fts} where rowid = old.id;`;
    return {
      create: [
        // No text of its own (content=''), no positions (detail='none'): candidates, decided by LIKE.
        sql`create virtual table if not exists ${fts} using fts5(k, tokenize = 'trigram', detail = 'none', content = '', contentless_delete = 1)`,
        sql`insert into ${fts}(rowid, k) select id, ${key} from ${sql.table(table)} where ${key} is not null and not exists (select 1 from ${fts} limit 1)`,
        sql`create trigger if not exists ${sql.id(`${name}_insert`)} after insert on ${sql.table(table)} begin ${insert} end`,
        sql`create trigger if not exists ${sql.id(`${name}_delete`)} after delete on ${sql.table(table)} begin ${remove} end`,
        sql`create trigger if not exists ${sql.id(`${name}_update`)} after update of ${key} on ${sql.table(table)} begin ${remove} ${insert} end`,
      ],
      drop: [sql`drop table if exists ${fts}`, ...['insert', 'delete', 'update'].map((event) => sql`drop trigger if exists ${sql.id(`${name}_${event}`)}`)],
    };
  },
  trigramCandidates(table, column, id, trigrams) {
    const fts = trigramTable(table, column);
    // Each part as an FTS5 string (quotes doubled), all of them required.
    const query = trigrams.map((part) => `"${part.replaceAll('"', '""')}"`).join(' AND ');
    return sql<SqlBool>`${id} in (select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${query})`;
  },
  listParameter: (ids) => JSON.stringify(ids),
  // Every index ends with the rowid (id) ascending; the `desc` one is scanned backwards.
  orderIndexes(column, nullable): Record<string, RawBuilder<unknown>[]> {
    const value = sql.ref(column);
    if (!nullable) return { idx: [value], desc: [value, sql`id desc`] };
    const keys = [sql`${value} is null`, value];
    return { idx: [value], asc: keys, desc: [...keys, sql`id desc`] };
  },
};

/** The FTS5 table that is the trigram index of `table.column`. */
const trigramTable = (table: string, column: string) => `${table}_${column}_trigram`;

const UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']);
/** Rows whose column names an object literal cannot take (`select 1`): built key by key. */
const anyNames = (names: readonly string[]) => (values: unknown[]): Columns => {
  const row: Columns = {};
  names.forEach((name, index) => Object.defineProperty(row, name, { value: values[index], enumerable: true, writable: true, configurable: true }));
  return row;
};

/** Threads per process for reads that may take long (SqliteReaders). */
const READER_THREADS = 2;
/** How long migrations wait for another process's migrations before giving up. */
const EXCLUSIVE_WAIT_MS = 120_000;
/** During a bulk load every index page is touched: SQLite may keep 512 MiB of them in memory. */
const BULK_CACHE_KIB = 524_288;

export function openSqlite(path: string, options: EngineOptions = {}): Engine {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const handle = new SQLite(path);
  // The statement running now must end by this time (performance.now()); none outside readRows.
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  let deadline = Infinity;
  configure(handle, { readonly: false, timeoutMs: timeout, deadline: () => deadline });

  const prepared = statementCache(handle);
  const rowBuilders = new WeakMap<SQLite.Statement, (values: unknown[]) => Columns>();

  // Kysely prepares every query anew: it is handed the kept statements instead.
  const kyselyHandle: SqliteDatabase = {
    close: () => handle.close(),
    prepare: (text: string) => prepared(text, 'objects') as unknown as ReturnType<SqliteDatabase['prepare']>,
  };
  const observe = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: kyselyHandle }),
    log: observe ? (event) => observe(event.queryDurationMillis / 1000, event.level === 'error') : undefined,
  });

  const builders = new Map<string, (values: unknown[]) => Columns>();
  /** A builder of row objects of one shape from arrays of these columns, made once per list of names. */
  function rowBuilder(names: string[]): (values: unknown[]) => Columns {
    const key = names.join('\u0000');
    let build = builders.get(key);
    if (!build) builders.set(key, (build = names.every(isPlainName) ? (objectLiteral<[unknown[]]>(names.map((name, index) => [name, { element: index }])) as (values: unknown[]) => Columns) : anyNames(names)));
    return build;
  }

  // Reads that may take long run on threads of their own (path ':memory:' is this connection's alone).
  const threads = options.readerThreads ?? READER_THREADS;
  const readers = path === ':memory:' || threads === 0 ? null : new SqliteReaders(path, threads, timeout, (names, rows) => rows.map(rowBuilder(names)));

  /** Rows as arrays, assembled into objects of one shape by a builder made once per statement. */
  function readRows(text: string, parameters: readonly unknown[]): Columns[] {
    const statement = prepared(text, 'arrays');
    let build = rowBuilders.get(statement);
    if (!build) rowBuilders.set(statement, (build = rowBuilder(statement.columns().map((column) => column.name))));
    const started = performance.now();
    if (timeout > 0) deadline = started + timeout;
    let failed = true;
    try {
      const rows = (statement.all(...parameters) as unknown[][]).map(build);
      failed = false;
      return rows;
    } finally {
      deadline = Infinity;
      observe?.((performance.now() - started) / 1000, failed);
    }
  }

  /**
   * The data version read once per turn of the event loop: the requests answered in one turn
   * were all received during it, and a read per answer costs a third of a cached answer. The
   * tables' versions are read again only when it has moved. A change made here forgets them at
   * once; one made by another process is seen next turn.
   */
  let versions: Versions | undefined;
  let checkedThisTurn = false;
  const versionNow = (): Versions | undefined => {
    if (handle.inTransaction) return undefined; // read after it, through Kysely
    if (!checkedThisTurn) {
      const data = (prepared(VERSION_SQL, 'value').get() as number | undefined) ?? 0;
      if (versions?.data !== data) versions = versionsOf(data, prepared(TABLE_VERSIONS_SQL, 'arrays').all() as [string, number][]);
      checkedThisTurn = true;
      setImmediate(() => (checkedThisTurn = false));
    }
    return versions;
  };

  const inserts = new Map<string, SQLite.Statement>();

  return {
    name: 'sqlite',
    location: path,
    db,
    dialect: sqliteDialect,
    async run(query, within) {
      // An open transaction (an import awaiting its files) is waited for through Kysely.
      if (within || handle.inTransaction) return (await (within ?? db).executeQuery<Columns>(query)).rows;
      return readRows(query.sql, query.parameters);
    },
    runLong(query) {
      if (!readers || handle.inTransaction) return this.run(query);
      return timed(observe, () => readers.read(query.sql, query.parameters));
    },
    async readIds(query) {
      if (!readers || handle.inTransaction) return idsOf(await this.run(query));
      return timed(observe, () => readers.readIds(query.sql, query.parameters));
    },
    async *stream(query, batchSize) {
      if (path === ':memory:') {
        const rows = await this.run(query);
        for (let start = 0; start < rows.length; start += batchSize) yield rows.slice(start, start + batchSize);
        return;
      }
      // A handle of its own: an open iterator would keep the shared one busy for every other request.
      const reader = new SQLite(path, { readonly: true });
      configure(reader, { readonly: true, timeoutMs: 0, deadline: () => Infinity }); // exports take as long as they take
      try {
        const rows = reader.prepare(query.sql).iterate(...query.parameters) as IterableIterator<Columns>;
        let batch: Columns[] = [];
        for (const row of rows) {
          batch.push(row);
          if (batch.length === batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length) yield batch;
      } finally {
        reader.close();
      }
    },
    async insertMany(within, table, columns, rows) {
      if (rows.length === 0) return;
      // In-process: one prepared single-row statement beats compiling batches.
      const key = `${table}|${columns.join(',')}`;
      let statement = inserts.get(key);
      if (!statement) {
        statement = handle.prepare(within.insertInto(table).values(Object.fromEntries(columns.map((column) => [column, null]))).compile().sql);
        inserts.set(key, statement);
      }
      for (const row of rows) statement.run(row as unknown[]);
    },
    async bulkLoad(work) {
      const cacheSize = handle.pragma('cache_size', { simple: true });
      handle.pragma(`cache_size = -${BULK_CACHE_KIB}`);
      try {
        const result = await work();
        // The planner's statistics (with STAT4's samples of each index): without them it cannot
        // tell a range that holds most of a table from one that holds a few rows, and walks
        // millions of rows through an index where a scan, or the order's index, costs a page.
        handle.exec('analyze');
        return result;
      } finally {
        handle.pragma(`cache_size = ${Number(cacheSize)}`);
      }
    },
    exclusively(work) {
      return db.connection().execute(async (connection) => {
        // busy_timeout is 0 (the event loop never waits inside SQLite): wait between attempts here.
        const deadline = Date.now() + EXCLUSIVE_WAIT_MS;
        for (;;) {
          try {
            await sql`begin exclusive`.execute(connection);
            break;
          } catch (error) {
            if (!String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
          }
        }
        try {
          const result = await work(connection);
          await sql`commit`.execute(connection);
          return result;
        } catch (error) {
          if (handle.inTransaction) await sql`rollback`.execute(connection);
          throw error;
        }
      });
    },
    generateIds: async () => undefined, // INTEGER PRIMARY KEY is generated already
    syncGeneratedIds: async () => undefined, // and always takes max(id) + 1
    isIdClash: () => false,
    versionNow,
    async version() {
      const now = versionNow();
      if (now !== undefined) return now;
      const [row] = (await db.executeQuery<{ version: number }>(CompiledQuery.raw(VERSION_SQL))).rows;
      const tables = (await db.executeQuery<{ name: string; version: number }>(CompiledQuery.raw(TABLE_VERSIONS_SQL))).rows;
      return versionsOf(Number(row?.version ?? 0), tables.map(({ name, version }) => [name, version] as const));
    },
    changed() {
      checkedThisTurn = false;
    },
    announceChange: async () => undefined, // every process reads the version itself
    limitLockWait: async () => undefined, // busy_timeout is 0: changeData waits, between attempts
    isBusy: (error) => String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY'),
    isUnavailable: (error) => {
      const code = String((error as { code?: unknown })?.code ?? '');
      return [...UNAVAILABLE].some((base) => code === base || code.startsWith(`${base}_`));
    },
    isStatementTimeout: (error) => error instanceof StatementTimeout,
    poolStats: () => null,
    statementCache: () => ({
      name: 'statements', holds: "a prepared statement of the main connection (each reader thread keeps its own)", key: 'row form, SQL text', bound: `${prepared.size.toLocaleString('en')} statements`, stale: 'never (no data in it)',
      figures: sizeOnly(prepared.statements),
    }),
    async close() {
      await readers?.close();
      await db.destroy();
    },
  };
}

