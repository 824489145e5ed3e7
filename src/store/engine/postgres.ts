/**
 * PostgreSQL, assembled from its parts: the dialect (postgres-dialect.ts), the pool and its named
 * statements (postgres-pool.ts), the data versions heard from every instance's commits
 * (postgres-watch.ts), bulk loads, migrations and ids (postgres-load.ts), and what the planner's
 * statistics tell the reader (postgres-statistics.ts). Several instances share one database;
 * every change sends a notification at commit that each instance's listening connection hears,
 * so the data version is held in memory instead of read for every cached answer.
 */
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import Cursor from 'pg-cursor';
import { sizeOnly } from '../caches.ts';
import { TABLE_VERSIONS_SQL, tallyOf, tallyOfGroups, VERSION_SQL, versionsOf, type Columns, type Database, type Engine, type EngineOptions } from './engine.ts';
import { analyzeThenRead, keyStatistics } from './key-statistics.ts';
import { postgresDialect, withSet } from './postgres-dialect.ts';
import { postgresLoading } from './postgres-load.ts';
import { isUnavailable, openPool, PREPARED_MAX, storageFault } from './postgres-pool.ts';
import { postgresFewKeys } from './postgres-statistics.ts';
import { CHANGES_CHANNEL, VersionWatch } from './postgres-watch.ts';

const VERSIONS_SQL = `select null as name, version from (${VERSION_SQL}) as data union all ${TABLE_VERSIONS_SQL}`;

export function openPostgres(url: string, options: EngineOptions = {}): Engine {
  const { pool, read, names } = openPool(url, options);
  const observe = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool, cursor: Cursor }),
    log: observe ? (event) => observe(event.queryDurationMillis / 1000, event.level === 'error') : undefined,
  });
  const watch = new VersionWatch(url);
  const statistics = keyStatistics(() => postgresFewKeys(db));
  // Read at once: the first searches would otherwise be planned before the statistics are known.
  void statistics.readAgain();
  const loading = postgresLoading(db);
  const shown = new URL(url);
  shown.password = '';

  return {
    name: 'postgres',
    checksBeforeChange: true,
    location: shown.toString(),
    db,
    dialect: postgresDialect,
    async run(query, within) {
      return within ? (await within.executeQuery<Columns>(query)).rows : read(query);
    },
    runLong(query) {
      return read(query);
    },
    runAmong(query, set) {
      return read({ ...query, parameters: withSet(query.parameters, set) });
    },
    async readIds(query) {
      // One value, not a row per id: node-postgres makes an object of every row, three times the
      // cost of the read itself for 40,000 ids. Four bytes an id (a bytea, which pg decodes from
      // hex natively): as decimal text, the 593,000 custom fields whose value holds `a` took
      // 370 ms of the event loop to split and parse, every other request waiting. The aggregate
      // takes the rows in the order the query gives them: an ordered subquery offers it no
      // parallel (partial) path.
      const joined = { ...query, sql: `select string_agg(int4send(q.id), ''::bytea) as ids from (${query.sql}) as q(id)` };
      const [{ ids }] = await read(joined);
      return ids instanceof Uint8Array ? idsOfBigEndian(ids) : new Int32Array(0);
    },
    async tally(query) {
      // Grouped by hashing as the rows come; null first, as tallyOf puts -1.
      const grouped = { ...query, sql: `select q.v as value, count(*) as count from (${query.sql}) as q(v) group by q.v order by q.v nulls first` };
      return tallyOfGroups(await read(grouped), 'value');
    },
    async readIdsTallied(query) {
      // Both columns as readIds sends one, in the same order (one aggregate node feeds both).
      const joined = { ...query, sql: `select string_agg(int4send(q.id), ''::bytea) as ids, string_agg(int4send(coalesce(q.v, -1)), ''::bytea) as tallied from (${query.sql}) as q(id, v)` };
      const [{ ids, tallied }] = await read(joined);
      if (!(ids instanceof Uint8Array) || !(tallied instanceof Uint8Array)) return { ids: new Int32Array(0), tally: tallyOf([]) };
      return { ids: idsOfBigEndian(ids), tally: tallyOf(idsOfBigEndian(tallied)) };
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
    ...loading,
    analyze: analyzeThenRead(loading.analyze, statistics),
    versionNow: () => watch.now(),
    version: () => watch.versions(async () => {
      // One statement, one snapshot: the data version and the tables' (the data's row has no name).
      const { rows } = await db.executeQuery<{ name: string | null; version: number }>(CompiledQuery.raw(VERSIONS_SQL));
      const data = rows.find((row) => row.name === null);
      return versionsOf(Number(data?.version ?? 0), rows.flatMap(({ name, version }) => (name === null ? [] : [[name, version] as const])));
    }),
    changed: () => watch.changed(),
    async beginChange(within, tables, waitMs, logged) {
      // One statement, one round trip, the change log's rows known so far with it: a write holds
      // the version row (every other writer waits for it) until it commits, each of its
      // statements a turn of a busy event loop apart. The lock's
      // wait is set in the update's condition, evaluated on the row before its lock is waited for:
      // a lock not had in time fails the statement (55P03), the write answered 503, not queued.
      const lockTimeout = Number.isFinite(waitMs) ? `${Math.max(1, Math.round(waitMs))}ms` : '0';
      const { rows } = await sql<{ version: number }>`
        with moved as (
          update data_version set version = version + 1
          where id = 1 and set_config('lock_timeout', ${lockTimeout}, true) <> ''
          returning version
        ), named as (
          insert into table_version (name, version)
          select name, version from moved, unnest(${[...tables]}::text[]) as name
          on conflict (name) do update set version = excluded.version
        ), logged as (
          insert into change_log (version, tbl, project)
          select version, tbl, project from moved, unnest(${logged.map((row) => row.tbl)}::text[], ${logged.map((row) => row.project)}::int[]) as l(tbl, project)
        )
        select version, pg_notify(${CHANGES_CHANNEL}, '') from moved`.execute(within);
      if (rows.length !== 1) throw new Error('the data version row is missing');
      return Number(rows[0].version);
    },
    isBusy: () => false, // the server itself waits, up to lock_timeout
    isUnavailable,
    storageFault,
    async writesBlocked(remembered) {
      // A standby, or a database set default_transaction_read_only: every write would fail (25006).
      const { rows } = await db.executeQuery<{ read_only: boolean }>(CompiledQuery.raw("select pg_is_in_recovery() or current_setting('default_transaction_read_only') = 'on' as read_only"));
      if (rows[0]?.read_only) return 'read-only';
      // The server's free space cannot be seen from here: a full disk is known by what writes met.
      return remembered === 'full' ? 'full' : null;
    },
    isStatementTimeout: (error) => (error as { code?: unknown } | null)?.code === '57014' && /statement timeout/.test((error as Error).message),
    fewKeys: statistics.fewKeys,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    caches: () => [{
      name: 'statements', holds: 'the name a SQL text is prepared under, on every connection', key: 'SQL text', bound: `${PREPARED_MAX} texts (later ones unnamed)`, stale: 'never (no data in it)',
      figures: sizeOnly(names),
    }, statistics.describe()],
    async close() {
      await watch.stop();
      await db.destroy();
    },
  };
}

/** Ids sent as four big-endian bytes each (`int4send`), as 32-bit integers of this machine's order. */
function idsOfBigEndian(bytes: Uint8Array): Int32Array {
  const copy = new Uint8Array(bytes); // its own buffer, aligned for Int32Array
  Buffer.from(copy.buffer).swap32();
  return new Int32Array(copy.buffer);
}
