/** The stored columns of records (values and D7 sort keys) and the statements that write them. */
import type { Kysely } from 'kysely';
import { projectPathOf, storedFields, type Entity, type Row, type StoredField } from '../resources/define.ts';
import { RESOURCES } from '../resources/index.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import { objectLiteral } from '../codegen/object-literal.ts';
import type { Database, Dialect, Engine, LookedUp } from './engine/index.ts';

/**
 * Whether a text keeps its D7 sort key beside it: one that may be ordered by, or filtered on
 * (case-insensitive lookups and equality compare keys, filter-sql.ts).
 */
export const hasSortKey = (field: StoredField): boolean => field.type === 'text' && (field.orderable || field.filter !== 'no-one');

/**
 * The column that holds, on a listed record whose project is more than one foreign key away
 * (a comment's is five), that project's id: who may see the record is then one lookup from the
 * record, not a chain of joins per row, and counts per project one grouped read of one table.
 * Written with the record by imports (visibility.ts, `projectLookup`) and again by writes that
 * may move it (`fillProjects`); never shown, never exported.
 */
export const PROJECT_COLUMN = '_project';

const carrying = new Set(RESOURCES.filter((resource) => resource.visibility.kind === 'project' && resource.visibility.path.length > 1).map((resource) => resource.table));

/** Whether records of the entity keep their project in PROJECT_COLUMN. */
export const carriesProject = (entity: Entity): boolean => carrying.has(entity.table);

/** The column of a record that holds its project, where the record holds it: its own foreign key or PROJECT_COLUMN. */
export function projectColumnName(entity: Entity): string | null {
  const path = projectPathOf(entity);
  if (!path || path.length === 0) return null;
  if (carriesProject(entity)) return PROJECT_COLUMN;
  return path.length === 1 ? path[0] : null;
}

/** The column a field is ordered by: orderable text by its D7 sort key, anything else by itself. */
export const orderColumn = (name: string, field: StoredField): string => (hasSortKey(field) ? sortKeyColumn(name) : name);

/** A stored value as its order compares it (`orderColumn`): a text by its sort key. */
export const orderValue = (field: StoredField, value: unknown): unknown => (hasSortKey(field) ? sortKey(value as string | null) : value);

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
    if (hasSortKey(field)) values.push(sortKey(value as string | null));
  }
  return values;
}

function toColumns(entity: Entity, dialect: Dialect, record: Row): Row {
  const names = columnNames(entity);
  const values = columnValues(entity, dialect, record);
  return Object.fromEntries(names.map((name, index) => [name, values[index]]));
}

type RowReader = (columns: Row) => Row;
const readers = new WeakMap<Entity, WeakMap<Dialect, RowReader>>();

/**
 * Converts a database row into the values its declaration describes. The converter is made once
 * per entity and engine as an object literal of the entity's fields (objectLiteral): a page of
 * rows is then built with one shape, not by a store per field under a computed name.
 */
export function fromColumns(entity: Entity, dialect: Dialect, columns: Row): Row {
  let byDialect = readers.get(entity);
  if (!byDialect) readers.set(entity, (byDialect = new WeakMap()));
  let reader = byDialect.get(dialect);
  if (!reader) {
    const fields = storedFields(entity);
    reader = objectLiteral<[Row]>(fields.map(([name, field]) => [name, { property: name, then: (value: unknown) => dialect.fromDb(field, value ?? null) }]));
    byDialect.set(dialect, reader);
  }
  return reader(columns);
}

/**
 * Records read, validated and inserted at a time by imports and copies (Engine.insertMany): no
 * statement's parameters grow with it (one per column on PostgreSQL, one row per run on SQLite).
 */
export const BATCH_SIZE = 1000;

/**
 * Records with their ids into their table, inside the transaction `db` (imports, migrations);
 * with `lookedUp`, a column each row's insert finds (its project: visibility.ts, projectLookup).
 */
export async function insertRows(engine: Engine, db: Kysely<Database>, entity: Entity, records: readonly Row[], lookedUp?: LookedUp): Promise<void> {
  await engine.insertMany(db, entity.table, columnNames(entity), records.map((record) => columnValues(entity, engine.dialect, record)), lookedUp);
}

/**
 * Inserts one record inside the writing transaction `db`; the id. One without an id gets one
 * never handed out before (Engine.nextId): every record the service creates, nested ones too.
 */
export async function insertRecord(engine: Engine, db: Kysely<Database>, entity: Entity, record: Row): Promise<number> {
  const columns = toColumns(entity, engine.dialect, record);
  if (record.id === undefined || record.id === null) {
    const id = await engine.nextId(db, entity.table);
    if (id === undefined) delete columns.id;
    else columns.id = id;
  }
  const inserted = await db.insertInto(entity.table).values(columns).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/**
 * Writes the given stored fields (and their sort keys) of one record, where the fields of
 * `unchanged` (columns of references) still hold the values given; whether it did.
 */
export async function updateRecord(engine: Engine, db: Kysely<Database>, entity: Entity, id: number, changes: Row, unchanged: Row = {}): Promise<boolean> {
  const columns = toColumns(entity, engine.dialect, changes);
  const names = new Set(Object.keys(changes).flatMap((name) => [name, sortKeyColumn(name)]));
  const values = Object.fromEntries(Object.entries(columns).filter(([name]) => names.has(name) && name !== 'id'));
  if (!Object.keys(values).length) return true;
  let update = db.updateTable(entity.table).set(values).where('id', '=', id);
  for (const [name, value] of Object.entries(unchanged)) update = value === null ? update.where(name, 'is', null) : update.where(name, '=', value as number);
  const [result] = await update.execute();
  return result.numUpdatedRows > 0n;
}
