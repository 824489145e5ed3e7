/**
 * The data versions as the embedded engine watches them (data-version.ts says what they are
 * for). Every process reads the data version itself, once per turn of the event loop: the
 * requests answered in one turn were all received during it, and a read per answer costs a third
 * of a cached answer. The tables' versions are read again only when it has moved. A change made
 * here forgets them at once; one made by another process is seen next turn.
 */
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import { TABLE_VERSIONS_SQL, VERSION_SQL, versionsOf, type Database, type Engine, type Versions } from './engine.ts';
import type { SqliteStatements } from './sqlite-rows.ts';

export function watchVersions(handle: SQLite.Database, statements: SqliteStatements, db: Kysely<Database>, committedReads: boolean): Pick<Engine, 'versionNow' | 'version' | 'changed' | 'beginChange'> {
  /** The versions last read outside a change: what is committed, or was when they were read. */
  let versions: Versions | undefined;
  let checkedThisTurn = false;
  const versionNow = (): Versions | undefined => {
    // While a change is under way here, this connection sees what it wrote before it is
    // committed. Reads then go to the reader threads (sqlite.ts, `run`), which see only what is
    // committed: data no older than the versions read before the change began, so what they
    // answer may be kept under those. Without reader threads, the change is waited for.
    if (handle.inTransaction) return committedReads ? versions : undefined;
    if (!checkedThisTurn) {
      const data = (statements.prepared(VERSION_SQL, 'value').get() as number | undefined) ?? 0;
      if (versions?.data !== data) versions = versionsOf(data, statements.prepared(TABLE_VERSIONS_SQL, 'arrays').all() as [string, number][]);
      checkedThisTurn = true;
      setImmediate(() => (checkedThisTurn = false));
    }
    return versions;
  };
  return {
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
    // Statements here are calls, not round trips: each its own. The wait is changeData's, between
    // attempts (busy_timeout is 0), and every process reads the version itself: nothing to announce.
    async beginChange(within, tables, _waitMs, logged) {
      const { version } = await within.updateTable('data_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).returning('version').executeTakeFirstOrThrow();
      if (tables.length) {
        await within.insertInto('table_version').values(tables.map((name) => ({ name, version })))
          .onConflict((conflict) => conflict.column('name').doUpdateSet({ version })).execute();
      }
      if (logged.length) await within.insertInto('change_log').values(logged.map((row) => ({ version, ...row }))).execute();
      return Number(version);
    },
  };
}
