/**
 * Versioned schema migrations, one source for both engines. Each runs once, under a lock and
 * inside a transaction, and is recorded in `schema_migration`; `migrate` is safe to run again.
 */
import type { Kysely } from 'kysely';
import { storedFields, type Entity, type StoredField } from '../resources/define.ts';
import { ENTITY_BY_TABLE, entityOf, TABLES } from '../resources/index.ts';
import reports, { SEED_REPORTS } from '../resources/reports.ts';
import * as support from '../resources/support.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import type { Database, Dialect, Engine } from './engine/index.ts';
import { carriesProject, hasSortKey, insertRows, PROJECT_COLUMN } from './columns.ts';
import { fillProjects } from './visibility.ts';
import { carryProjectsInOrderIndexes, createAllIndexes, createOpenProjectIndex, createProjectIndex, createSecondaryIndexes, createTrigramIndexes, dropUndeclaredIndexes, UNANALYZED } from './indexes.ts';

interface Migration {
  version: number;
  name: string;
  up(db: Kysely<Database>, engine: Engine): Promise<void>;
}

async function createTable(db: Kysely<Database>, engine: Engine, entity: Entity): Promise<void> {
  const { dialect } = engine;
  let table = db.schema.createTable(entity.table);
  for (const [name, field] of storedFields(entity)) {
    table = table.addColumn(name, dialect.columnType(field), (column) => {
      if (name === 'id') return column.primaryKey();
      return field.nullable ? column : column.notNull();
    });
    if (hasSortKey(field)) table = table.addColumn(sortKeyColumn(name), dialect.sortKeyType);
  }
  if (carriesProject(entity)) table = table.addColumn(PROJECT_COLUMN, 'integer');
  await table.execute();
  await engine.generateIds(db, entity.table);
  for (const [name, field] of storedFields(entity)) {
    if (field.unique === true) await db.schema.createIndex(`${entity.table}_${name}_key`).unique().on(entity.table).column(name).execute();
  }
  await createAllIndexes(db, dialect, entity);
}

/**
 * Tables are created from their declarations as they are now. A later change to a declared
 * table's columns therefore comes with a migration that alters existing databases the same way.
 */
const createTables = async (db: Kysely<Database>, engine: Engine, names: readonly string[]) => {
  for (const entity of TABLES.filter((table) => names.includes(table.table))) await createTable(db, engine, entity);
};

/**
 * Adds a column a later declaration brought, unless the table has it: a database created by this
 * version has it already (migration 1 creates tables as declared now).
 */
