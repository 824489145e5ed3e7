/**
 * What differs between the two engines, in one place: column types and how values travel to and
 * from the driver. Everything else (queries, migrations, import) is written once with Kysely.
 */
import { sql, type ColumnDataType, type Expression, type Kysely, type OrderByModifiers, type RawBuilder } from 'kysely';
import type { StoredField } from '../resources/define.ts';
import type { Database } from './connect.ts';
import { CHANGES_CHANNEL } from './version-watch.ts';

export type DialectName = 'sqlite' | 'postgres';

export type OrderTerm = [Expression<unknown>, OrderByModifiers];

export interface Dialect {
  name: DialectName;
  columnType(field: StoredField): ColumnDataType | Expression<unknown>;
  toDb(field: StoredField, value: unknown): unknown;
  fromDb(field: StoredField, value: unknown): unknown;
  /** The true literal, as the engine stores booleans. */
  readonly true: unknown;
  /**
   * Refresh planner statistics after a bulk load. PostgreSQL needs them (it otherwise guesses
   * from empty tables and sorts whole lists for page 1); SQLite's heuristics already walk a
   * list in id order and probe its project, which statistics talk it out of.
   */
  readonly analyzeAfterLoad: boolean;
  /** Makes `id` generated on insert when not given (SQLite's INTEGER PRIMARY KEY already is). */
  generateIds(db: Kysely<Database>, table: string): Promise<void>;
  /**
   * The next generated id follows the largest stored one; never moves back. Run after records with
   * explicit ids were committed, and at start-up: PostgreSQL never rolls a sequence back, so a
   * failed import could otherwise leave it below ids that exist.
   */
  syncGeneratedIds(db: Kysely<Database>, table: string): Promise<void>;
  /** Whether `error` is an insert refused because its generated id is taken (a sequence behind its table). */
  isIdClash(error: unknown, table: string): boolean;
  /** Column type of decision D7's sort keys: compared by code point (UTF-8 bytes), never by locale. */
  readonly sortKeyType: ColumnDataType | Expression<unknown>;
  /**
   * ORDER BY terms for one column with http.md's NULL placement (last ascending, first
   * descending), written so that the indexes of `orderIndexes` serve them.
   */
  orderTerms(column: Expression<unknown>, nullable: boolean, descending: boolean): OrderTerm[];
  /**
   * The indexes, by name suffix, that serve filters on `column` and lists ordered by it either
   * way and then by id ascending, each in one index scan: page 1 reads 20 index entries.
   */
  orderIndexes(column: string, nullable: boolean): Record<string, RawBuilder<unknown>[]>;
  /** Inside a writing transaction: lets other instances know at commit (PostgreSQL's NOTIFY). */
  announceChange(db: Kysely<Database>): Promise<void>;
  /** Inside a writing transaction: how long its statements may wait for another writer's locks. */
  limitLockWait(db: Kysely<Database>, ms: number): Promise<void>;
  /** The database is held by another writer now (try again shortly). */
  isBusy(error: unknown): boolean;
}

const direction = (descending: boolean): OrderByModifiers => (descending ? 'desc' : 'asc');

