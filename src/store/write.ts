/** Inserting validated records, in batches that stay under both engines' parameter limits. */
import type { Kysely } from 'kysely';
import { storedFields, type Entity, type Row } from '../resources/define.js';
import { sortKey, sortKeyColumn } from '../text/sortkey.js';
import type { Database } from './connect.js';
import type { Dialect } from './dialect.js';

/** SQLite allows 32,766 parameters per statement, PostgreSQL 65,535. */
const MAX_PARAMETERS = 30_000;

/** The columns of one record as stored: converted values plus the D7 sort keys of its text. */
export function toColumns(entity: Entity, dialect: Dialect, record: Row): Row {
  const columns: Row = {};
  for (const [name, field] of storedFields(entity)) {
    const value = record[name] ?? null;
    columns[name] = dialect.toDb(field, value);
    if (field.type === 'text' && field.orderable) columns[sortKeyColumn(name)] = sortKey(value);
  }
  return columns;
}

export function batchSize(entity: Entity): number {
  const columns = storedFields(entity).reduce((count, [, field]) => count + (field.type === 'text' && field.orderable ? 2 : 1), 0);
  return Math.max(1, Math.min(1000, Math.floor(MAX_PARAMETERS / columns)));
}

export async function insertRows(db: Kysely<Database>, dialect: Dialect, entity: Entity, records: readonly Row[]): Promise<void> {
  const size = batchSize(entity);
  for (let start = 0; start < records.length; start += size) {
    const values = records.slice(start, start + size).map((record) => toColumns(entity, dialect, record));
    await db.insertInto(entity.table).values(values).execute();
  }
}
