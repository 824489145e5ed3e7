/**
 * PostgreSQL's statistics of the key columns (key-statistics.ts): `pg_stats`, gathered by every
 * import's ANALYZE, per column, with the table's row estimate; only key columns with the index
 * an ordered field has (indexes.ts: `table_column_asc`), which a loose scan of the keys walks.
 * `n_distinct` is a count, or where negative the distinct values' share of the rows.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './engine.ts';
import { isFew, type FewKeys } from './key-statistics.ts';

export async function postgresFewKeys(db: Kysely<Database>): Promise<FewKeys> {
  const { rows } = await sql<{ table: string; column: string; distinct: number; rows: number }>`
    select s.tablename as "table", s.attname as "column", s.n_distinct as "distinct", c.reltuples as "rows"
    from pg_stats s join pg_class c on c.relname = s.tablename and c.relnamespace = s.schemaname::regnamespace
    where s.schemaname = current_schema() and s.attname like '%\_sortkey'
      and to_regclass(quote_ident(s.tablename || '_' || s.attname || '_asc')) is not null`.execute(db);
  const few = new Set<string>();
  for (const { table, column, distinct, rows: count } of rows) {
    const keys = distinct >= 0 ? distinct : -distinct * count;
    if (isFew(count, keys)) few.add(`${table}.${column}`);
  }
  return few;
}
