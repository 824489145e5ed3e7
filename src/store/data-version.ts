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
import type { Database, Engine, Versions } from './engine/index.ts';

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
export async function changeData<T>(engine: Engine, tables: readonly string[], change: (trx: Transaction<Database>) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
  const wait = options.lockWaitMs ?? API_LOCK_WAIT_MS;
  const deadline = Date.now() + wait;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    let holdsLock = false;
    try {
      return await engine.db.transaction().execute(async (trx) => {
        await engine.limitLockWait(trx, wait);
        const { version } = await trx.updateTable('data_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).returning('version').executeTakeFirstOrThrow();
        holdsLock = true;
        if (tables.length) {
          await trx.insertInto('table_version').values([...new Set(tables)].map((name) => ({ name, version })))
            .onConflict((conflict) => conflict.column('name').doUpdateSet({ version })).execute();
        }
        await engine.announceChange(trx);
        const result = await change(trx);
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

const MAX_ENTRIES = 5000;

/** How many values a cache keeps, and optionally how much of them: each value weighs `weigh(value)`. */
export interface CacheLimits<T> {
  maxEntries?: number;
  maxWeight?: number;
  weigh?: (value: T) => number;
}

interface CacheEntry<T> {
  version: number;
  value: Promise<T>;
  /** What the value weighs once computed (0 before). */
  weight: number;
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
  private weight = 0;
  /** Values found current, and values computed (for the metrics). */
  hits = 0;
  misses = 0;

  constructor(limits: CacheLimits<T> = {}) {
    this.maxEntries = limits.maxEntries ?? MAX_ENTRIES;
    this.maxWeight = limits.maxWeight ?? Infinity;
    this.weigh = limits.weigh ?? (() => 0);
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

  /** The most entries it keeps, and the most weight where it weighs them (caches.ts, `bound`). */
  get limits(): { entries: number; weight: number } {
    return { entries: this.maxEntries, weight: this.maxWeight };
  }

  /** The value kept for `key` at `version`, if there is one (computed or being computed). */
  peek(version: number, key: string): Promise<T> | undefined {
    const cached = this.entries.get(key);
    if (cached?.version !== version) return undefined;
    this.hits += 1;
    return cached.value;
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
    const entry: CacheEntry<T> = { version, value: computing, weight: 0 };
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

  private drop(key: string, entry: CacheEntry<T>): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  private dropOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, CacheEntry<T>];
    this.drop(key, entry);
  }
}
