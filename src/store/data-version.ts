/**
 * The data versions: one number that every change of data moves on, and per table the value it
 * moved to when that table last changed. Both are kept in the database, so that every service
 * instance (and every worker) sees them: counts and answers are cached per process and trusted
 * only while the tables they were read from are unchanged (`stamp`), which keeps them exact
 * after any write, made anywhere, while a new link leaves the budget items' counts cached. A
 * change made through this process shows in its very next answer; one made by another as soon
 * as this one hears of it (the engine's notification, or its next read).
 */
import type { CacheFigures } from './caches.ts';
import type { Transaction } from 'kysely';
import type { ChangeRow, Database, Engine, Versions } from './engine/index.ts';

/**
 * What a change tells the caches besides the tables it wrote: for a table whose records belong to
 * projects, which projects' records it wrote (the old and the new one of a record moved). Counts
 * kept per project (counts.ts) then count again those projects only; a table written without
 * naming them is counted again whole.
 */
export interface ChangeLog {
  projects(table: string, projects: Iterable<number | null>): void;
}

/** The change log keeps the last LOG_VERSIONS versions; a reader further behind counts again whole. */
export const LOG_VERSIONS = 100_000;

export interface ChangeOptions {
  /**
   * How long to wait for another writer (an import holds the data for its whole run) before
   * giving up with "database unavailable" (503): API writes wait a little, imports as long as it takes.
   */
  lockWaitMs?: number;
}

const API_LOCK_WAIT_MS = 2000;

/**
 * What an answer read from `tables` was made at: the latest version among theirs. Every change
 * gives the tables it wrote a version above every earlier one, so this number moves exactly when
 * one of these tables changed, and not when any other did.
 */
export function stamp(versions: Versions, tables: readonly string[]): number {
  let latest = 0;
  for (const table of tables) latest = Math.max(latest, versions.tables.get(table) ?? 0);
  return latest;
}

/**
 * Every change of data runs through here, naming the tables it may write: in one transaction
 * with the move of the versions (and the engine's announcement that other instances hear at
 * commit). Afterwards this instance reads the versions again, so that its next answer already
 * shows the change.
 *
 * The data version is written first, so it is where writers wait for each other. A busy database
 * (one that does not wait for its locks itself) is tried again after a pause, until the wait is over.
 */
export function changeData<T>(engine: Engine, tables: readonly string[], change: (trx: Transaction<Database>, log: ChangeLog) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
  return checkThenChange(engine, tables, async () => undefined, (trx, _checked, log) => change(trx, log), options);
}

/**
 * As changeData, for a change whose checks (`check`: what it reads to decide whether it may be
 * made, refusals thrown, and the projects it will write logged) can be read before the version
 * row is taken, where the engine allows (`Engine.checksBeforeChange`): other writers then wait for
 * the change itself, not for its checks too, and the change log's rows are written with the
 * version, in its statement. `change` must check again what another writer could make untrue
 * meanwhile and a constraint of the database would not refuse (a value kept unique).
 */
export async function checkThenChange<C, T>(
  engine: Engine,
  tables: readonly string[],
  check: (trx: Transaction<Database>, log: ChangeLog) => Promise<C>,
  change: (trx: Transaction<Database>, checked: C, log: ChangeLog) => Promise<T>,
  options: ChangeOptions = {},
): Promise<T> {
  const wait = options.lockWaitMs ?? API_LOCK_WAIT_MS;
  const deadline = Date.now() + wait;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    let holdsLock = false;
    try {
      return await engine.db.transaction().execute(async (trx) => {
        const touched = new Map<string, Set<number>>();
        const log: ChangeLog = {
          projects(table, projects) {
            let set = touched.get(table);
            if (!set) touched.set(table, (set = new Set()));
            for (const project of projects) if (project !== null) set.add(project);
          },
        };
        const early = engine.checksBeforeChange ? await check(trx, log) : undefined;
        // The projects the checks named are logged with the version; the rest once the change is made.
        const logged = engine.checksBeforeChange ? changeRows(tables.filter((table) => touched.has(table)), touched) : [];
        const version = await engine.beginChange(trx, [...new Set(tables)], wait, logged);
        holdsLock = true;
        const checked = engine.checksBeforeChange ? (early as C) : await check(trx, log);
        const result = await change(trx, checked, log);
        await logChange(trx, version, changeRows(tables, touched), logged);
        // No answer made from here on may trust the versions read before the change.
        engine.changed();
        return result;
      });
    } catch (error) {
      if (holdsLock || !engine.isBusy(error) || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    } finally {
      engine.changed();
    }
  }
}

/**
 * Each table a change wrote, as the change log holds it: a row per project it named, or one row
 * without a project (the whole table). Every move of a table's version is logged, so a reader
 * that saw the table at an older version learns from the log what changed since.
 */
function changeRows(tables: readonly string[], touched: ReadonlyMap<string, ReadonlySet<number>>): ChangeRow[] {
  return [...new Set(tables)].flatMap((tbl): ChangeRow[] => {
    const projects = touched.get(tbl);
    return projects ? [...projects].map((project) => ({ tbl, project })) : [{ tbl, project: null }];
  });
}

