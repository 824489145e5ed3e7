/**
 * PostgreSQL's connections: a pg pool whose statements the server stops past their time, whose
 * dropped connections are answered as "database unavailable" (503), and whose reads are sent as
 * named statements that each connection prepares once.
 */
import { type CompiledQuery } from 'kysely';
import pg from 'pg';
import { DEFAULT_STATEMENT_TIMEOUT_MS, timed, type Columns, type EngineOptions, type StorageFault } from './engine.ts';

const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '3D000', // invalid_catalog_name: the database does not exist (renamed, dropped, not yet made)
  '55000', // object_not_in_prerequisite_state: "database … is not currently accepting connections"
  '53300', // too_many_connections
  '57014', // query_canceled: the server gave up on a query (statement timeout, cancelled)
  '55P03', // lock_not_available: another writer (an import) holds the data longer than a write waits
]);
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Query read timeout/;

/** PostgreSQL's refusals of a write for want of storage: disk_full (53100), read_only_sql_transaction (25006). */
export function storageFault(error: unknown): StorageFault | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '53100') return 'full';
  return code === '25006' ? 'read-only' : null;
}

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/**
 * Reads outside a transaction are sent as named statements, which each connection prepares once
 * and PostgreSQL then plans once, not every time. Only the first PREPARED_MAX SQL texts get a
 * name: a caller inventing filter after filter cannot grow every connection's memory; later
 * texts are sent unnamed, as before.
 */
export const PREPARED_MAX = 256;

/**
 * A LIKE on a parameter (filter-sql.ts): its best plan depends on the pattern, so such a statement
 * is sent unnamed and planned for its values each time. A prepared one is given, after five runs,
 * the plan for any pattern: at scale 100 a link count of one project by `url__icontains=he`
 * (a two-letter pattern, which has no trigram) read the whole trigram index, 0.56 s, where the
 * project's 43 links take 0.1 ms.
 */
const PATTERN_PARAMETER = / like \$\d+ escape /;

// Dates stay 'YYYY-MM-DD' text, as SQLite keeps them (1082 = date).
pg.types.setTypeParser(1082, (value) => value);

export interface PostgresPool {
  pool: pg.Pool;
  /** A read on a pooled connection, as a named statement where it has a name. */
  read(query: CompiledQuery): Promise<Columns[]>;
  /** The SQL texts named so far. */
  names: ReadonlyMap<string, string>;
}

export function openPool(url: string, options: EngineOptions): PostgresPool {
  // 0 (the command line's imports and exports): no limit.
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Fail fast rather than queue forever when the server is gone (answered as 503).
    connectionTimeoutMillis: 3000,
    // The server stops a statement that runs too long (57014); the client gives up a little later
    // on a server that has stopped answering altogether.
    statement_timeout: statementTimeout,
    query_timeout: options.queryTimeoutMs ?? (statementTimeout > 0 ? statementTimeout + 5000 : undefined),
  });
  // An idle connection the server dropped (restart, pg_terminate_backend) is discarded by the
  // pool; without a listener its error would end the process.
  pool.on('error', (error) => options.onError?.(error, 'an idle database connection failed'));
  // A connection dropped while in use fails its query (answered as 503); this keeps the
  // connection's own error event from ending the process as well.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_MAX && !PATTERN_PARAMETER.test(text)) names.set(text, (name = `rsr_${names.size}`));
    return name;
  };
  const read = (query: CompiledQuery): Promise<Columns[]> => timed(options.onQuery, async () => (await pool.query<Columns>({ name: nameOf(query.sql), text: query.sql, values: query.parameters as unknown[] })).rows);
  return { pool, read, names };
}
