/**
 * Import and export (dataset.md): a round trip gives back the same files; a broken dataset is
 * rejected with a message naming file, index, id and field, and nothing of it is imported.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { TABLES } from '../src/resources/index.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { exportDataset, readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { carriesProject } from '../src/store/columns.ts';
import { migrate } from '../src/store/migrations.ts';
import { carriedProjects, CARRYING_TABLES } from './support/carried-projects.ts';
import { FIXTURE, testStores } from './support/server.ts';

type Row = { [key: string]: unknown };

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'rsr-dataset-'));
}

/** A copy of the fixture with one file changed by `edit`. */
function brokenFixture(file: string, edit: (records: Row[]) => unknown): string {
  const dir = scratch();
  cpSync(FIXTURE, dir, { recursive: true });
  const path = join(dir, `${file}.json`);
  const records = JSON.parse(readFileSync(path, 'utf8')) as Row[];
  const changed = edit(records);
  writeFileSync(path, typeof changed === 'string' ? changed : JSON.stringify(changed ?? records));
  return dir;
}

async function tableCounts(engine: Engine): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const entity of TABLES) {
    const row = await engine.db.selectFrom(entity.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    counts[entity.table] = Number(row.n);
  }
  return counts;
}

const at = (records: Row[], id: number) => records.find((record) => record.id === id) as Row;

const BROKEN: [string, string, (records: Row[]) => unknown, string][] = [
  ['a code not in its list', 'budget_item', (r) => { at(r, 4).currency = 'XXX'; }, "budget_item.json[3] (id 4): currency 'XXX' is not a currency code"],
  ['a reference to nothing', 'link', (r) => { at(r, 2).project = 99; }, 'link.json[1] (id 2): project 99 does not exist'],
  ['text over its length', 'budget_item', (r) => { at(r, 2).other_extra = 'x'.repeat(31); }, 'budget_item.json[1] (id 2): other_extra has 31 characters, at most 30 are allowed'],
  ['an impossible date', 'transaction', (r) => { at(r, 1).value_date = '2023-02-30'; }, "transaction.json[0] (id 1): value_date '2023-02-30' is not a date (YYYY-MM-DD)"],
  ['a timestamp without offset', 'indicator_period_data_comment', (r) => { at(r, 1).created_at = '2024-01-15T10:30:00'; }, "indicator_period_data_comment.json[0] (id 1): created_at '2024-01-15T10:30:00' is not an ISO 8601 timestamp with a UTC offset"],
  ['an id used twice', 'keyword', (r) => [...r, { id: 2, label: 'Health', logo: null }], 'keyword.json[3] (id 2): id is already used, by an earlier record or in the database (import with --replace to replace its data)'],
  ['a name used twice, in another case', 'keyword', (r) => [...r, { id: 9, label: 'WATER', logo: null }], "keyword.json[3] (id 9): label 'WATER' is already used by id 1"],
  ['too many decimals', 'recipient_region', (r) => { at(r, 1).percentage = 60.55; }, 'recipient_region.json[0] (id 1): percentage 60.55 has more than 1 decimal places'],
  ['a value out of range', 'recipient_region', (r) => { at(r, 1).percentage = 100.5; }, 'recipient_region.json[0] (id 1): percentage 100.5 is more than 100'],
  ['periods out of order', 'budget_item', (r) => { at(r, 1).period_end = '2022-12-31'; }, 'budget_item.json[0] (id 1): period_end must not be before period_start'],
  ['a missing required field', 'link', (r) => { delete at(r, 1).url; }, 'link.json[0] (id 1): url is required'],
  ['null where null is not allowed', 'transaction', (r) => { at(r, 2).reference = null; }, 'transaction.json[1] (id 2): reference may not be null'],
  ['a wrong type', 'budget_item', (r) => { at(r, 1).amount = '1000.5'; }, "budget_item.json[0] (id 1): amount '1000.5' is not a number"],
  ['a bad nested location', 'organisation', (r) => { (at(r, 2).locations as Row[])[0].iati_country = 'QQ'; }, "organisation.json[1] (id 2): locations[0].iati_country 'QQ' is not a country code"],
  ['a primary location of another organisation', 'organisation', (r) => { at(r, 4).primary_location = 1; }, "organisation.json[3] (id 4): primary_location 1 is not one of the organisation's locations"],
  ['a parent project that does not exist', 'project', (r) => { at(r, 2).parent = 77; }, 'project.json[1] (id 2): parent 77 does not exist'],
  ['a record that is not an object', 'link', (r) => [...r, 7], 'link.json[2]: is not a JSON object'],
  ['a file that is not an array', 'link', () => '{"id": 1}', 'link.json: not a JSON array of records (Top-level object should be an array.)'],
  ['a file that is not JSON', 'link', () => '[{"id": 1,', 'link.json: not a JSON array of records (Parser cannot parse input: expected an object key)'],
];

