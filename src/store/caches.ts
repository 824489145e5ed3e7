/**
 * The registry of every cache that makes repeated answers cheap: what each holds, under what key,
 * how much it may hold, and what makes an entry stale, beside its figures. Each owner describes
 * its caches where it makes them (store/reader.ts and its rooms, http/response-cache.ts, the engines'
 * statements); /metrics shows every one (ops/metrics.ts: rsr_api_cache_*), so that an operator
 * and a newcomer read the same list.
 */

/** A cache's figures now: entries held, lookups that found a current entry or made one, weight. */
export interface CacheFigures {
  entries: number;
  hits: number;
  misses: number;
  /** What the entries weigh, in the unit `bound` names (bytes, ids, rows); 0 where unweighed. */
  weight: number;
}

export interface CacheDescription {
  name: string;
  /** What one entry is. */
  holds: string;
  /** What an entry is found by. */
  key: string;
  /** How much it may hold before the oldest entries go. */
  bound: string;
  /** What makes an entry no longer served. */
  stale: string;
  figures(): CacheFigures;
}

/** A Map-backed cache's figures where only its size is known. */
export const sizeOnly = (map: { size: number }) => (): CacheFigures => ({ entries: map.size, hits: 0, misses: 0, weight: 0 });
