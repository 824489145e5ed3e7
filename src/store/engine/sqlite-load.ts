/**
 * How the embedded engine takes much data at once (imports) and runs migrations: rows inserted
 * through one prepared single-row statement per table and columns (in-process, that beats
 * compiling batches), a large page cache during a bulk load and small sorted runs while it makes
 * a table's indexes anew, the planner's statistics, and migrations under an exclusive lock that
 * other processes wait for between attempts.
 */
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database, Engine, LookedUp } from './engine.ts';

/** How long migrations wait for another process's migrations before giving up. */
const EXCLUSIVE_WAIT_MS = 120_000;
/** During a bulk load into tables that keep their indexes every index page is touched: SQLite may keep 512 MiB of them in memory. */
const BULK_CACHE_KIB = 524_288;
/**
 * Making a table's indexes anew, SQLite sorts its entries in runs of the cache's size: runs of
 * 512 MiB are one sort that misses the processor's caches at every step, runs of 4 MiB sorted
 * by helper threads and merged took half as long (at scale 100, the import 230 -> 200 s).
 */
const INDEXING_CACHE_KIB = 4096;
const SORT_THREADS = 2;

/** The key a looked-up column's subquery is given: each row's own value of `LookedUp.from`. */
const KEY = Symbol('the row\'s key');

/** One prepared single-row insert: the row's values, then the looked-up column's subquery with the row's key. */
function prepareInsert(handle: SQLite.Database, within: Kysely<Database>, table: string, columns: readonly string[], lookedUp?: LookedUp): (row: readonly unknown[]) => void {
  const names = lookedUp ? [...columns, lookedUp.column] : columns;
  const values = columns.map(() => sql`?`);
  if (lookedUp) values.push(sql`(${lookedUp.of(sql.val(KEY))})`);
  const query = sql`insert into ${sql.table(table)} (${sql.join(names.map((name) => sql.ref(name)))}) values (${sql.join(values)})`.compile(within);
  const statement = handle.prepare(query.sql);
  if (!lookedUp) return (row) => statement.run(row as unknown[]);
  const key = columns.indexOf(lookedUp.from);
  const rest = query.parameters;
  return (row) => statement.run([...row, ...rest.map((value) => (value === KEY ? row[key] : value))]);
}

export function sqliteLoading(handle: SQLite.Database, db: Kysely<Database>): Pick<Engine, 'insertMany' | 'bulkLoad' | 'analyze' | 'vacuum' | 'exclusively'> {
  const inserts = new Map<string, (row: readonly unknown[]) => void>();
  return {
    async insertMany(within, table, columns, rows, lookedUp) {
      if (rows.length === 0) return;
      const key = `${table}|${columns.join(',')}|${lookedUp?.column ?? ''}`;
      let insert = inserts.get(key);
      if (!insert) inserts.set(key, (insert = prepareInsert(handle, within, table, columns, lookedUp)));
      for (const row of rows) insert(row);
    },
    async bulkLoad(work) {
      const [cacheSize, threads] = [handle.pragma('cache_size', { simple: true }), handle.pragma('threads', { simple: true })];
      const cache = (kib: number) => handle.pragma(`cache_size = -${kib}`);
      const indexing = async <T>(making: () => Promise<T>): Promise<T> => {
        cache(INDEXING_CACHE_KIB);
        try {
          return await making();
        } finally {
          cache(BULK_CACHE_KIB);
        }
      };
      cache(BULK_CACHE_KIB);
      handle.pragma(`threads = ${SORT_THREADS}`);
      try {
        return await work({ indexing });
      } finally {
        handle.pragma(`cache_size = ${Number(cacheSize)}`);
        handle.pragma(`threads = ${Number(threads)}`);
      }
    },
    async analyze(except, within) {
      // With STAT4's samples of each index: a range's share of a table, not a guess.
      await sql`analyze`.execute(within ?? db);
      for (const table of ['sqlite_stat1', 'sqlite_stat4']) await sql`delete from ${sql.table(table)} where tbl in (${sql.join(except)})`.execute(within ?? db);
      await sql`analyze sqlite_schema`.execute(within ?? db); // read again by the planner
    },
    vacuum: async () => undefined, // SQLite reads an index that holds every column it needs without its table, whatever the rows' age
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
  };
}
