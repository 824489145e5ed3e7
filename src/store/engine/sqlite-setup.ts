/**
 * What every connection of the embedded engine is set to, the service's own and its reader
 * threads' alike (sqlite-readers.ts), and the messages between them.
 */
import type SQLite from 'better-sqlite3';
import type { CacheFigures } from '../caches.ts';
import type { IdSet } from '../idset.ts';
import type { IdsTallied, Tally } from './engine.ts';

/** Thrown inside a statement that ran past its time (rsr_within_time). */
export class StatementTimeout extends Error {
  constructor(ms: number) {
    super(`statement timeout: ran longer than ${ms} ms`);
  }
}

/** How long a read-only connection waits for a WAL index being rebuilt. */
const READER_WAIT_MS = 2000;

/**
 * Pragmas and functions of a connection. `deadline` is when the running statement must end
 * (performance.now()): better-sqlite3 cannot interrupt a statement, so a scan asks, row by row,
 * whether time is left (Dialect.withinTime). `among` is the set of ids `rsr_among` checks against
 * (none: no id is among it).
 */
export function configure(handle: SQLite.Database, options: { readonly: boolean; timeoutMs: number; deadline: () => number; among: () => IdSet | null }): void {
  if (!options.readonly) {
    handle.pragma('journal_mode = WAL');
    handle.pragma('synchronous = NORMAL');
  }
  // Writers wait between attempts themselves (sqlite.ts changeData), never inside SQLite, whose wait
  // would hold the event loop. A reader in WAL mode waits only while another connection rebuilds
  // the WAL's index, which the first connection to open the file does (milliseconds); without a
  // wait, reader threads opened together met SQLITE_BUSY_RECOVERY (seen on Node 24).
  handle.pragma(`busy_timeout = ${options.readonly ? READER_WAIT_MS : 0}`);
  // Pages kept per connection, 8 MiB: the OS file cache holds the rest, once for every connection
  // and process. 32 MiB for the service's own connection made no difference to the mixed
  // scenario at scale 100 (761 against 747 req/s) and was a tenth of a worker's memory.
  handle.pragma('cache_size = -8192');
  // LIKE as PostgreSQL has it (filters' `contains`); case-insensitive lookups use the D7 keys.
  handle.pragma('case_sensitive_like = ON');
  handle.function('rsr_within_time', { deterministic: false, directOnly: true, varargs: true }, () => {
    if (performance.now() > options.deadline()) throw new StatementTimeout(options.timeoutMs);
    return 1;
  });
  // Whether an id is among the matches kept for the statement running (pages/in-sql.ts, `among`).
  handle.function('rsr_among', { deterministic: false, directOnly: true }, (id) => (options.among()?.has(Number(id)) ? 1 : 0));
}

/** How a statement hands its rows over: objects (Kysely), arrays (our reads), or the first value. */
export type RowMode = 'objects' | 'arrays' | 'value';

/**
 * Statements kept per connection. A compiled statement holds 30–100 KiB of SQLite's memory outside
 * the JavaScript heap, freed only when its object is collected, and every connection keeps its
 * own. The texts that recur are far fewer than those a day of varied filters brings: most
 * recently used first, these many are kept (a reader thread collects the ones it drops,
 * sqlite-thread.ts).
 */
const STATEMENTS_KEPT = 200;

/**
 * Statements prepared once per SQL text and row mode, the `size` most recently used kept: the
 * same few texts recur on every request, and a connection runs one statement at a time.
 */
export function statementCache(handle: SQLite.Database, size = STATEMENTS_KEPT): ((text: string, mode: RowMode) => SQLite.Statement) & {
  statements: ReadonlyMap<string, unknown>;
  size: number;
  figures(): CacheFigures;
  /** Statements dropped so far: each holds its compiled form until its object is collected. */
  dropped(): number;
} {
  const statements = new Map<string, SQLite.Statement>();
  let hits = 0;
  let misses = 0;
  const prepared = (text: string, mode: RowMode) => {
    const key = `${mode}|${text}`;
    let statement = statements.get(key);
    if (statement) {
      hits += 1;
      // Moved to the end: the first in the map is the one least recently used.
      statements.delete(key);
    } else {
      misses += 1;
      if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      statement = handle.prepare(text);
      if (mode === 'arrays') statement.raw(true);
      if (mode === 'value') statement.pluck(true);
    }
    statements.set(key, statement);
    return statement;
  };
  return Object.assign(prepared, { statements, size, figures: () => ({ entries: statements.size, hits, misses, weight: 0 }), dropped: () => misses - statements.size });
}

/** A statement for a reader thread. */
export interface ReadRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  /** Only the first column's values, as ids (sent as one typed array, not copied row by row). */
  ids?: boolean;
  /** Only the first column's values, tallied (engine.ts, tallyOf). */
  tally?: boolean;
  /** The first column's values as ids, the second's tallied (engine.ts, IdsTallied). */
  idsTallied?: boolean;
  /** The blocks of the set `rsr_among` checks ids against while the statement runs (IdSet, shared memory). */
  among?: Map<number, Uint32Array>;
}

/** Its rows (as arrays, in `columns` order), or its ids, or what went wrong. */
export type ReadReply =
  | { id: number; columns: string[]; rows: unknown[][] }
  | { id: number; ids: Int32Array }
  | { id: number; tally: Tally }
  | { id: number; tallied: IdsTallied }
  | { id: number; error: { message: string; code?: string; timedOut: boolean } };
