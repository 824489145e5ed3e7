/**
 * What the planner's statistics (`sqlite_stat1`, gathered by every import: sqlite-load.ts) say of
 * a column's index that the reader can use too: how many distinct values it holds beside its rows.
 * A text with few distinct keys (a custom field's name, a budget item's status: tens among a
 * million records) has a part lookup no index serves decided on its keys first (filter-sql.ts).
 * The statistics are read again at most once a minute: an import in another process gathers new
 * ones, and a guess from older ones costs time, never a wrong answer.
 */
import type SQLite from 'better-sqlite3';
import type { CacheDescription } from '../caches.ts';

/** How long statistics read are trusted before they are read again. */
const READ_AGAIN_MS = 60_000;
/** Few: at most this many distinct keys, and at most 1/SHARE of the index's rows. */
const FEW_KEYS = 1000;
const SHARE = 16;

export function keyStatistics(handle: SQLite.Database): { fewKeys: (table: string, column: string) => boolean; describe: () => CacheDescription } {
  let few = new Set<string>();
  let readAt = -Infinity;
  const figures = { hits: 0, misses: 0 };
  const read = () => {
    few = new Set();
    const analyzed = handle.prepare("select 1 from sqlite_schema where type = 'table' and name = 'sqlite_stat1'").get();
    if (!analyzed) return;
    for (const { idx, stat } of handle.prepare('select idx, stat from sqlite_stat1 where idx is not null').all() as { idx: string; stat: string }[]) {
      // "rows rows-per-distinct-first-column …"
      const [rows, perKey] = stat.split(' ').map(Number);
      const keys = rows / Math.max(perKey, 1);
      if (rows > 0 && keys <= FEW_KEYS && keys * SHARE <= rows) few.add(idx);
    }
  };
  return {
    fewKeys(table, column) {
      if (performance.now() - readAt > READ_AGAIN_MS) {
        readAt = performance.now();
        figures.misses += 1;
        read();
      } else figures.hits += 1;
      // The index every ordered field has, named as indexes.ts names it: the key first, then the id.
      return few.has(`${table}_${column}_idx`);
    },
    describe: () => ({
      name: 'key_statistics', holds: 'the indexes whose key holds few distinct values beside its rows', key: 'index', bound: 'the indexes of the database',
      stale: `read again ${READ_AGAIN_MS / 1000} s after it was read (a guess from older statistics costs time, never a wrong answer)`,
      figures: () => ({ entries: few.size, ...figures, weight: 0 }),
    }),
  };
}