const jsonText = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.stringify(value));
const parseJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** SQLite keeps booleans as 0/1, decimals as REAL, dates and timestamps as ISO text. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  true: 1,
  sortKeyType: 'text', // SQLite's default BINARY collation compares bytes
  analyzeAfterLoad: false,
  generateIds: async () => undefined,
  syncGeneratedIds: async () => undefined, // INTEGER PRIMARY KEY always takes max(id) + 1
  isIdClash: () => false,
  announceChange: async () => undefined, // every instance reads the version itself
  limitLockWait: async () => undefined, // busy_timeout is 0: changeData waits, between attempts
  isBusy: (error) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY'),
  // SQLite puts NULLs first and uses no index for NULLS LAST, but it does for `x IS NULL, x`.
  orderTerms(column, nullable, descending) {
    const terms: OrderTerm[] = [[column, direction(descending)]];
    return nullable ? [[sql`${column} is null`, direction(descending)], ...terms] : terms;
  },
  // Every index ends with the rowid (id) ascending; the `desc` one is scanned backwards.
  orderIndexes(column, nullable): Record<string, RawBuilder<unknown>[]> {
    const value = sql.ref(column);
    if (!nullable) return { idx: [value], desc: [value, sql`id desc`] };
    const keys = [sql`${value} is null`, value];
    return { idx: [value], asc: keys, desc: [...keys, sql`id desc`] };
  },
  columnType(field) {
    switch (field.type) {
      case 'int': case 'bool': return 'integer';
      case 'decimal': return 'real';
      default: return 'text';
    }
  },
  toDb(field, value) {
    if (value === null || value === undefined) return null;
    if (field.type === 'bool') return value ? 1 : 0;
    if (field.type === 'json') return jsonText(value);
    return value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'bool') return value === 1;
    if (field.type === 'json') return parseJson(value);
    return value;
  },
};

/** PostgreSQL: native booleans, numeric(p, s), date; timestamps as canonical UTC text (see time.ts). */
export const postgresDialect: Dialect = {
  name: 'postgres',
  true: true,
  sortKeyType: sql`text collate "C"`,
  analyzeAfterLoad: true,
  async generateIds(db, table) {
    await sql`alter table ${sql.table(table)} alter column id add generated by default as identity`.execute(db);
  },
  async syncGeneratedIds(db, table) {
    const { rows: [{ sequence }] } = await sql<{ sequence: string }>`select pg_get_serial_sequence(${`"${table}"`}, 'id') as sequence`.execute(db);
    // The sequence's name comes from the catalogue, quoted as PostgreSQL quotes it.
    const { rows: [state] } = await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from ${sql.raw(sequence)}`.execute(db);
    const { rows: [{ largest }] } = await sql<{ largest: string | null }>`select max(id) as largest from ${sql.table(table)}`.execute(db);
    const next = Number(state.last_value) + (state.is_called ? 1 : 0);
    if (largest !== null && Number(largest) >= next) await sql`select setval(${sequence}, ${Number(largest) + 1}, false)`.execute(db);
  },
  isIdClash(error, table) {
    const { code, constraint } = error as { code?: unknown; constraint?: unknown };
    return code === '23505' && constraint === `${table}_pkey`;
  },
  orderTerms(column, nullable, descending) {
    if (!nullable) return [[column, direction(descending)]];
    return [[column, (order) => (descending ? order.desc().nullsFirst() : order.asc().nullsLast())]];
  },
  async announceChange(db) {
    await sql`notify ${sql.raw(CHANGES_CHANNEL)}`.execute(db);
  },
  async limitLockWait(db, ms) {
    // A lock not had in time fails the statement (55P03): the write is answered 503, not queued.
    if (Number.isFinite(ms)) await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(ms))}ms`}, true)`.execute(db);
  },
  isBusy: () => false, // the server waits, up to lock_timeout
  orderIndexes(column) {
    return { asc: [sql.ref(column), sql`id`], desc: [sql`${sql.ref(column)} desc nulls first`, sql`id`] };
  },
  columnType(field): ColumnDataType | RawBuilder<unknown> {
    switch (field.type) {
      case 'int': return 'integer';
      case 'bool': return 'boolean';
      case 'decimal': return sql.raw(`numeric(${field.digits?.[0] ?? 20}, ${field.digits?.[1] ?? 2})`);
      case 'date': return 'date';
      default: return 'text';
    }
  },
  toDb(field, value) {
    if (value === null || value === undefined) return null;
    if (field.type === 'json') return jsonText(value);
    return value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'decimal') return Number(value);
    if (field.type === 'json') return parseJson(value);
    return value;
  },
};
