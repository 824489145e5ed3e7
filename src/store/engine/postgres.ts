/**
 * PostgreSQL through a pg pool: several instances share one database. Every change sends a
 * notification at commit that each instance's listening connection hears (postgres-watch.ts), so
 * the data version is held in memory instead of read for every cached answer.
 */
import { sizeOnly } from '../caches.ts';
import { CompiledQuery, Kysely, PostgresDialect, sql, type RawBuilder, type SqlBool } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { DEFAULT_STATEMENT_TIMEOUT_MS, TABLE_VERSIONS_SQL, VERSION_SQL, idsOf, rowsPerInsert, timed, versionsOf, type Columns, type Database, type Dialect, type Engine, type EngineOptions } from './engine.ts';
import { CHANGES_CHANNEL, VersionWatch } from './postgres-watch.ts';

/** Native booleans, numeric(p, s), date; timestamps as canonical UTC text (text/time.ts). */
export const postgresDialect: Dialect = {
  true: true,
  sortKeyType: sql`text collate "C"`,
  columnType(field) {
    switch (field.type) {
      case 'int': return 'integer';
      case 'bool': return 'boolean';
      case 'decimal': return sql.raw(`numeric(${field.digits?.[0] ?? 20}, ${field.digits?.[1] ?? 2})`);
      case 'date': return 'date';
      default: return 'text';
    }
  },
  toDb(field, value) {
    if (value === null || value === undefined) return null;
    return field.type === 'json' ? JSON.stringify(value) : value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'decimal') return Number(value);
    if (field.type === 'json') return typeof value === 'string' ? JSON.parse(value) : value;
    return value;
  },
  orderTerms(column, nullable, descending) {
    if (!nullable) return [[column, descending ? 'desc' : 'asc']];
    return [[column, (order) => (descending ? order.desc().nullsFirst() : order.asc().nullsLast())]];
  },
  inList: (column, list) => sql<SqlBool>`${column} = any(${list})`,
  withinTime: null, // statement_timeout stops any statement
  unindexed: (column) => column,
  trigramIndex(table, column) {
    const name = sql.id(`${table}_${column}_trgm`);
    // Where pg_trgm cannot be had (not installed, or not ours to create) the lookups scan as before.
    const create = sql`do $$ begin
      create extension if not exists pg_trgm;
      create index if not exists ${name} on ${sql.table(table)} using gin (${sql.ref(column)} gin_trgm_ops);
    exception when undefined_file or insufficient_privilege or feature_not_supported then
      raise notice 'no trigram index: %', sqlerrm;
    end $$`;
    return {
      create: [create],
      drop: [sql`drop index if exists ${name}`],
    };
  },
  trigramCandidates: null,
  listParameter: (ids) => ids,
  orderIndexes(column): Record<string, RawBuilder<unknown>[]> {
    return { asc: [sql.ref(column), sql`id`], desc: [sql`${sql.ref(column)} desc nulls first`, sql`id`] };
  },
};

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

