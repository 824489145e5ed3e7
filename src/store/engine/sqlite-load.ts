/**
 * How the embedded engine takes much data at once (imports) and runs migrations: rows inserted
 * through one prepared single-row statement per table and columns (in-process, that beats
 * compiling batches), a large page cache during a bulk load and the planner's statistics after
 * it, and migrations under an exclusive lock that other processes wait for between attempts.
 */
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database, Engine } from './engine.ts';

/** How long migrations wait for another process's migrations before giving up. */
const EXCLUSIVE_WAIT_MS = 120_000;
/** During a bulk load every index page is touched: SQLite may keep 512 MiB of them in memory. */
const BULK_CACHE_KIB = 524_288;

export function sqliteLoading(handle: SQLite.Database, db: Kysely<Database>): Pick<Engine, 'insertMany' | 'bulkLoad' | 'exclusively'> {
  const inserts = new Map<string, SQLite.Statement>();
  return {
    async insertMany(within, table, columns, rows) {
      if (rows.length === 0) return;
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
  };
}