async function addMissingColumn(db: Kysely<Database>, table: string, column: string, type: ReturnType<Dialect['columnType']>): Promise<boolean> {
  const tables = await db.introspection.getTables();
  if (tables.some((found) => found.name === table && found.columns.some((each) => each.name === column))) return false;
  await db.schema.alterTable(table).addColumn(column, type).execute();
  return true;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'the dataset tables; the seed report definitions',
    async up(db, engine) {
      await createTables(db, engine, TABLES.map((table) => table.table).filter((table) => table !== 'api_token'));
      await insertRows(engine, db, reports, SEED_REPORTS);
    },
  },
  {
    version: 2,
    name: 'API keys',
    up: (db, engine) => createTables(db, engine, ['api_token']),
  },
  {
    version: 3,
    name: 'the data version that cached counts are checked against',
    async up(db) {
      await db.schema.createTable('data_version').addColumn('id', 'integer', (column) => column.primaryKey()).addColumn('version', 'integer', (column) => column.notNull()).execute();
      await db.insertInto('data_version').values({ id: 1, version: 1 }).execute();
    },
  },
  {
    version: 4,
    name: 'indexes for the fields lists are often ordered or filtered by',
    async up(db, engine) {
      for (const entity of TABLES) await createSecondaryIndexes(db, engine.dialect, entity, false);
    },
  },
  {
    version: 5,
    name: 'indexes for every field a list may be ordered by',
    async up(db, engine) {
      for (const entity of TABLES) {
        await dropUndeclaredIndexes(db, engine.dialect, entity);
        await createSecondaryIndexes(db, engine.dialect, entity, false);
      }
    },
  },
  {
    version: 6,
    name: 'a version per table, so that a change leaves what other tables answer cached',
    async up(db) {
      await db.schema.createTable('table_version').addColumn('name', 'text', (column) => column.primaryKey()).addColumn('version', 'integer', (column) => column.notNull()).execute();
      const { version } = await db.selectFrom('data_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
      await db.insertInto('table_version').values(TABLES.map((entity) => ({ name: entity.table, version }))).execute();
    },
  },
  {
    version: 7,
    name: 'the links of a program: the parent indicator and period each one contributes to',
    async up(db, engine) {
      for (const [table, column] of [['indicator', 'parent_indicator'], ['indicator_period', 'parent_period']] as const) {
        const field = storedFields(ENTITY_BY_TABLE.get(table)!).find(([name]) => name === column)![1];
        await addMissingColumn(db, table, column, engine.dialect.columnType(field));
      }
    },
  },
  {
    version: 8,
    name: 'the change log: which projects each change wrote records of, so that counts are kept rather than made again',
    async up(db) {
      await db.schema.createTable('change_log')
        .addColumn('version', 'integer', (column) => column.notNull())
        .addColumn('tbl', 'text', (column) => column.notNull())
        .addColumn('project', 'integer')
        .execute();
      await db.schema.createIndex('change_log_tbl_version').on('change_log').columns(['tbl', 'version']).execute();
    },
  },
  {
    version: 9,
    name: 'the planner\'s statistics, which imports gather from now on (Engine.analyze)',
    async up(db, engine) {
      await engine.analyze(UNANALYZED, db);
    },
  },
  {
    version: 10,
    name: 'trigram indexes of the texts declared searched (index: \'search\')',
    async up(db, engine) {
      for (const entity of TABLES) await createTrigramIndexes(db, engine.dialect, entity);
    },
  },
  {
    version: 11,
    name: 'the project kept on records it is several foreign keys away from (comments, targets, administrative locations)',
    async up(db) {
      for (const entity of TABLES.filter(carriesProject)) {
        await addMissingColumn(db, entity.table, PROJECT_COLUMN, 'integer');
        await fillProjects(db, entity);
        await createProjectIndex(db, entity);
      }
    },
  },
  {
    version: 12,
    name: 'ids never handed out twice: a sequence per table on SQLite, starting at its largest id',
    // No table is rebuilt (AUTOINCREMENT would copy each): one row per table, its largest id read
    // from the end of its primary key. SQLite never noted the ids deleted from a table's end
    // before: the largest of them may be handed out once more, never again after.
    async up(db, engine) {
      await engine.createIdSequences(db);
      await syncAllGeneratedIds(engine, db);
    },
  },
  {
    version: 13,
    name: "an organisation's IATI prefixes, content owner, original, password policy and code list, stored as RSR's serializer stores them",
    async up(db, engine) {
      const fields = new Map(storedFields(ENTITY_BY_TABLE.get('organisation')!));
      for (const column of ['iati_prefixes', 'content_owner', 'original', 'password_policy', 'codelist']) {
        await addMissingColumn(db, 'organisation', column, engine.dialect.columnType(fields.get(column)!));
      }
    },
  },
  {
    version: 14,
    name: 'when each API key was last used',
    async up(db, engine) {
      await addMissingColumn(db, 'api_token', 'last_used_at', engine.dialect.columnType(support.apiToken.fields.last_used_at as StoredField));
    },
  },
  {
    version: 15,
    name: 'the index that serves a filter of a project record carries its project, so counts per project read the index alone',
    async up(db, engine) {
      for (const entity of TABLES) await carryProjectsInOrderIndexes(db, engine.dialect, entity, ['idx', 'asc']);
    },
  },
  {
    version: 16,
    name: 'the index a descending order is walked in carries the project too, where the engine would otherwise visit each row the walk passes',
    async up(db, engine) {
      if (engine.name === 'postgres') for (const entity of TABLES) await carryProjectsInOrderIndexes(db, engine.dialect, entity, ['desc']);
    },
  },
  {
    version: 17,
    name: 'on SQLite too, the index a descending order is walked in carries the project',
    async up(db, engine) {
      if (engine.name === 'sqlite') for (const entity of TABLES) await carryProjectsInOrderIndexes(db, engine.dialect, entity, ['desc']);
    },
  },
  {
    version: 18,
    name: 'a sort key for every text a filter may look at, ordered by or not (an organisation\'s IATI prefixes)',
    async up(db, engine) {
      for (const entity of TABLES) {
        for (const [name, field] of storedFields(entity)) {
          // Ordered texts have had theirs since migration 1.
          if (field.orderable || !hasSortKey(field) || !(await addMissingColumn(db, entity.table, sortKeyColumn(name), engine.dialect.sortKeyType))) continue;
          const rows = await db.selectFrom(entity.table).select(['id', name]).where(name, 'is not', null).execute();
          for (const row of rows) await db.updateTable(entity.table).set({ [sortKeyColumn(name)]: sortKey(row[name] as string) }).where('id', '=', row.id).execute();
        }
      }
    },
  },
  {
    version: 19,
    name: 'the index of open projects, read by every list\'s visibility join (PostgreSQL)',
    async up(db, engine) {
      await createOpenProjectIndex(db, engine.dialect, entityOf('project'));
    },
  },
];

