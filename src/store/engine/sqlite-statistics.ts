/**
 * SQLite's statistics of the key columns (key-statistics.ts): `sqlite_stat1`, gathered by every
 * import (sqlite-load.ts), per index; the index every ordered field has is named as indexes.ts
 * names it, the key first, then the id.
 */
import type SQLite from 'better-sqlite3';
import { isFew, type FewKeys } from './key-statistics.ts';

export function sqliteFewKeys(handle: SQLite.Database): FewKeys {
  const few = new Set<string>();
  const analyzed = handle.prepare("select 1 from sqlite_schema where type = 'table' and name = 'sqlite_stat1'").get();
  if (!analyzed) return few;
  for (const { tbl, idx, stat } of handle.prepare('select tbl, idx, stat from sqlite_stat1 where idx is not null').all() as { tbl: string; idx: string; stat: string }[]) {
    // "rows rows-per-distinct-first-column …"
    const [rows, perKey] = stat.split(' ').map(Number);
    const column = idx.startsWith(`${tbl}_`) && idx.endsWith('_idx') ? idx.slice(tbl.length + 1, -'_idx'.length) : null;
    if (column && isFew(rows, rows / Math.max(perKey, 1))) few.add(`${tbl}.${column}`);
  }
  return few;
}
