/**
 * One number that every change of data moves on, kept in the database so that every service
 * instance sees it: counts are cached per instance and trusted only while the number is the one
 * they were counted at (issue: count must not be a full scan per request, and stay exact).
 */
import type { Kysely } from 'kysely';
import { filterKey, type FilterTree } from '../query/filters.js';
import type { Caller, Resource } from '../resources/define.js';
import { runShaped } from './compiled.js';
import { preparedStatement, type Connection, type Database } from './connect.js';

/** Called inside every writing transaction: the change and the new version commit together. */
export async function bumpDataVersion(db: Kysely<Database>): Promise<void> {
  await db.updateTable('data_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).execute();
}

const VERSION_SQL = 'select version from data_version where id = 1';

/**
 * The data version when it can be had without waiting: on SQLite, read straight from a prepared
 * statement (every cached answer checks it, so it skips Kysely's round of promises).
 */
export function dataVersionNow(connection: Connection): number | undefined {
  const { sqlite } = connection;
  if (!sqlite) return undefined;
  return (preparedStatement(sqlite, VERSION_SQL, 'value').get() as number | undefined) ?? 0;
}

export async function dataVersion(connection: Connection): Promise<number> {
  const now = dataVersionNow(connection);
  if (now !== undefined) return now;
  const [row] = await runShaped(connection, 'data_version', () => connection.db.selectFrom('data_version').select('version').where('id', '=', 1), 0, []);
  return Number(row?.version ?? 0);
}

/** What decides which records a caller sees: administrators, anonymous callers, or their roles. */
export function visibilityKey(caller: Caller): string {
  if (caller.isAdmin) return 'admin';
  return [...caller.organisations].sort(([a], [b]) => a - b).map(([id, groups]) => `${id}:${[...groups].sort().join('+')}`).join(',');
}

const MAX_ENTRIES = 5000;

export class CountCache {
  private readonly entries = new Map<string, { version: number; count: Promise<number> }>();

  /**
   * The cached count when it is still exact, else `count()`, remembered at the current version.
   * Requests that miss together share one count instead of each scanning the table.
   */
  async get(connection: Connection, resource: Resource, caller: Caller, filters: FilterTree | undefined, count: () => Promise<number>): Promise<number> {
    const version = await dataVersion(connection);
    const key = `${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}`;
    const cached = this.entries.get(key);
    if (cached && cached.version === version) return cached.count;
    const counting = count();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { version, count: counting });
    counting.catch(() => {
      if (this.entries.get(key)?.count === counting) this.entries.delete(key);
    });
    return counting;
  }
}
