/**
 * Backups: one file, always an SQLite database of this service, whatever DATABASE_URL names.
 * It can be served as it is (DATABASE_URL=sqlite:FILE) and is restored with one command
 * (`restore`), into SQLite or PostgreSQL alike. It holds everything, API keys' hashes included:
 * a restored service answers the same keys.
 *
 * SQLite: SQLite's online backup API, copying the file's pages inside one read transaction, so
 * that every page comes from one moment while the service goes on writing (between steps of
 * their own, writes by other connections would start the copy over again, forever under load).
 * PostgreSQL: every table read in one REPEATABLE READ, READ ONLY transaction (snapshot.ts) and
 * written into a new SQLite database (copy-tables.ts).
 *
 * The file is written under a temporary name and renamed when complete: a backup that failed or
 * was stopped never leaves a file that looks like one.
 */
import { existsSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';
import { TABLES } from '../resources/index.ts';
import { copyTables, type Copied } from './copy-tables.ts';
import { openEngine, type Engine } from './engine/index.ts';
import { migrate, pendingMigrations } from './migrations.ts';
import type { Progress } from './progress.ts';
import { withSnapshot } from './snapshot.ts';

export class BackupError extends Error {}

/** Pages copied per step of SQLite's backup (4 MiB at 4 KiB pages): progress between steps. */
const PAGES_PER_STEP = 1024;

const removeDatabaseFiles = (path: string) => {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
};

/** Writes a consistent copy of the database to `file`, a new file; the records it holds per table. */
export async function backupDatabase(engine: Engine, file: string, progress?: Progress): Promise<Map<string, number>> {
  if (existsSync(file)) throw new BackupError(`${file} exists already: a backup never overwrites a file (name a new one, or remove it first)`);
  if (!existsSync(dirname(file))) throw new BackupError(`${dirname(file)}: no such directory`);
  const partial = `${file}.partial`;
  removeDatabaseFiles(partial); // left by a backup that was stopped
  try {
    const counts = engine.name === 'sqlite' ? await copySqlite(engine, partial, progress) : await copyIntoSqlite(engine, partial, progress);
    renameSync(partial, file);
    return counts;
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  }
}

/** The live SQLite file, page by page, in one read transaction; the records it holds per table. */
async function copySqlite(engine: Engine, to: string, progress?: Progress): Promise<Map<string, number>> {
  if (engine.location === ':memory:') throw new BackupError('an in-memory database has no file to back up');
  const source = new SQLite(engine.location, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // The read transaction every step of the backup runs in; its first read (the counts) begins it.
    source.exec('begin');
    const counts = new Map(TABLES.map((entity) => [entity.table, Number(source.prepare(`select count(*) from "${entity.table}"`).pluck().get())]));
    const pageSize = Number(source.pragma('page_size', { simple: true }));
    await source.backup(to, {
      progress({ totalPages, remainingPages }) {
        progress?.((totalPages - remainingPages) * pageSize, totalPages * pageSize, 'copying pages');
        return PAGES_PER_STEP;
      },
    });
    return counts;
  } finally {
    source.close();
  }
}

/** PostgreSQL's tables, read in one snapshot, into a new SQLite database of this service. */
async function copyIntoSqlite(engine: Engine, to: string, progress?: Progress): Promise<Map<string, number>> {
  const target = openEngine(`sqlite:${to}`, { readerThreads: 0, statementTimeoutMs: 0 });
  try {
    await migrate(target);
    return (await withSnapshot(engine, (snapshot) => copyTables(snapshot, target, { replace: false, progress }))).counts;
  } finally {
    await target.close();
  }
}

export interface RestoreOptions {
  /** Replace what the database holds (users and API keys too); without it, a database holding data is refused. */
  replace: boolean;
  progress?: Progress;
}

/** Loads the backup `file` into the database of `target`, all or nothing: the records restored per table, and whether it replaced data. */
export async function restoreDatabase(target: Engine, file: string, options: RestoreOptions): Promise<Copied> {
  if (!existsSync(file)) throw new BackupError(`${file}: no such file`);
  if (target.name === 'sqlite' && existsSync(target.location) && realpathSync(target.location) === realpathSync(file)) {
    throw new BackupError(`${file} is the database of DATABASE_URL itself`);
  }
  return withBackup(file, await migrationsOf(target), (source) => withSnapshot(source, (snapshot) => copyTables(snapshot, target, options)));
}

/**
 * The backup opened as a database of this service. One made before later migrations is read from
 * an upgraded copy: the backup itself is never changed.
 */
async function withBackup<T>(file: string, known: Set<number>, work: (source: Engine) => Promise<T>): Promise<T> {
  let source = openBackup(file);
  let scratch: string | null = null;
  try {
    if (await lacksMigrations(source, file, known)) {
      await source.close();
      scratch = mkdtempSync(join(tmpdir(), 'rsr-restore-'));
      const copy = join(scratch, 'backup.sqlite');
      await copyFile(file, copy);
      source = openBackup(copy);
      await migrate(source);
    }
    return await work(source);
  } finally {
    await source.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

function openBackup(file: string): Engine {
  try {
    return openEngine(`sqlite:${file}`, { readerThreads: 0, statementTimeoutMs: 0 });
  } catch (error) {
    throw new BackupError(`${file} is not a backup of rsr-api (${(error as Error).message})`);
  }
}

const migrationsOf = async (engine: Engine): Promise<Set<number>> =>
  new Set((await engine.db.selectFrom('schema_migration').select('version').execute()).map((row) => Number(row.version)));

/** Whether the backup's schema lacks migrations this version has; refused if it is not ours, or newer. */
async function lacksMigrations(source: Engine, file: string, known: Set<number>): Promise<boolean> {
  const tables = await source.db.introspection.getTables();
  if (!tables.some((table) => table.name === 'schema_migration')) throw new BackupError(`${file} is not a backup of rsr-api (it has no schema_migration table)`);
  const unknown = [...(await migrationsOf(source))].filter((version) => !known.has(version));
  if (unknown.length) throw new BackupError(`${file} was made by a newer rsr-api (migration ${unknown.join(', ')} unknown here): restore it with that version`);
  return (await pendingMigrations(source)).length > 0;
}

/** A copy of an SQLite database through SQLite itself, which reads a write-ahead log left beside it too. */
async function copyFile(from: string, to: string): Promise<void> {
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(to);
  } finally {
    source.close();
  }
}
