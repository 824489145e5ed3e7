/**
 * The embedded engine: SQLite through better-sqlite3, in this process, assembled from its parts:
 * the dialect (sqlite-dialect.ts), the connection's settings (sqlite-setup.ts), its statements
 * and rows (sqlite-rows.ts), reader threads for reads that may take long (sqlite-readers.ts), a
 * thread for the write-ahead log's checkpoints (sqlite-checkpoints.ts), the
 * data versions (sqlite-versions.ts), bulk loads and migrations (sqlite-load.ts), ids never
 * handed out twice (sqlite-ids.ts), and what the planner's statistics tell the reader
 * (sqlite-statistics.ts). A lock is never waited for inside a call (it would stop the event
 * loop: changeData waits between tries).
 */
import { accessSync, constants, mkdirSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { IdSet } from '../idset.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS, idsOf, idsTalliedOf, tallyOfRows, timed, type Columns, type Database, type Engine, type EngineOptions, type StorageFault } from './engine.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { sqliteIds } from './sqlite-ids.ts';
import { sqliteLoading } from './sqlite-load.ts';
import { checkpointOffLoop } from './sqlite-checkpoints.ts';
import { SqliteReaders } from './sqlite-readers.ts';
import { SqliteStatements } from './sqlite-rows.ts';
import { analyzeThenRead, keyStatistics } from './key-statistics.ts';
import { sqliteFewKeys } from './sqlite-statistics.ts';
import { configure, StatementTimeout } from './sqlite-setup.ts';
import { watchVersions } from './sqlite-versions.ts';

const UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']);
/** Space a write needs at least (its pages and their copies in the write-ahead log); less is a full disk. */
const WRITE_ROOM_BYTES = 1024 * 1024;

const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '');

/** SQLite's words for a file system that refuses writes: no space (SQLITE_FULL), or read-only (SQLITE_READONLY_*). */
function storageFault(error: unknown): StorageFault | null {
  const code = codeOf(error);
  if (code === 'SQLITE_FULL' || (code === 'SQLITE_IOERR_WRITE' && /disk is full|No space/i.test(String((error as Error).message)))) return 'full';
  return code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_') ? 'read-only' : null;
}

