/**
 * What the planner's statistics say of a text's D7 key column that the reader can use too: that
 * it holds few distinct keys beside its rows (a custom field's name, a budget item's status: tens
 * among a million records). A part lookup no index serves is then decided on those keys first
 * (filter-sql.ts). Each engine reads its own statistics (sqlite-statistics.ts, postgres-statistics.ts);
 * what is few, and how long a reading is trusted, is decided here once for both. The statistics
 * are read again at most once a minute (an import in another process gathers new ones) and after
 * every `analyze` of this engine: a guess from older ones costs time, never a wrong answer.
 */
import type { CacheDescription } from '../caches.ts';
import type { Engine } from './engine.ts';

/** How long statistics read are trusted before they are read again. */
const READ_AGAIN_MS = 60_000;
/** Few: at most this many distinct keys, and at most 1/SHARE of the column's rows. */
const FEW_KEYS = 1000;
const SHARE = 16;

export const isFew = (rows: number, keys: number): boolean => rows > 0 && keys <= FEW_KEYS && keys * SHARE <= rows;

/** The key columns with few keys, each as `table.column`. */
export type FewKeys = ReadonlySet<string>;

export interface KeyStatistics {
  fewKeys(table: string, column: string): boolean;
  /** Reads the statistics again now (after an analyze), settled once they are read. */
  readAgain(): Promise<void>;
  describe(): CacheDescription;
}

/**
 * `read`: the engine's reading of its statistics, at once (SQLite's own connection) or in time
 * (PostgreSQL's pool: until it has answered, the reading before it holds; none at first).
 */
export function keyStatistics(read: () => FewKeys | Promise<FewKeys>): KeyStatistics {
  let few: FewKeys = new Set();
  let readAt = -Infinity;
  let reading: Promise<void> | null = null;
  const figures = { hits: 0, misses: 0 };
  const readAgain = (): Promise<void> => {
    readAt = performance.now();
    figures.misses += 1;
    const result = read();
    if (!(result instanceof Promise)) {
      few = result;
      return Promise.resolve();
    }
    // A reading that fails (the catalogue unreadable, the server gone) leaves the last one.
    const pending = result.then((read) => { few = read; }, () => undefined).finally(() => { if (reading === pending) reading = null; });
    reading = pending;
    return pending;
  };
  return {
    fewKeys(table, column) {
      if (performance.now() - readAt > READ_AGAIN_MS && !reading) void readAgain();
      else figures.hits += 1;
      return few.has(`${table}.${column}`);
    },
    readAgain,
    describe: () => ({
      name: 'key_statistics', holds: 'the D7 key columns holding few distinct keys beside their rows', key: 'table, column', bound: 'the key columns of the database',
      stale: `read again ${READ_AGAIN_MS / 1000} s after it was read, and after every analyze (a guess from older statistics costs time, never a wrong answer)`,
      figures: () => ({ entries: few.size, ...figures, weight: 0 }),
    }),
  };
}

/** An engine's `analyze`, then the statistics it gathered read at once (not up to a minute later). */
export const analyzeThenRead = (analyze: Engine['analyze'], statistics: KeyStatistics): Engine['analyze'] => async (except, within) => {
  await analyze(except, within);
  await statistics.readAgain();
};
