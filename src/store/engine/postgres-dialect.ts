/**
 * How PostgreSQL stores and compares what the declarations describe, and how lists are ordered,
 * indexed and searched in it.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { IdSet } from '../idset.ts';
import type { Dialect } from './engine.ts';

/**
 * Stand-ins for the kept set in a page's statement (`among`), which keeps one SQL text, prepared
 * once, whatever the set: `withSet` gives them the set's values as the statement is run.
 */
const SET_START = Symbol('the first id of the set\'s bitmap');
const SET_END = Symbol('the id after its last bit');
const SET_BITS = Symbol('the bitmap');

/**
 * A statement's parameters with the set's values in place of the stand-ins: one bitmap from the
 * set's lowest block of ids to its highest (at scale 100, 120 KiB for the 932,000 custom fields),
 * sent as binary, not text.
 */
export function withSet(parameters: readonly unknown[], set: IdSet): unknown[] {
  const { start, bytes } = set.span();
  const values = new Map<unknown, unknown>([[SET_START, start], [SET_END, start + bytes.length * 8], [SET_BITS, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]]);
  return parameters.map((value) => (values.has(value) ? values.get(value) : value));
}

/** Native booleans, numeric(p, s), date; timestamps as canonical UTC text (text/time.ts). */
export const postgresDialect: Dialect = {
  true: true,
  sortKeyType: sql`text collate "C"`,
  columnType(field) {
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
    return field.type === 'json' ? JSON.stringify(value) : value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'decimal') return Number(value);
    if (field.type === 'json') return typeof value === 'string' ? JSON.parse(value) : value;
    return value;
  },
  orderTerms(column, nullable, descending) {
    if (!nullable) return [[column, descending ? 'desc' : 'asc']];
    return [[column, (order) => (descending ? order.desc().nullsFirst() : order.asc().nullsLast())]];
  },
  inList: (column, list) => sql<SqlBool>`${column} = any(${list})`,
  // A subquery is written in parentheses of its own: `array(select …)`.
  amongFew: (column, ids) => sql<SqlBool>`${column} = any(array${ids})`,
  withinTime: null, // statement_timeout stops any statement
  trigramIndex(table, column) {
    const name = sql.id(`${table}_${column}_trgm`);
    // Where pg_trgm cannot be had (not installed, or not ours to create) the lookups scan as before.
    const create = sql`do $$ begin
      create extension if not exists pg_trgm;
      create index if not exists ${name} on ${sql.table(table)} using gin (${sql.ref(column)} gin_trgm_ops);
    exception when undefined_file or insufficient_privilege or feature_not_supported then
      raise notice 'no trigram index: %', sqlerrm;
    end $$`;
    return {
      create: [create],
      drop: [sql`drop index if exists ${name}`],
    };
  },
  trigramCandidates: null,
  listParameter: (ids) => ids,
  // get_bit numbers a byte's bits from its lowest, as IdSet#span lays them out. CASE, since an
  // AND may be evaluated in any order, and get_bit past the bitmap's end is an error.
  among: (id) => sql<SqlBool>`(case when ${id} >= ${SET_START} and ${id} < ${SET_END} then get_bit(${SET_BITS}::bytea, ${id} - ${SET_START}) = 1 else false end)`,
  // `asc` serves filters; carried columns after the id change no order. `desc` carries them too:
  // a descending walk (pages/seek.ts) then reads the index alone, its tie-breaking test on the
  // index's entries rather than on each row it passes (heap fetches), four times faster.
  carryingIndexes: () => ['asc', 'desc'],
  matchesApart: false,
  readsSkippedRows: true,
  includes: true,
  analyzeIndex: () => null,
  orderIndexes(column, _nullable, carried): Record<string, RawBuilder<unknown>[]> {
    const after = [sql`id`, ...carried.map((name) => sql.ref(name))];
    return { asc: [sql.ref(column), ...after], desc: [sql`${sql.ref(column)} desc nulls first`, ...after] };
  },
};
