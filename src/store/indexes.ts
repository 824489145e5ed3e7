/**
 * The secondary indexes of a table, derived from its declaration: one per foreign key (pages
 * look up and join by them) and per `index: 'filter'` field; for `index: 'order'` fields those
 * the dialect shapes so that an ordered page reads only its own rows, in either direction.
 * Bulk loads into empty tables drop them first and build them afterwards. Indexes are created
 * by name if missing (migration 4): a declaration that changes an existing index's shape comes
 * with a migration that drops it first.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { storedFields, type Entity } from '../resources/define.ts';
import { orderColumn } from './columns.ts';
import type { Database, Dialect } from './engine/index.ts';

interface Index {
  name: string;
  columns: RawBuilder<unknown>[];
}

export function secondaryIndexes(entity: Entity, dialect: Dialect): Index[] {
  const indexes: Index[] = [];
  for (const [name, field] of storedFields(entity)) {
    if (name === 'id') continue;
    const column = orderColumn(name, field);
    if (field.index === 'order') {
      for (const [suffix, columns] of Object.entries(dialect.orderIndexes(column, field.nullable))) indexes.push({ name: `${entity.table}_${column}_${suffix}`, columns });
    } else if (field.references || field.index === 'filter') {
      indexes.push({ name: `${entity.table}_${column}_idx`, columns: [sql.ref(column)] });
    }
  }
  return indexes;
}

export async function createSecondaryIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  for (const index of secondaryIndexes(entity, dialect)) {
    await sql`create index if not exists ${sql.id(index.name)} on ${sql.table(entity.table)} (${sql.join(index.columns)})`.execute(db);
  }
}

export async function dropSecondaryIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  for (const index of secondaryIndexes(entity, dialect)) await sql`drop index if exists ${sql.id(index.name)}`.execute(db);
}
