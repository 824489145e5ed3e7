/**
 * One number that every change of data moves on, kept in the database so that every service
 * instance sees it: counts and answers are cached per instance and trusted only while the number
 * is the one they were made at (issue: count must not be a full scan per request, and stay
 * exact). A change made through this instance shows in its very next answer; one made by another
 * process as soon as this one hears of it (PostgreSQL's notification, SQLite's next loop turn).
 */
import type SQLite from 'better-sqlite3';
import type { Transaction } from 'kysely';
import { filterKey, type FilterTree } from '../query/filters.ts';
import type { Caller, Resource } from '../resources/define.ts';
import { runShaped } from './compiled.ts';
import { preparedStatement, type Connection, type Database } from './connect.ts';

export interface ChangeOptions {
  /**
   * How long to wait for another writer (an import holds the data for its whole run) before
   * giving up with "database unavailable" (503): API writes wait a little, imports as long as it takes.
   */
  lockWaitMs?: number;
}

const API_LOCK_WAIT_MS = 2000;

/**
 * Every change of data runs through here: in one transaction with the move of the version (and,
 * on PostgreSQL, a notification that other instances hear at commit). Afterwards this instance
 * reads the version again, so that its next answer already shows the change.
 *
 * The version is written first, so it is where writers wait for each other. SQLite never waits
 * inside a call (that would hold the event loop, and every reader with it): a busy database is
 * tried again after a pause, until the wait is over.
 */
export async function changeData<T>(connection: Connection, change: (trx: Transaction<Database>) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
  const wait = options.lockWaitMs ?? API_LOCK_WAIT_MS;
  const deadline = Date.now() + wait;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    let holdsLock = false;
    try {
      return await connection.db.transaction().execute(async (trx) => {
        await connection.dialect.limitLockWait(trx, wait);
        await trx.updateTable('data_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).execute();
        holdsLock = true;
        await connection.dialect.announceChange(trx);
        const result = await change(trx);
        // Until COMMIT, SQLite readers wait (inTransaction); from COMMIT on, none finds the old memo.
        forgetVersion(connection);
        return result;
      });
    } catch (error) {
      if (holdsLock || !connection.dialect.isBusy(error) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    } finally {
      forgetVersion(connection);
    }
  }
}

function forgetVersion(connection: Connection): void {
  connection.watch?.changed();
  if (connection.sqlite) versionThisTurn.delete(connection.sqlite);
}

const VERSION_SQL = 'select version from data_version where id = 1';

/**
 * SQLite: the version read once per turn of the event loop. The requests answered in one turn
 * were all received during it, and a read transaction per answer costs a third of a cached
 * answer; a change made here forgets it at once, one made by another process is seen next turn.
 */
const versionThisTurn = new WeakMap<SQLite.Database, number>();

/**
 * The data version when it can be had without waiting (every cached answer checks it): on
 * SQLite from a prepared statement, on PostgreSQL held by the version watch.
 */
export function dataVersionNow(connection: Connection): number | undefined {
  const { sqlite } = connection;
  if (!sqlite) return connection.watch?.now();
  if (sqlite.inTransaction) return undefined; // read after it, through Kysely
  let version = versionThisTurn.get(sqlite);
  if (version === undefined) {
    version = (preparedStatement(sqlite, VERSION_SQL, 'value').get() as number | undefined) ?? 0;
    versionThisTurn.set(sqlite, version);
    setImmediate(() => versionThisTurn.delete(sqlite));
  }
  return version;
}

export async function dataVersion(connection: Connection): Promise<number> {
  const now = dataVersionNow(connection);
  if (now !== undefined) return now;
  const mark = connection.watch?.mark();
  const [row] = await runShaped(connection, 'data_version', () => connection.db.selectFrom('data_version').select('version').where('id', '=', 1), 0, []);
  const version = Number(row?.version ?? 0);
  if (mark !== undefined) connection.watch?.remember(mark, version);
  return version;
}

/** What decides which records a caller sees: administrators, anonymous callers, or their roles. */
export function visibilityKey(caller: Caller): string {
  if (caller.isAdmin) return 'admin';
  return [...caller.organisations].sort(([a], [b]) => a - b).map(([id, groups]) => `${id}:${[...groups].sort().join('+')}`).join(',');
}

const MAX_ENTRIES = 5000;

/**
 * Values computed from the data (counts, page boundaries) for a list as a caller sees it,
 * trusted while the data version is the one they were computed at. Requests that miss together
 * share one computation instead of each scanning the table.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { version: number; value: Promise<T> }>();

  async get(connection: Connection, resource: Resource, caller: Caller, filters: FilterTree | undefined, compute: () => Promise<T>, variant = ''): Promise<T> {
    const version = await dataVersion(connection);
    const key = `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}|${variant}`;
    const cached = this.entries.get(key);
    if (cached && cached.version === version) return cached.value;
    if (cached && cached.version > version) return compute(); // a slower request of an older version
    const computing = compute();
    // Re-inserted, so that the oldest entry in the map is the one longest not recomputed.
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { version, value: computing });
    computing.catch(() => {
      if (this.entries.get(key)?.value === computing) this.entries.delete(key);
    });
    return computing;
  }
}
