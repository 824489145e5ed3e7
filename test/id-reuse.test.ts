/**
 * Ids are never handed out twice (issue 25, item 3), on every store. A deleted record's URL that
 * came back with other content would mislead clients and caches keyed by URL or ETag; RSR's
 * PostgreSQL sequences, and Django even on SQLite, never reuse an id. So: the newest record of
 * every writable resource deleted, the next create gets a new id (the same one on both stores);
 * nested records too; imports with explicit ids, and a replacing import from another
 * connection, leave creates above every id ever used; writers on two connections at once never
 * take the same id; and a database made before (schema version 11) keeps its ids and gets the
 * same guarantee through migration 12.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { storedFields } from '../src/resources/define.ts';
import { RESOURCE_BY_NAME, RESOURCES, TABLES } from '../src/resources/index.ts';
import organisationLocation from '../src/resources/organisation_location.ts';
import { insertRecord } from '../src/store/columns.ts';
import { changeData } from '../src/store/data-version.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { importRecords, type DatasetSource } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { saveRecord } from '../src/store/save.ts';
import { createToken } from '../src/store/users.ts';
import { FIXTURE, request, testStores, useServer, withFixtureDatabase } from './support/server.ts';

type Json = Record<string, unknown>;

/** A valid record of every writable resource, as an administrator creates it over the fixture. */
const BODIES: Record<string, Json> = {
  budget_item: { project: 1, label: 38, other_extra: 'Boats', amount: '1234.50', currency: 'USD', type: '1' },
  transaction: { project: 1, reference: 'TX-9', transaction_type: '3', value: 10, currency: 'EUR', provider_organisation: 2 },
  organisation: { name: 'Nuevo', long_name: 'Nuevo Instituto', currency: 'EUR', url: 'https://nuevo.example.org/' },
  indicator_period_data_comment: { data: 1, comment: 'Checked.' },
  recipient_region: { project: 1, region: '89', text: 'Europe, regional', percentage: 10 },
  project_custom_field: { project: 1, name: 'Phase', section: 2, order: 3, value: 'One' },
  administrative_location: { location: 1, vocabulary: 'A4', code: 'KE', level: 2 },
  link: { project: 1, url: 'https://example.org/report', caption: 'Report' },
  disaggregation_target: { period: 1, dimension_value: 1, value: 5 },
  keyword: { label: 'Health' },
  reports: { name: 'budget-table', title: 'Budget table', url: '/py-reports/project/{project}/budget/?format={format}', formats: ['excel'] },
  humanitarian_scope: { project: 1, code: 'FL-2024', type: '1', vocabulary: '1-2', text: 'Floods' },
};

const WRITABLE = RESOURCES.filter((resource) => !resource.readOnly);

/** The largest stored id of a table (0 when empty). */
async function largestId(engine: Engine, table: string): Promise<number> {
  const { rows: [{ largest }] } = await sql<{ largest: number | string | null }>`select max(id) as largest from ${sql.table(table)}`.execute(engine.db);
  return Number(largest ?? 0);
}

/** Links with these ids, for an import: the fixture's project 1 holds them. */
const linkSource = (ids: readonly number[]): DatasetSource => ({
  file: 'link', label: 'link.json', records: ids.map((id) => ({ id, project: 1, url: `https://example.org/imported/${id}` })),
});

