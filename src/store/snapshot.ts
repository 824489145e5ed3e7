/**
 * One moment of a database for long reads (export, backup): an engine whose every read, however
 * many and however long, sees the data as it was when the snapshot began, while the service goes
 * on writing. Reading each table in a query of its own would not: a link written between the
 * read of projects and the read of links could name a project the export does not hold.
 *
 * SQLite: one read transaction on a connection of its own (WAL keeps the pages it began with).
 * PostgreSQL: one REPEATABLE READ, READ ONLY transaction on one connection; long reads go through
 * cursors of that transaction. The engine folder, where this would belong (Engine.snapshot), is
 * not this file's to change: which engine it is, it asks by name.
 */
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, type Transaction } from 'kysely';
import { idsOf, idsTalliedOf, tallyOfRows, type Columns, type Database, type Engine, type Versions } from './engine/index.ts';

/** A read of long exports: a reader waits this long for a checkpoint, never for writers (WAL). */
const BUSY_WAIT_MS = 5000;

/** Runs `work` with an engine that reads one moment of `engine`'s database; it writes nothing. */
export async function withSnapshot<T>(engine: Engine, work: (snapshot: Engine) => Promise<T>): Promise<T> {
  if (engine.name === 'postgres') {
    return engine.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(async (trx) => work(await postgresSnapshot(engine, trx)));
  }
  // An in-memory database has no second connection: nothing else writes to it meanwhile.
  if (engine.location === ':memory:') return work(engine);
  const { snapshot, close } = await sqliteSnapshot(engine);
  try {
    return await work(snapshot);
  } finally {
    await close();
  }
}

async function versionsOf(read: (query: CompiledQuery) => Promise<Columns[]>): Promise<Versions> {
  const [row] = await read(CompiledQuery.raw('select version from data_version where id = 1'));
  const tables = await read(CompiledQuery.raw('select name, version from table_version'));
  return { data: Number(row?.version ?? 0), tables: new Map(tables.map(({ name, version }) => [String(name), Number(version)])) };
}

async function sqliteSnapshot(engine: Engine): Promise<{ snapshot: Engine; close(): Promise<void> }> {
  const handle = new SQLite(engine.location, { readonly: true, fileMustExist: true });
  handle.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
  // A long read iterates while lookups run beside it, all on this one connection, the only one
  // that holds the snapshot: better-sqlite3 allows that in unsafe mode (nothing writes through it).
  handle.unsafeMode(true);
  handle.exec('begin');
  const statements = new Map<string, SQLite.Statement>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = handle.prepare(text)));
    return statement;
  };
  const all = async (query: CompiledQuery) => prepared(query.sql).all(...query.parameters) as Columns[];
  // The first read begins the read transaction: the snapshot is of this moment.
  const versions = await versionsOf(all);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: handle }) });
  const snapshot: Engine = {
    ...engine,
    db,
    run: all,
    runLong: all,
    runAmong: undefined, // the snapshot's connection has no rsr_among: pages read from it take the other ways
    readIds: async (query) => idsOf(await all(query)),
    tally: async (query) => tallyOfRows(await all(query)),
    readIdsTallied: async (query) => idsTalliedOf(await all(query)),
    async *stream(query, batchSize) {
      let batch: Columns[] = [];
      for (const row of prepared(query.sql).iterate(...query.parameters) as IterableIterator<Columns>) {
        batch.push(row);
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    versionNow: () => versions,
    version: async () => versions,
  };
  return { snapshot, close: () => db.destroy() };
}

async function postgresSnapshot(engine: Engine, trx: Transaction<Database>): Promise<Engine> {
  const all = async (query: CompiledQuery) => (await trx.executeQuery<Columns>(query)).rows;
  const versions = await versionsOf(all);
  let cursors = 0;
  return {
    ...engine,
    db: trx,
    run: all,
    runLong: all,
    runAmong: undefined,
    readIds: async (query) => idsOf(await all(query)),
    tally: async (query) => tallyOfRows(await all(query)),
    readIdsTallied: async (query) => idsTalliedOf(await all(query)),
    // A cursor of the transaction (a pg-cursor would hold the connection the lookups need).
    async *stream(query, batchSize) {
      const name = `rsr_snapshot_${(cursors += 1)}`;
      await all(CompiledQuery.raw(`declare ${name} no scroll cursor for ${query.sql}`, [...query.parameters]));
      try {
        for (;;) {
          const rows = await all(CompiledQuery.raw(`fetch forward ${Math.max(1, Math.floor(batchSize))} from ${name}`));
          if (rows.length === 0) return;
          yield rows;
        }
      } finally {
        await all(CompiledQuery.raw(`close ${name}`)).catch(() => undefined); // a failed transaction closed it already
      }
    },
    versionNow: () => versions,
    version: async () => versions,
  };
}