/** The change's rows of the change log at its version, but those `beginChange` wrote already. */
async function logChange(trx: Transaction<Database>, version: number, rows: readonly ChangeRow[], logged: readonly ChangeRow[]): Promise<void> {
  const written = new Set(logged.map(({ tbl, project }) => `${tbl} ${project}`));
  const left = rows.filter(({ tbl, project }) => !written.has(`${tbl} ${project}`)).map((row) => ({ version, ...row }));
  if (left.length) await trx.insertInto('change_log').values(left).execute();
  if (version % 1000 === 0) await trx.deleteFrom('change_log').where('version', '<', version - LOG_VERSIONS).execute();
}

const MAX_ENTRIES = 5000;

/**
 * An entry unused this long goes, whatever room is left. Under a steady load a cache keyed by
 * filter values then holds what that load asked for lately, not everything it ever asked for until
 * the bound: its memory stops growing once this long has passed, and an idle server gives back
 * what it computed for callers who left.
 */
export const IDLE_MS = 5 * 60_000;

/** How many values a cache keeps, and optionally how much of them: each value weighs `weigh(value)`. */
export interface CacheLimits<T> {
  maxEntries?: number;
  maxWeight?: number;
  weigh?: (value: T) => number;
  /** How long an entry may go unused before it goes (IDLE_MS). */
  idleMs?: number;
  /** The clock (milliseconds), for tests. */
  now?: () => number;
}

interface CacheEntry<T> {
  version: number;
  value: Promise<T>;
  /** What the value weighs once computed (0 before). */
  weight: number;
  /** When it was last found or made (the cache's clock). */
  used: number;
}

/**
 * Values computed from the data (counts, page boundaries, orders), each under a key the caller
 * makes, trusted while the stamp of the tables they were read from is the one they were computed
 * at. Requests that miss together share one computation instead of each scanning the table.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, CacheEntry<T>>();
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private readonly weigh: (value: T) => number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private weight = 0;
  /** When entries unused for idleMs were last looked for. */
  private swept: number;
  /** Values found current, and values computed (for the metrics). */
  hits = 0;
  misses = 0;

  constructor(limits: CacheLimits<T> = {}) {
    this.maxEntries = limits.maxEntries ?? MAX_ENTRIES;
    this.maxWeight = limits.maxWeight ?? Infinity;
    this.weigh = limits.weigh ?? (() => 0);
    this.idleMs = limits.idleMs ?? IDLE_MS;
    this.now = limits.now ?? Date.now;
    this.swept = this.now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the values kept weigh in all (CacheLimits.weigh). */
  get weighs(): number {
    return this.weight;
  }

  /** Its figures, for the registry of caches (caches.ts). */
  figures(): CacheFigures {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses, weight: this.weight };
  }

  /** The most entries it keeps, the most weight where it weighs them, and how long one may go unused (caches.ts, `bound`). */
  get limits(): { entries: number; weight: number; idleMs: number } {
    return { entries: this.maxEntries, weight: this.maxWeight, idleMs: this.idleMs };
  }

  /** The value kept for `key` at `version`, if there is one (computed or being computed). */
  peek(version: number, key: string): Promise<T> | undefined {
    const now = this.now();
    this.dropIdle(now);
    const cached = this.entries.get(key);
    if (cached?.version !== version) return undefined;
    this.hits += 1;
    cached.used = now;
    return cached.value;
  }

  /** The value kept for `key` at whatever version, if there is one: what a newer one may be made from. */
  latest(key: string): { version: number; value: Promise<T> } | undefined {
    const cached = this.entries.get(key);
    return cached && { version: cached.version, value: cached.value };
  }

  async get(version: number, key: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.peek(version, key);
    if (kept) return kept;
    this.misses += 1;
    const cached = this.entries.get(key);
    if (cached && cached.version > version) return compute(); // a slower request of an older version
    const computing = compute();
    // Re-inserted, so that the oldest entry in the map is the one longest not recomputed.
    if (cached) this.drop(key, cached);
    if (this.entries.size >= this.maxEntries) this.dropOldest();
    const entry: CacheEntry<T> = { version, value: computing, weight: 0, used: this.now() };
    this.entries.set(key, entry);
    computing.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        entry.weight = this.weigh(value);
        this.weight += entry.weight;
        while (this.weight > this.maxWeight && this.entries.size > 0) this.dropOldest();
      },
      () => {
        if (this.entries.get(key) === entry) this.drop(key, entry);
      },
    );
    return computing;
  }

  /** Keeps `value` for `key` at `version`, learnt by a read made for something else (a lookup that made an entry). */
  put(version: number, key: string, value: T): void {
    const cached = this.entries.get(key);
    if (cached) this.drop(key, cached);
    void this.get(version, key, async () => value);
  }

  /** Forgets `key`'s value, whatever its version (one taken and no longer needed here). */
  delete(key: string): void {
    const cached = this.entries.get(key);
    if (cached) this.drop(key, cached);
  }

  private drop(key: string, entry: CacheEntry<T>): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  /**
   * Drops the entries unused for idleMs, looking a tenth of that apart: a walk of the whole map
   * (a few thousand entries at most) every 30 s of use, so an entry goes within 1.1 × idleMs.
   */
  private dropIdle(now: number): void {
    if (now - this.swept < this.idleMs / 10) return;
    this.swept = now;
    for (const [key, entry] of this.entries) if (now - entry.used > this.idleMs) this.drop(key, entry);
  }

  private dropOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, CacheEntry<T>];
    this.drop(key, entry);
  }
}