for (const store of testStores()) {
  describe(`ids never handed out twice (${store.name})`, () => {
    const server = useServer(store);
    let key = '';
    let serial = 0;
    before(async () => {
      key = await createToken(server.engine, 'ana@example.org');
    });

    const call = (method: string, path: string, body?: Json) => request(server.base, path, {
      method,
      headers: { authorization: `Token ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body && JSON.stringify(body),
    });
    /** A new record of the resource (its unique fields told apart from earlier ones); its id. */
    const create = async (name: string) => {
      const body = { ...BODIES[name] };
      serial += 1;
      for (const [field, declared] of storedFields(RESOURCE_BY_NAME.get(name)!)) {
        if (declared.unique && typeof body[field] === 'string') body[field] = `${body[field]}-${serial}`;
      }
      const answer = await call('POST', `/rest/v1/${name}/`, body);
      assert.equal(answer.status, 201, `${name}: ${answer.text}`);
      return answer.body.id as number;
    };
    const remove = async (name: string, id: number) => assert.equal((await call('DELETE', `/rest/v1/${name}/${id}/`)).status, 204, `${name} ${id}`);

    test('every writable resource is tried below', () => {
      assert.deepEqual(Object.keys(BODIES).sort(), WRITABLE.map((resource) => resource.name).sort());
    });

    for (const resource of WRITABLE) {
      test(`${resource.name}: the newest record deleted, the next create gets the next id, not its id`, async () => {
        const largest = await largestId(server.engine, resource.table);
        const first = await create(resource.name);
        assert.equal(first, largest + 1, 'the newest record');
        await remove(resource.name, first);
        const second = await create(resource.name);
        // The same id on both stores: a failed write takes none on either.
        assert.equal(second, first + 1);
        assert.equal((await call('GET', `/rest/v1/${resource.name}/${first}/`)).status, 404, 'the deleted record stays gone');
      });
    }

    test('nested records: the locations deleted with their organisation keep their ids used', async () => {
      // The fixture's newest location (4) belongs to organisation 4.
      const newest = await largestId(server.engine, organisationLocation.table);
      const owner = await server.engine.db.selectFrom(organisationLocation.table).select('location_target').where('id', '=', newest).executeTakeFirstOrThrow();
      await remove('organisation', owner.location_target as number);
      assert.ok((await largestId(server.engine, organisationLocation.table)) < newest);
      // Locations come in by imports and go with their organisation; a location the service
      // writes itself goes through insertRecord without an id, as every record it creates.
      const location = { latitude: null, longitude: null, city: 'Nairobi', state: '', address_1: '', address_2: '', postcode: '', iati_country: 'KE', country: null, location_target: 1 };
      const id = await changeData(server.engine, [organisationLocation.table], (trx) => insertRecord(server.engine, trx, organisationLocation, location));
      assert.equal(id, newest + 1);
    });

    test('records imported with their ids, then creates: above every id ever used, deleted ones included', async () => {
      const created = await create('link');
      await remove('link', created);
      // Explicit ids above the one deleted; the newest of them deleted through the API too.
      await importRecords(server.engine, [linkSource([created + 5, created + 6])]);
      await remove('link', created + 6);
      assert.equal(await create('link'), created + 7);
      // Explicit ids below the largest used: creates go on above all of them.
      await importRecords(server.engine, [linkSource([created + 1, created + 2])]);
      assert.equal(await create('link'), created + 8);
    });

    test('a replacing import from another connection: later creates stay above every id handed out before', async () => {
      // Every writable table's newest record created, then deleted: the dataset holds fewer and lower ids.
      const used = new Map<string, number>();
      for (const resource of WRITABLE) {
        const id = await create(resource.name);
        used.set(resource.name, id);
        await remove(resource.name, id);
      }
      // As `import --replace --keep-users` would, in another process while this one serves.
      const importer = openEngine(server.url);
      try {
        await importRecords(importer, readDataset(FIXTURE).filter((source) => !['user', 'employment'].includes(source.file)), { replace: true, keepUsers: true });
      } finally {
        await importer.close();
      }
      for (const resource of WRITABLE) {
        assert.ok((await largestId(server.engine, resource.table)) < used.get(resource.name)!, `${resource.name}: replaced by lower ids`);
        assert.equal(await create(resource.name), used.get(resource.name)! + 1, resource.name);
      }
    });

    test('writers on two connections at once (two worker processes) never take the same id', async () => {
      const link = RESOURCE_BY_NAME.get('link')!;
      const ana = await server.engine.db.selectFrom('user').select('id').where('email', '=', 'ana@example.org').executeTakeFirstOrThrow();
      const caller = { userId: ana.id as number, isAdmin: true, organisations: new Map() };
      const largest = await largestId(server.engine, link.table);
      const other = openEngine(server.url);
      try {
        const writes = [server.engine, other].flatMap((engine) => Array.from({ length: 15 }, (_, index) => saveRecord(engine, link, caller, 'create', null, { project: 1, url: `https://example.org/both/${engine === other ? 'b' : 'a'}${index}` })));
        const ids = (await Promise.all(writes)).sort((a, b) => a - b);
        assert.deepEqual(ids, Array.from({ length: 30 }, (_, index) => largest + 1 + index), 'each id once, none skipped');
      } finally {
        await other.close();
      }
    });
  });

  describe(`migration 12 on a database made before it (${store.name})`, () => {
    test('keeps every id; from then on the newest record deleted, its id is not handed out again', () => withFixtureDatabase(store, async (engine) => {
      // Schema version 11: SQLite kept no sequences of its own (PostgreSQL had its identity columns).
      if (engine.name === 'sqlite') await sql`drop table id_sequence`.execute(engine.db);
      await engine.db.deleteFrom('schema_migration').where('version', '=', 12).execute();
      const ids = async () => Promise.all(TABLES.map((entity) => engine.db.selectFrom(entity.table).select('id').orderBy('id').execute()));
      const before = await ids();

      assert.deepEqual(await migrate(engine), [12]);
      assert.deepEqual(await ids(), before, 'no record changed its id');
      assert.deepEqual(await migrate(engine), []);

      const newest = await largestId(engine, 'link');
      await changeData(engine, ['link'], (trx) => trx.deleteFrom('link').where('id', '=', newest).execute());
      const link = RESOURCE_BY_NAME.get('link')!;
      const created = await saveRecord(engine, link, { userId: 1, isAdmin: true, organisations: new Map() }, 'create', null, { project: 1, url: 'https://example.org/after-12' });
      assert.equal(created, newest + 1);
    }));
  });
}
