/** The stored columns of records (values and D7 sort keys) and the statements that write them. */
import type { Kysely } from 'kysely';
import { storedFields, type Entity, type Row, type StoredField } from '../resources/define.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import type SQLite from 'better-sqlite3';
import type { Connection, Database } from './connect.ts';
import type { Dialect } from './dialect.ts';

/** SQLite allows 32,766 parameters per statement, PostgreSQL 65,535. */
const MAX_PARAMETERS = 30_000;

const hasSortKey = (field: StoredField) => field.type === 'text' && field.orderable;

/** The column a field is ordered by: orderable text by its D7 sort key, anything else by itself. */
export const orderColumn = (name: string, field: StoredField): string => (hasSortKey(field) ? sortKeyColumn(name) : name);

/** The column names of an entity's table: its stored fields, each text one followed by its sort key. */
export function columnNames(entity: Entity): string[] {
  return storedFields(entity).flatMap(([name, field]) => (hasSortKey(field) ? [name, sortKeyColumn(name)] : [name]));
}

/** One record's column values, in `columnNames` order: converted values plus D7 sort keys. */
export function columnValues(entity: Entity, dialect: Dialect, record: Row): unknown[] {
  const values: unknown[] = [];
  for (const [name, field] of storedFields(entity)) {
    const value = record[name] ?? null;
    values.push(dialect.toDb(field, value));
    if (hasSortKey(field)) values.push(sortKey(value));
  }
  return values;
}

export function toColumns(entity: Entity, dialect: Dialect, record: Row): Row {
  const names = columnNames(entity);
  const values = columnValues(entity, dialect, record);
  return Object.fromEntries(names.map((name, index) => [name, values[index]]));
}

export function batchSize(entity: Entity): number {
  const columns = columnNames(entity).length;
  return Math.max(1, Math.min(1000, Math.floor(MAX_PARAMETERS / columns)));
}

const preparedInserts = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/** SQLite runs in-process: one prepared single-row statement beats compiling batches. */
function sqliteInsert(handle: SQLite.Database, db: Kysely<Database>, entity: Entity): SQLite.Statement {
  let statements = preparedInserts.get(handle);
  if (!statements) preparedInserts.set(handle, (statements = new Map()));
  let statement = statements.get(entity.table);
  if (!statement) {
    const placeholders = Object.fromEntries(columnNames(entity).map((column) => [column, null]));
    statement = handle.prepare(db.insertInto(entity.table).values(placeholders).compile().sql);
    statements.set(entity.table, statement);
  }
  return statement;
}

export async function insertRows(connection: Connection, db: Kysely<Database>, entity: Entity, records: readonly Row[]): Promise<void> {
  const { dialect, sqlite } = connection;
  if (sqlite && records.length > 0) {
    const statement = sqliteInsert(sqlite, db, entity);
    for (const record of records) statement.run(columnValues(entity, dialect, record));
    return;
  }
  const size = batchSize(entity);
  for (let start = 0; start < records.length; start += size) {
    const values = records.slice(start, start + size).map((record) => toColumns(entity, dialect, record));
    await db.insertInto(entity.table).values(values).execute();
  }
}

/** Inserts one record (its id generated when it has none); the id. */
export async function insertRecord(connection: Connection, db: Kysely<Database>, entity: Entity, record: Row): Promise<number> {
  const columns = toColumns(entity, connection.dialect, record);
  if (record.id === undefined || record.id === null) delete columns.id;
  const inserted = await db.insertInto(entity.table).values(columns).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Writes the given stored fields (and their sort keys) of one record. */
export async function updateRecord(connection: Connection, db: Kysely<Database>, entity: Entity, id: number, changes: Row): Promise<void> {
  const columns = toColumns(entity, connection.dialect, changes);
  const names = new Set(Object.keys(changes).flatMap((name) => [name, sortKeyColumn(name)]));
  const values = Object.fromEntries(Object.entries(columns).filter(([name]) => names.has(name) && name !== 'id'));
  if (Object.keys(values).length) await db.updateTable(entity.table).set(values).where('id', '=', id).execute();
}
