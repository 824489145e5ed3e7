/**
 * A database made before the flat-cost work (schema version 7: no change log, no statistics, no
 * trigram indexes, no project kept on deep records) is brought up to date by `migrate`, data
 * kept, each migration in its turn: the project index of migration 11 cannot come before its
 * column, nor anything of a later migration before the one that makes what it needs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { TABLES } from '../src/resources/index.ts';
import { carriesProject, PROJECT_COLUMN, projectColumnName } from '../src/store/columns.ts';
import { dropAllIndexes, createSecondaryIndexes, secondaryIndexes } from '../src/store/indexes.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { sortKey } from '../src/text/sortkey.ts';
import { FIXTURE, testStores, withFixtureDatabase } from './support/server.ts';

/** Columns migration 13 adds to organisations. */
const ORGANISATION_COLUMNS = ['iati_prefixes', 'content_owner', 'original', 'password_policy', 'codelist'];

/** The schema as version 7 left it, with the fixture's data. */
async function asVersionSeven(engine: Engine): Promise<void> {
  await migrate(engine);
  await importRecords(engine, readDataset(FIXTURE));
  for (const entity of TABLES) {
    await dropAllIndexes(engine.db, engine.dialect, entity);
    await createSecondaryIndexes(engine.db, engine.dialect, entity, false);
    if (carriesProject(entity)) await sql`alter table ${sql.table(entity.table)} drop column ${sql.ref(PROJECT_COLUMN)}`.execute(engine.db);
  }
  await sql`drop table change_log`.execute(engine.db);
  await sql`drop table if exists id_sequence`.execute(engine.db); // SQLite's sequences (migration 12)
  for (const column of ORGANISATION_COLUMNS) await sql`alter table organisation drop column ${sql.ref(column)}`.execute(engine.db); // migration 13
  await sql`alter table api_token drop column last_used_at`.execute(engine.db); // migration 14
  await engine.db.deleteFrom('schema_migration').where('version', '>=', 8).execute();
}

/** How the database defines an index (its CREATE INDEX statement). */
async function indexDefinition(engine: Engine, name: string): Promise<string> {
  const { rows } = engine.name === 'sqlite'
    ? await sql<{ definition: string }>`select sql as definition from sqlite_schema where name = ${name}`.execute(engine.db)
    : await sql<{ definition: string }>`select indexdef as definition from pg_indexes where indexname = ${name}`.execute(engine.db);
  return rows[0]?.definition ?? '';
}

for (const store of testStores()) {
  describe(`upgrade from schema version 7 (${store.name})`, () => {
    test('applies 8 to 19 in turn, fills the project kept on deep records, adds the organisation columns and when a key was last used, makes the indexes of ranges carry the project, gives the IATI prefixes their sort key', async () => {
      const database = await store.create();
      const engine = openEngine(database.url);
      try {
        await asVersionSeven(engine);
        assert.deepEqual(await migrate(engine), [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
        const carrying = TABLES.flatMap((entity) => secondaryIndexes(entity, engine.dialect).filter((index) => index.carries).map((index) => [index.name, projectColumnName(entity)!]));
        assert.ok(carrying.length > 50, 'indexes of ranges on project records');
        for (const [name, project] of carrying) assert.match(await indexDefinition(engine, name), new RegExp(`, id( desc)?, "?${project}"?\\)$`), name);
        const organisation = (await engine.db.introspection.getTables()).find((table) => table.name === 'organisation')!;
        for (const column of ORGANISATION_COLUMNS) assert.ok(organisation.columns.some((each) => each.name === column), column);
        assert.ok(organisation.columns.some((each) => each.name === 'iati_prefixes_sortkey'), 'the IATI prefixes\' sort key');
        const keys = (await engine.db.introspection.getTables()).find((table) => table.name === 'api_token')!;
        assert.ok(keys.columns.some((each) => each.name === 'last_used_at'));
        for (const entity of TABLES.filter(carriesProject)) {
          const rows = await engine.db.selectFrom(entity.table).select((eb) => [eb.fn.countAll().as('all'), eb.fn.count(PROJECT_COLUMN).as('kept')]).executeTakeFirstOrThrow();
          assert.ok(Number(rows.all) > 0, entity.table);
          assert.equal(Number(rows.kept), Number(rows.all), `${entity.table}: every record keeps its project`);
        }
        assert.deepEqual(await migrate(engine), []);
      } finally {
        await engine.close();
        await database.drop();
      }
    });

    test('18 fills the sort key of IATI prefixes a database held before it, so lookups by key find them', () => withFixtureDatabase(store, async (engine) => {
      // As a database of version 17 was: prefixes stored, no key beside them.
      await sql`alter table organisation drop column iati_prefixes_sortkey`.execute(engine.db);
      await sql`delete from schema_migration where version = 18`.execute(engine.db);
      await sql`update organisation set iati_prefixes = ${'NL-KVK; GB-CHC Élan'} where id = 3`.execute(engine.db);
      assert.deepEqual(await migrate(engine), [18]);
      const rows = await engine.db.selectFrom('organisation').select(['id', 'iati_prefixes_sortkey']).orderBy('id').execute();
      assert.deepEqual(rows, [
        { id: 1, iati_prefixes_sortkey: null },
        { id: 2, iati_prefixes_sortkey: null },
        { id: 3, iati_prefixes_sortkey: sortKey('NL-KVK; GB-CHC Élan') },
        { id: 4, iati_prefixes_sortkey: null },
      ]);
    }));

    test('19 makes the index of open projects on a database of 18 (PostgreSQL; SQLite finds a project by its rowid and has none)', () => withFixtureDatabase(store, async (engine) => {
      await sql`drop index if exists project_open`.execute(engine.db);
      await sql`delete from schema_migration where version = 19`.execute(engine.db);
      assert.equal(await indexDefinition(engine, 'project_open'), '');
      assert.deepEqual(await migrate(engine), [19]);
      const expected = store.name === 'postgres' ? 'CREATE INDEX project_open ON public.project USING btree (id) INCLUDE (is_public, publishing_status)' : '';
      assert.equal(await indexDefinition(engine, 'project_open'), expected);
    }));
  });
}
