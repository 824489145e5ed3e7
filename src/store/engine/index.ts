/** Opens the engine a DATABASE_URL names: `sqlite:PATH` (the default) or `postgres://…`. */
import type { Engine, EngineOptions } from './engine.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';

export type { BulkLoad, ChangeRow, Columns, Database, Dialect, Engine, EngineOptions, IdsTallied, LookedUp, OrderByTerm, StorageFault, Tally, Versions } from './engine.ts';
export { DEFAULT_STATEMENT_TIMEOUT_MS, idsOf, idsTalliedOf, tallyOf, tallyOfGroups, tallyOfRows } from './engine.ts';

export function openEngine(url: string, options: EngineOptions = {}): Engine {
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  return openSqlite(url.replace(/^sqlite:(\/\/)?/, ''), options);
}
