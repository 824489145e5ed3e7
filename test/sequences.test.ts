/**
 * Generated ids after imports that fail (issue: data safety). PostgreSQL never rolls a sequence
 * back: an import that moved one and then failed would leave it below ids that exist, and later
 * creates would clash with them. Sequences move only after a commit, are checked at start-up,
 * and a clash on an id is mended and the write made again: never a 500.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { TABLES } from '../src/resources/index.ts';
import type { Engine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { createToken } from '../src/store/users.ts';
import { FIXTURE, request, testStores, useServer } from './support/server.ts';

/** Tables whose next generated id is not above their largest id (PostgreSQL sequences; SQLite has none behind). */
async function sequencesBehind(engine: Engine): Promise<string[]> {
  if (engine.name !== 'postgres') return [];
  const behind: string[] = [];
  for (const entity of TABLES) {
    const { rows: [{ sequence }] } = await sql<{ sequence: string }>`select pg_get_serial_sequence(${`"${entity.table}"`}, 'id') as sequence`.execute(engine.db);
    const { rows: [state] } = await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from ${sql.raw(sequence)}`.execute(engine.db);
    const { rows: [{ largest }] } = await sql<{ largest: string | null }>`select max(id) as largest from ${sql.table(entity.table)}`.execute(engine.db);
    const next = Number(state.last_value) + (state.is_called ? 1 : 0);
    if (largest !== null && next <= Number(largest)) behind.push(`${entity.table}: next ${next}, largest ${largest}`);
  }
  return behind;
}

for (const store of testStores()) {
  describe(`generated ids (${store.name})`, () => {
    const server = useServer(store);
    let key = '';
    before(async () => {
      key = await createToken(server.engine, 'ana@example.org');
      // Links 3-40 beside the fixture's 1 and 2: a replacement with fewer links would put the sequence among them.
      const dir = mkdtempSync(join(tmpdir(), 'rsr-links-'));
      writeFileSync(join(dir, 'link.json'), JSON.stringify(Array.from({ length: 38 }, (_, index) => ({ id: index + 3, project: 1, url: `https://example.org/${index + 3}` }))));
      await importRecords(server.engine, readDataset(dir));
    });

    const createLinks = async (count: number) => {
      const statuses: number[] = [];
      for (let index = 0; index < count; index += 1) {
        const answer = await request(server.base, '/rest/v1/link/', {
          method: 'POST',
          headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ project: 1, url: `https://example.org/new/${index}` }),
        });
        statuses.push(answer.status);
      }
      return statuses;
    };

    test('an import --replace that fails leaves every sequence at or above the largest id; creates go on', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rsr-failing-'));
      cpSync(FIXTURE, dir, { recursive: true });
      // Fails on its last file, after links (ids 1 and 2 only) were loaded.
      const scopes = JSON.parse(readFileSync(join(dir, 'humanitarian_scope.json'), 'utf8')) as object[];
      writeFileSync(join(dir, 'humanitarian_scope.json'), JSON.stringify([...scopes, { id: 99, project: 1, type: '7' }]));
      await assert.rejects(importRecords(server.engine, readDataset(dir), { replace: true }), /humanitarian_scope\.json\[\d+\] \(id 99\): type/);
      assert.deepEqual(await sequencesBehind(server.engine), []);
      assert.deepEqual(await createLinks(20), Array.from({ length: 20 }, () => 201));
    });

    test('a sequence set back behind its table is mended at start-up, and by a write that clashes', async () => {
      if (store.name !== 'postgres') return;
      const rewind = () => sql`select setval(pg_get_serial_sequence('"link"', 'id'), 1, false)`.execute(server.engine.db);
      await rewind();
      assert.deepEqual(await createLinks(5), [201, 201, 201, 201, 201], 'a clash on the id is mended and the write made again');
      await rewind();
      assert.notDeepEqual(await sequencesBehind(server.engine), []);
      await migrate(server.engine);
      assert.deepEqual(await sequencesBehind(server.engine), [], 'migrate (run at every start) moves it on');
    });
  });
}