/** Every table's next generated id above its largest id (see Engine.syncGeneratedIds), in `db`. */
export async function syncAllGeneratedIds(engine: Engine, db: Kysely<Database>): Promise<void> {
  for (const entity of TABLES) await engine.syncGeneratedIds(db, entity.table);
}

/** The migrations this database still lacks (all of them where the schema was never created). */
export async function pendingMigrations(engine: Engine): Promise<number[]> {
  const exists = await engine.db.introspection.getTables().then((tables) => tables.some((table) => table.name === 'schema_migration'));
  if (!exists) return MIGRATIONS.map((migration) => migration.version);
  const done = new Set((await engine.db.selectFrom('schema_migration').select('version').execute()).map((row) => row.version));
  return MIGRATIONS.map((migration) => migration.version).filter((version) => !done.has(version));
}

/**
 * Creates or upgrades the schema, and puts id generation above every stored id (mending a
 * sequence a tool outside the service set back, or rows it inserted past one). The pending
 * migrations are applied together, all or none, under a lock (Engine.exclusively): instances
 * started at once apply each migration once. The versions applied here.
 */
export function migrate(engine: Engine): Promise<number[]> {
  return engine.exclusively(async (db) => {
    await db.schema
      .createTable('schema_migration')
      .ifNotExists()
      .addColumn('version', 'integer', (column) => column.primaryKey())
      .addColumn('name', 'text', (column) => column.notNull())
      .execute();
    const done = new Set((await db.selectFrom('schema_migration').select('version').execute()).map((row) => row.version));
    const pending = MIGRATIONS.filter((migration) => !done.has(migration.version));
    for (const migration of pending) {
      await migration.up(db, engine);
      await db.insertInto('schema_migration').values({ version: migration.version, name: migration.name }).execute();
    }
    // Under the lock: on SQLite a sequence moved is a write, which instances started together
    // would otherwise attempt at once (and be refused: SQLite does not wait for its locks here).
    await syncAllGeneratedIds(engine, db);
    return pending.map((migration) => migration.version);
  });
}

/**
 * A check that the schema is current, run before requests: it migrates once the database
 * answers (a service may start before its database) and then costs nothing.
 */
export function schemaGate(engine: Engine): () => Promise<void> {
  let ready: Promise<void> | null = null;
  return () => {
    ready ??= migrate(engine).then(
      () => undefined,
      (error: unknown) => {
        ready = null; // try again on the next request
        throw error;
      },
    );
    return ready;
  };
}
