/** Opens the database named by a DATABASE_URL: `sqlite:PATH` (default) or `postgres://…`. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { postgresDialect, sqliteDialect, type Dialect } from './dialect.js';

/** Tables are declared at run time (resources/), so rows are typed by the declarations, not here. */
export type Database = Record<string, Record<string, unknown>>;

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for messages (no password). */
  location: string;
}

export interface ConnectOptions {
  poolSize?: number;
}

export function connect(url: string, options: ConnectOptions = {}): Connection {
  if (/^postgres(ql)?:\/\//.test(url)) return connectPostgres(url, options);
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), dialect: sqliteDialect, location: path };
}

// Dates stay 'YYYY-MM-DD' text, as SQLite keeps them (1082 = date).
pg.types.setTypeParser(1082, (value) => value);

function connectPostgres(url: string, options: ConnectOptions): Connection {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  const parsed = new URL(url);
  parsed.password = '';
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: postgresDialect, location: parsed.toString() };
}
