/**
 * What differs between the two engines, in one place: column types and how values travel to and
 * from the driver. Everything else (queries, migrations, import) is written once with Kysely.
 */
import { sql, type ColumnDataType, type Expression, type RawBuilder } from 'kysely';
import type { StoredField } from '../resources/define.js';

export type DialectName = 'sqlite' | 'postgres';

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
  /** Column type of decision D7's sort keys: compared by code point (UTF-8 bytes), never by locale. */
  readonly sortKeyType: ColumnDataType | Expression<unknown>;
}

const jsonText = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.stringify(value));
const parseJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** SQLite keeps booleans as 0/1, decimals as REAL, dates and timestamps as ISO text. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  true: 1,
  sortKeyType: 'text', // SQLite's default BINARY collation compares bytes
  analyzeAfterLoad: false,
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
