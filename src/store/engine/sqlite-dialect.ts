/**
 * How SQLite stores and compares what the declarations describe: booleans as 0/1, decimals as
 * REAL, dates and timestamps as ISO text, JSON as text; how lists are ordered, indexed and
 * searched in it.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect, OrderByTerm } from './engine.ts';

const direction = (descending: boolean) => (descending ? 'desc' : 'asc');

export const sqliteDialect: Dialect = {
  true: 1,
  sortKeyType: 'text', // SQLite's default BINARY collation compares bytes
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
    if (field.type === 'json') return JSON.stringify(value);
    return value;
  },
  fromDb(field, value) {
    if (value === null) return null;
    if (field.type === 'bool') return value === 1;
    if (field.type === 'json') return typeof value === 'string' ? JSON.parse(value) : value;
    return value;
  },
  // SQLite puts NULLs first and uses no index for NULLS LAST, but it does for `x IS NULL, x`.
  orderTerms(column, nullable, descending) {
    const terms: OrderByTerm[] = [[column, direction(descending)]];
    return nullable ? [[sql`${column} is null`, direction(descending)], ...terms] : terms;
  },
  // json_each reads the list; SQLite still finds each id through the column's index.
  inList: (column, list) => sql<SqlBool>`${column} in (select value from json_each(${list}))`,
  amongFew: (column, ids) => sql<SqlBool>`${column} in ${ids}`, // the subquery brings its parentheses
  // better-sqlite3 cannot interrupt a statement: a scan asks, row by row, whether time is left.
  // Asked on every long text and on about one short one in 1,024 (SQLite's random(), no call out
  // of it for the others): a call into JavaScript per row cost a quarter of a million-row scan,
  // and short texts are quick to compare, so the deadline is still met within a few thousand rows.
  withinTime: (column) => sql<SqlBool>`(((random() & 1023) <> 0 and octet_length(${column}) < 1024) or rsr_within_time(${column}))`,
  trigramIndex(table, column) {
    const name = trigramTable(table, column);
    const [fts, key] = [sql.table(name), sql.ref(column)];
    const insert = sql`insert into ${fts}(rowid, k) values (new.id, new.${key});`;
    const remove = sql`delete from ${fts} where rowid = old.id;`;
    return {
      create: [
        // No text of its own (content=''), no positions (detail='none'): candidates, decided by LIKE.
        sql`create virtual table if not exists ${fts} using fts5(k, tokenize = 'trigram', detail = 'none', content = '', contentless_delete = 1)`,
        // In rowid order: FTS5 writes out what it holds whenever a rowid comes smaller than the last,
        // and the planner would otherwise read the key's own index, in the keys' order (at scale
        // 100, custom fields' values: 39 s so, 9 s in order).
        sql`insert into ${fts}(rowid, k) select id, ${key} from ${sql.table(table)} where ${key} is not null and not exists (select 1 from ${fts} limit 1) order by id`,
        sql`create trigger if not exists ${sql.id(`${name}_insert`)} after insert on ${sql.table(table)} begin ${insert} end`,
        sql`create trigger if not exists ${sql.id(`${name}_delete`)} after delete on ${sql.table(table)} begin ${remove} end`,
        sql`create trigger if not exists ${sql.id(`${name}_update`)} after update of ${key} on ${sql.table(table)} begin ${remove} ${insert} end`,
      ],
      drop: [sql`drop table if exists ${fts}`, ...['insert', 'delete', 'update'].map((event) => sql`drop trigger if exists ${sql.id(`${name}_${event}`)}`)],
    };
  },
  trigramCandidates(table, column, id, trigrams) {
    const fts = trigramTable(table, column);
    // Each part as an FTS5 string (quotes doubled), all of them required.
    const query = trigrams.map((part) => `"${part.replaceAll('"', '""')}"`).join(' AND ');
    return sql<SqlBool>`${id} in (select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${query})`;
  },
  listParameter: (ids) => JSON.stringify(ids),
  among: (id) => sql<SqlBool>`rsr_among(${id})`, // engine/sqlite-setup.ts
  // Every index ends with the rowid (id) ascending; the `desc` one is scanned backwards. Carried
  // columns go after an explicit id (the ascending order is served as before) in the indexes the
  // planner reads a range from: `idx`, and for a nullable field `asc` too, whose NULL test it
  // skip-scans rather than read `idx` for some tables, whatever each holds. `desc` carries them
  // too: a descending walk to a deep page then reads the index alone, not each row it passes
  // (migration 17; at scale 100, page 100 of comments by `-created_at`: 419 → 13 ms).
  carryingIndexes: (nullable) => (nullable ? ['idx', 'asc', 'desc'] : ['idx', 'desc']),
  matchesApart: true,
  readsSkippedRows: false,
  includes: false,
  analyzeIndex: (name) => sql`analyze ${sql.id(name)}`,
  orderIndexes(column, nullable, carried): Record<string, RawBuilder<unknown>[]> {
    const value = sql.ref(column);
    const projects = carried.map((name) => sql.ref(name));
    const extra = carried.length ? [sql`id`, ...projects] : [];
    if (!nullable) return { idx: [value, ...extra], desc: [value, sql`id desc`, ...projects] };
    const keys = [sql`${value} is null`, value];
    return { idx: [value, ...extra], asc: [...keys, ...extra], desc: [...keys, sql`id desc`, ...projects] };
  },
};

/** The FTS5 table that is the trigram index of `table.column`. */
const trigramTable = (table: string, column: string) => `${table}_${column}_trigram`;

