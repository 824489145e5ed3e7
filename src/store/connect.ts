/** Opens the database named by a DATABASE_URL: `sqlite:PATH` (default) or `postgres://…`. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { VersionedCache } from './data-version.ts';
import type { Marks } from './read.ts';
import { postgresDialect, sqliteDialect, type Dialect } from './dialect.ts';
import { VersionWatch } from './version-watch.ts';

/** Tables are declared at run time (resources/), so rows are typed by the declarations, not here. */
export type Database = Record<string, Record<string, unknown>>;

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The embedded database's own handle, for bulk loads through prepared statements. */
  sqlite?: SQLite.Database;
  /** Where the data lives, for messages (no password). */
  location: string;
  counts: VersionedCache<number>;
  /** Ids at noted positions of lists in id order, for deep pages (read.ts). */
  seeks: VersionedCache<Marks>;
  /** PostgreSQL: the data version held in memory between notifications of changes. */
  watch?: VersionWatch;
}

/** Closes the database and stops listening for changes. */
export async function disconnect(connection: Connection): Promise<void> {
  await connection.watch?.stop();
  await connection.db.destroy();
}

export interface ConnectOptions {
  poolSize?: number;
  /** PostgreSQL: how long a query may go unanswered before it fails (answered as 503). */
  queryTimeoutMs?: number;
}

export function connect(url: string, options: ConnectOptions = {}): Connection {
  if (/^postgres(ql)?:\/\//.test(url)) return connectPostgres(url, options);
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // Never wait for a lock inside a call: it would stop the event loop (changeData waits between attempts).
  database.pragma('busy_timeout = 0');
  database.pragma('cache_size = -32768'); // 32 MiB of pages; the OS file cache holds the rest
  // LIKE as PostgreSQL has it (filters' `contains`); case-insensitive lookups use the D7 keys.
  database.pragma('case_sensitive_like = ON');
  return {
    db: new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) }),
    dialect: sqliteDialect,
    sqlite: database,
    location: path,
    counts: new VersionedCache(),
    seeks: new VersionedCache(),
  };
}

const STATEMENT_CACHE_SIZE = 1000;
const statementCaches = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/** How a statement hands out rows: as objects (Kysely's way), as arrays, or as one value. */
export type RowMode = 'objects' | 'arrays' | 'value';

/**
 * A prepared statement for `text`, kept for the next request: the same few SQL texts recur on
 * every request (better-sqlite3 runs one statement at a time, so reusing them is safe).
 */
export function preparedStatement(database: SQLite.Database, text: string, mode: RowMode): SQLite.Statement {
  let statements = statementCaches.get(database);
  if (!statements) statementCaches.set(database, (statements = new Map()));
  const key = `${mode}|${text}`;
  let statement = statements.get(key);
  if (!statement) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
    statement = database.prepare(text);
    if (mode === 'arrays') statement.raw(true);
    if (mode === 'value') statement.pluck(true);
    statements.set(key, statement);
  }
  return statement;
}

/** Kysely prepares every query anew: it is handed the kept statements instead. */
function withStatementCache(database: SQLite.Database): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare: (text: string) => preparedStatement(database, text, 'objects') as unknown as ReturnType<SqliteDatabase['prepare']>,
  };
}

// Dates stay 'YYYY-MM-DD' text, as SQLite keeps them (1082 = date).
pg.types.setTypeParser(1082, (value) => value);

function connectPostgres(url: string, options: ConnectOptions): Connection {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Fail fast rather than queue forever when the server is gone (answered as 503).
    connectionTimeoutMillis: 3000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
  });
  // An idle connection the server dropped (restart, pg_terminate_backend) is discarded by the
  // pool; without a listener its error would end the process.
  pool.on('error', () => undefined);
  // A connection dropped while in use fails its query (answered as 503); this keeps the
  // connection's own error event from ending the process as well.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const parsed = new URL(url);
  parsed.password = '';
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: postgresDialect,
    location: parsed.toString(),
    counts: new VersionedCache(),
    seeks: new VersionedCache(),
    watch: new VersionWatch(url),
  };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '3D000', // invalid_catalog_name: the database does not exist (renamed, dropped, not yet made)
  '55000', // object_not_in_prerequisite_state: "database … is not currently accepting connections"
  '53300', // too_many_connections
  '57014', // query_canceled: the server gave up on a query (statement timeout, cancelled)
  '55P03', // lock_not_available: another writer (an import) holds the data longer than a write waits
  'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR',
]);

/** True for errors that mean "the database cannot be reached now", as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Query read timeout/.test(error.message);
}