/** What the file system of the database says before anything is written: too little room, or no writing at all. */
function filesRefuseWrites(path: string): StorageFault | null {
  try {
    accessSync(dirname(path), constants.W_OK);
    accessSync(path, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EROFS' || (error as NodeJS.ErrnoException).code === 'EACCES') return 'read-only';
  }
  const disk = statfsSync(dirname(path));
  return disk.bavail * disk.bsize < WRITE_ROOM_BYTES ? 'full' : null;
}
/** Threads per process for reads that may take long (SqliteReaders). */
const READER_THREADS = 2;

/**
 * The ROLLBACK of a transaction SQLite already rolled back itself (it does on SQLITE_FULL and
 * some I/O errors): a statement that does nothing, so that the error that ended the transaction
 * is the one reported, not "cannot rollback - no transaction is active".
 */
const ROLLED_BACK = { reader: false, all: () => [], iterate: () => [][Symbol.iterator](), run: () => ({ changes: 0, lastInsertRowid: 0 }) };

export function openSqlite(path: string, options: EngineOptions = {}): Engine {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const handle = new SQLite(path);
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const observe = options.onQuery;
  const statements = new SqliteStatements(handle, timeout, observe);
  // The set `rsr_among` checks while a statement runs on this connection (runAmong without reader threads).
  let among: IdSet | null = null;
  configure(handle, { readonly: false, timeoutMs: timeout, deadline: () => statements.deadline, among: () => among });

  // Kysely prepares every query anew: it is handed the kept statements instead.
  const kyselyHandle: SqliteDatabase = {
    close: () => handle.close(),
    prepare: (text: string) => (text === 'rollback' && !handle.inTransaction ? ROLLED_BACK : statements.prepared(text, 'objects')) as unknown as ReturnType<SqliteDatabase['prepare']>,
  };
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: kyselyHandle }),
    log: observe ? (event) => observe(event.queryDurationMillis / 1000, event.level === 'error') : undefined,
  });

  // Reads that may take long run on threads of their own (path ':memory:' is this connection's alone).
  const threads = options.readerThreads ?? READER_THREADS;
  const readers = path === ':memory:' || threads === 0 ? null : new SqliteReaders(path, threads, timeout, (names, rows) => rows.map(statements.rowBuilder(names)));
  const checkpoints = readers ? checkpointOffLoop(path, handle) : null;
  const statistics = keyStatistics(() => sqliteFewKeys(handle));
  const loading = sqliteLoading(handle, db);

  return {
    name: 'sqlite',
    checksBeforeChange: false,
    location: path,
    db,
    dialect: sqliteDialect,
    async run(query, within) {
      if (within && within !== db) return (await within.executeQuery<Columns>(query)).rows;
      if (handle.inTransaction) {
        // A change under way on this connection (a write awaiting its checks, an import its
        // files): what it wrote is not committed, and no other answer may see it. The reader
        // threads read what is committed, at once; with none, the change is waited for.
        if (readers) return timed(observe, () => readers.read(query.sql, query.parameters));
        return (await db.executeQuery<Columns>(query)).rows;
      }
      return statements.read(query.sql, query.parameters);
    },
    runLong(query) {
      if (!readers) return this.run(query);
      return timed(observe, () => readers.read(query.sql, query.parameters));
    },
    async runAmong(query, set) {
      if (readers) return timed(observe, () => readers.read(query.sql, query.parameters, set));
      // On this connection: once no transaction is under way (waited for through Kysely, as `run`
      // does), then at once, so that no other statement runs while `among` is this set.
      while (handle.inTransaction) await db.executeQuery(CompiledQuery.raw('select 1'));
      among = set;
      try {
        return statements.read(query.sql, query.parameters);
      } finally {
        among = null;
      }
    },
    async readIds(query) {
      if (!readers) return idsOf(await this.run(query));
      return timed(observe, () => readers.readIds(query.sql, query.parameters));
    },
    async tally(query) {
      if (!readers) return tallyOfRows(await this.run(query));
      return timed(observe, () => readers.tally(query.sql, query.parameters));
    },
    async readIdsTallied(query) {
      if (!readers) return idsTalliedOf(await this.run(query));
      return timed(observe, () => readers.readIdsTallied(query.sql, query.parameters));
    },
    async *stream(query, batchSize) {
      if (path === ':memory:') {
        const rows = await this.run(query);
        for (let start = 0; start < rows.length; start += batchSize) yield rows.slice(start, start + batchSize);
        return;
      }
      // A handle of its own: an open iterator would keep the shared one busy for every other request.
      const reader = new SQLite(path, { readonly: true });
      configure(reader, { readonly: true, timeoutMs: 0, deadline: () => Infinity, among: () => null }); // exports take as long as they take
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
    ...loading,
    analyze: analyzeThenRead(loading.analyze, statistics),
    ...sqliteIds(),
    ...watchVersions(handle, statements, db, readers !== null),
    isBusy: (error) => String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY'),
    isUnavailable: (error) => {
      const code = codeOf(error);
      return [...UNAVAILABLE].some((base) => code === base || code.startsWith(`${base}_`));
    },
    storageFault,
    // The file system shows both causes: what writes met is no longer the question once it has room.
    writesBlocked: async () => (path === ':memory:' ? null : filesRefuseWrites(path)),
    isStatementTimeout: (error) => error instanceof StatementTimeout,
    fewKeys: statistics.fewKeys,
    poolStats: () => null,
    caches: () => [{
      name: 'statements', holds: "a prepared statement of the main connection (each reader thread keeps its own)", key: 'row form, SQL text', bound: `${statements.prepared.size.toLocaleString('en')} statements`, stale: 'never (no data in it)',
      figures: statements.prepared.figures,
    }, statistics.describe()],
    async close() {
      await readers?.close();
      await checkpoints?.close();
      await db.destroy();
    },
  };
}