for (const store of testStores()) {
  describe(`import and export (${store.name})`, () => {
    let engine: Engine;
    let drop: () => Promise<void>;
    let url: string;
    before(async () => {
      const database = await store.create();
      drop = database.drop;
      url = database.url;
      engine = openEngine(database.url);
      await migrate(engine);
    });
    after(async () => {
      await engine.close();
      await drop();
    });

    for (const [name, file, edit, message] of BROKEN) {
      test(`rejects ${name}, naming it exactly, and imports nothing`, async () => {
        const before = await tableCounts(engine);
        await assert.rejects(importRecords(engine, readDataset(brokenFixture(file, edit))), { message });
        assert.deepEqual(await tableCounts(engine), before);
      });
    }

    test('migrate is idempotent: a second run applies nothing and changes nothing', async () => {
      const before = await tableCounts(engine);
      assert.deepEqual(await migrate(engine), []);
      assert.deepEqual(await tableCounts(engine), before);
    });

    test('rejects a file that is not part of the format', async () => {
      const dir = brokenFixture('link', (r) => r);
      writeFileSync(join(dir, 'budgetitem.json'), '[]');
      assert.throws(() => readDataset(dir), { message: 'budgetitem.json: not a file of the dataset format' });
    });

    test('import then export gives back the same files, byte for byte', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      const out = scratch();
      await exportDataset(engine, out, 'Europe/Stockholm');
      for (const file of readdirSync(FIXTURE)) {
        assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(FIXTURE, file), 'utf8'), file);
      }
    });

    test('a second import of the same data clashes unless --replace', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      const before = await tableCounts(engine);
      await assert.rejects(importRecords(engine, readDataset(FIXTURE)), {
        message: 'project.json[0] (id 1): id is already used, by an earlier record or in the database (import with --replace to replace its data)',
      });
      assert.deepEqual(await tableCounts(engine), before);
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      assert.deepEqual(await tableCounts(engine), before);
    });

    test('an import adds to what is there: references may point to stored records', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      const dir = scratch();
      writeFileSync(join(dir, 'link.json'), JSON.stringify([{ id: 50, project: 2, kind: 'E', url: 'https://example.org/', caption: 'Added' }]));
      const counts = await importRecords(engine, readDataset(dir));
      assert.deepEqual([...counts], [['link', 1]]);
      assert.equal((await tableCounts(engine)).link, 3);
    });

    test('records several keys away from their project are imported with it, as following their path finds it', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      assert.deepEqual(TABLES.filter(carriesProject).map((entity) => entity.table).sort(), CARRYING_TABLES);
      const counts = await tableCounts(engine);
      assert.deepEqual(await carriedProjects(engine), Object.fromEntries(CARRYING_TABLES.map((table) => [table, { records: counts[table], wrong: 0 }])));
      assert.ok(CARRYING_TABLES.every((table) => counts[table] > 0), 'the fixture has records of each');
    });

    test('text is stored as given, whatever an array literal or a statement would make of it', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      const captions = ['NULL', '', 'a "quoted" word', 'back\\slash \\" and \\\\', '{braces}, commas, (parens)', "it's", 'two\nlines\ttab', 'Ünïcödé — 日本語 🌍', ' spaced '];
      const dir = scratch();
      writeFileSync(join(dir, 'link.json'), JSON.stringify(captions.map((caption, index) => ({ id: 60 + index, project: 2, kind: 'E', url: `https://example.org/${index}`, caption }))));
      await importRecords(engine, readDataset(dir));
      const stored = await engine.db.selectFrom('link').select(['caption', 'url']).where('id', '>=', 60).orderBy('id').execute();
      assert.deepEqual(stored, captions.map((caption, index) => ({ caption, url: `https://example.org/${index}` })));
    });

    test("a dataset's own version of a built-in report definition is no clash; one changed in the database is", async () => {
      const fresh = await store.create();
      const database = openEngine(fresh.url);
      try {
        await migrate(database);
        const dir = brokenFixture('reports', (records) => records.map((report) => (report.id === 1 ? { ...report, title: 'Results, as the dataset has them' } : report)));
        await importRecords(database, readDataset(dir));
        const stored = await database.db.selectFrom('report').select(['id', 'title']).orderBy('id').execute();
        assert.equal(stored.length, 9);
        assert.deepEqual(stored[0], { id: 1, title: 'Results, as the dataset has them' });
        // Report 1 is no longer the built-in one: a different version of it is a clash.
        const again = scratch();
        const reports = JSON.parse(readFileSync(join(FIXTURE, 'reports.json'), 'utf8')) as Row[];
        writeFileSync(join(again, 'reports.json'), JSON.stringify(reports.filter((report) => report.id === 1).map((report) => ({ ...report, title: 'Another title' }))));
        await assert.rejects(importRecords(database, readDataset(again)), {
          message: 'reports.json[0] (id 1): id is already used, by a different report in the database (import with --replace to replace it)',
        });
      } finally {
        await database.close();
        await fresh.drop();
      }
    });

    test('timestamps in any offset are stored as the same instant', async () => {
      const dir = scratch();
      cpSync(FIXTURE, dir, { recursive: true });
      const path = join(dir, 'indicator_period_data_comment.json');
      const comments = JSON.parse(readFileSync(path, 'utf8')) as Row[];
      at(comments, 1).created_at = '2024-01-15T09:30:00.123456Z';
      at(comments, 4).created_at = '2024-07-01T01:00:00-05:00';
      writeFileSync(path, JSON.stringify(comments));
      await importRecords(engine, readDataset(dir), { replace: true });
      const out = scratch();
      await exportDataset(engine, out, 'Europe/Stockholm');
      assert.equal(readFileSync(join(out, 'indicator_period_data_comment.json'), 'utf8'), readFileSync(join(FIXTURE, 'indicator_period_data_comment.json'), 'utf8'));
      const utc = scratch();
      await exportDataset(engine, utc, 'UTC');
      const rendered = JSON.parse(readFileSync(join(utc, 'indicator_period_data_comment.json'), 'utf8')) as Row[];
      assert.deepEqual(rendered.map((comment) => comment.created_at), ['2024-01-15T09:30:00.123456Z', '2024-03-31T00:59:59Z', null, '2024-07-01T06:00:00Z']);
    });
    test('an export reads one snapshot: what is written while it runs is in none of its files', async () => {
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
      // Another connection, synchronously, while the first file is being written: links and budget items gone.
      const sql = 'delete from link; delete from budget_item';
      const writeElsewhere = () => {
        if (store.name === 'sqlite') {
          const other = new SQLite(url.slice('sqlite:'.length));
          other.exec(sql);
          other.close();
        } else {
          execFileSync('psql', [url, '-qc', sql]);
        }
      };
      let written = false;
      const out = scratch();
      await exportDataset(engine, out, 'Europe/Stockholm', () => {
        if (!written) writeElsewhere();
        written = true;
      });
      assert.equal((await tableCounts(engine)).link, 0, 'the links are gone from the database');
      for (const file of readdirSync(FIXTURE)) assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(FIXTURE, file), 'utf8'), file);
      await importRecords(engine, readDataset(FIXTURE), { replace: true });
    });
  });
}