function isUnavailable(error: unknown): boolean {
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
const PREPARED_MAX = 256;

/** The advisory lock key migrations take (any fixed number; this one spells "rsr-api"). */
const MIGRATION_LOCK = 0x7273722d617069n.toString();

// Dates stay 'YYYY-MM-DD' text, as SQLite keeps them (1082 = date).
pg.types.setTypeParser(1082, (value) => value);

export function openPostgres(url: string, options: EngineOptions = {}): Engine {
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
  const observe = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool, cursor: Cursor }),
    log: observe ? (event) => observe(event.queryDurationMillis / 1000, event.level === 'error') : undefined,
  });
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_MAX) names.set(text, (name = `rsr_${names.size}`));
    return name;
  };
  /** A read on a pooled connection, as a named statement where it has a name. */
  const read = (query: CompiledQuery): Promise<Columns[]> => timed(observe, async () => (await pool.query<Columns>({ name: nameOf(query.sql), text: query.sql, values: query.parameters as unknown[] })).rows);
  const watch = new VersionWatch(url);
  const shown = new URL(url);
  shown.password = '';

  return {
    name: 'postgres',
    location: shown.toString(),
    db,
    dialect: postgresDialect,
    async run(query, within) {
      return within ? (await within.executeQuery<Columns>(query)).rows : read(query);
    },
    runLong(query) {
      return read(query);
    },
    async readIds(query) {
      return idsOf(await read(query));
    },
    async *stream(query, batchSize) {
      const client = await pool.connect();
      const cursor = client.query(new Cursor<Columns>(query.sql, query.parameters as unknown[]));
      try {
        for (;;) {
          const rows = await cursor.read(batchSize);
          if (rows.length === 0) return;
          yield rows;
        }
      } finally {
        await cursor.close().catch(() => undefined);
        client.release();
      }
    },
    async insertMany(within, table, columns, rows) {
      const size = rowsPerInsert(columns.length);
      for (let start = 0; start < rows.length; start += size) {
        const values = rows.slice(start, start + size).map((row) => Object.fromEntries(columns.map((column, index) => [column, row[index]])));
        await within.insertInto(table).values(values).execute();
      }
    },
    async bulkLoad(work) {
      const result = await work();
      // Without statistics the planner guesses from empty tables and sorts whole lists for page 1.
      await sql`analyze`.execute(db);
      return result;
    },
    exclusively(work) {
      // A transaction-scoped advisory lock: released at commit or rollback, even if the process dies.
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
        return work(trx);
      });
    },
    async generateIds(within, table) {
      await sql`alter table ${sql.table(table)} alter column id add generated by default as identity`.execute(within);
    },
    async syncGeneratedIds(within, table) {
      const { rows: [{ sequence }] } = await sql<{ sequence: string }>`select pg_get_serial_sequence(${`"${table}"`}, 'id') as sequence`.execute(within);
      // The sequence's name comes from the catalogue, quoted as PostgreSQL quotes it.
      const { rows: [state] } = await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from ${sql.raw(sequence)}`.execute(within);
      const { rows: [{ largest }] } = await sql<{ largest: string | null }>`select max(id) as largest from ${sql.table(table)}`.execute(within);
      const next = Number(state.last_value) + (state.is_called ? 1 : 0);
      if (largest !== null && Number(largest) >= next) await sql`select setval(${sequence}, ${Number(largest) + 1}, false)`.execute(within);
    },
    isIdClash(error, table) {
      const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
      return code === '23505' && constraint === `${table}_pkey`;
    },
    versionNow: () => watch.now(),
    async version() {
      const now = watch.now();
      if (now !== undefined) return now;
      const mark = watch.mark();
      const [row] = (await db.executeQuery<{ version: number }>(CompiledQuery.raw(VERSION_SQL))).rows;
      const tables = (await db.executeQuery<{ name: string; version: number }>(CompiledQuery.raw(TABLE_VERSIONS_SQL))).rows;
      const versions = versionsOf(Number(row?.version ?? 0), tables.map(({ name, version }) => [name, version] as const));
      watch.remember(mark, versions);
      return versions;
    },
    changed: () => watch.changed(),
    async announceChange(within) {
      await sql`notify ${sql.raw(CHANGES_CHANNEL)}`.execute(within);
    },
    async limitLockWait(within, ms) {
      // A lock not had in time fails the statement (55P03): the write is answered 503, not queued.
      if (Number.isFinite(ms)) await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(ms))}ms`}, true)`.execute(within);
    },
    isBusy: () => false, // the server itself waits, up to lock_timeout
    isUnavailable,
    isStatementTimeout: (error) => (error as { code?: unknown } | null)?.code === '57014' && /statement timeout/.test((error as Error).message),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    statementCache: () => ({
      name: 'statements', holds: 'the name a SQL text is prepared under, on every connection', key: 'SQL text', bound: `${PREPARED_MAX} texts (later ones unnamed)`, stale: 'never (no data in it)',
      figures: sizeOnly(names),
    }),
    async close() {
      await watch.stop();
      await db.destroy();
    },
  };
}
