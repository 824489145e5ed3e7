/**
 * Ids of the embedded engine that are never handed out twice. An `integer primary key` takes
 * max(id) + 1, so once the newest record of a table is deleted its id would come back with other
 * content (RSR's PostgreSQL sequences, and Django even on SQLite, never do that). AUTOINCREMENT
 * would need every table copied, millions of rows at scale 100; instead a table of our own keeps
 * per table the last id handed out, as PostgreSQL keeps a sequence per table. It is written in
 * the write's own transaction, so two processes never take the same id, and a write that fails
 * takes none: both stores hand out the same ids for the same writes.
 */
import { sql } from 'kysely';
import type { Engine } from './engine.ts';

/** Table name -> the last id handed out (or stored) in it. */
const SEQUENCES = 'id_sequence';

export function sqliteIds(): Pick<Engine, 'generateIds' | 'createIdSequences' | 'nextId' | 'syncGeneratedIds' | 'isIdClash'> {
  return {
    // A table's row in SEQUENCES is made by its first nextId or syncGeneratedIds: a new table's
    // migration may come before the migration that makes SEQUENCES (a new database runs them all).
    generateIds: async () => undefined,
    async createIdSequences(within) {
      await within.schema.createTable(SEQUENCES).ifNotExists()
        .addColumn('tbl', 'text', (column) => column.primaryKey())
        .addColumn('last_id', 'integer', (column) => column.notNull())
        .execute();
    },
    async nextId(within, table) {
      // Above the largest stored id too: records given their ids (an import, a tool outside the
      // service) never clash with a generated one. max(id) is one step down the table's b-tree.
      // One statement, which takes SQLite's write lock for the rest of the transaction: no other
      // process takes an id before this one commits or rolls back.
      const { rows: [{ id }] } = await sql<{ id: number }>`
        insert into ${sql.table(SEQUENCES)} (tbl, last_id) values (${table}, coalesce((select max(id) from ${sql.table(table)}), 0) + 1)
        on conflict (tbl) do update set last_id = max(last_id + 1, excluded.last_id)
        returning last_id as id`.execute(within);
      return Number(id);
    },
    async syncGeneratedIds(within, table) {
      // Never back: ids of records deleted since, or replaced by an import, stay used.
      await sql`
        insert into ${sql.table(SEQUENCES)} (tbl, last_id) values (${table}, coalesce((select max(id) from ${sql.table(table)}), 0))
        on conflict (tbl) do update set last_id = excluded.last_id where excluded.last_id > last_id`.execute(within);
    },
    isIdClash: () => false, // nextId is above every stored id
  };
}
