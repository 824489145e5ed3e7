/**
 * Crash safety on every store: the server killed (SIGKILL) in the middle of a burst of writes,
 * and an `import --replace` killed part way, leave the database consistent. Every acknowledged
 * write is there in full, every other one is there in full or not at all, no reference dangles,
 * and a killed import leaves the data exactly as before it (or, had it committed, as after).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { storedFields } from '../src/resources/define.ts';
import { TABLES } from '../src/resources/index.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords, type DatasetSource } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { createToken } from '../src/store/users.ts';
import { runCli, spawnCli, startCliServer } from './support/cli.ts';
import { FIXTURE, request, testStores } from './support/server.ts';

const ORGANISATIONS = 40;
const FIRST_ORGANISATION = 1000;

/** Organisations that a deletion removes together with their locations, employments and partnerships, and clears from a transaction. */
function entangled(): DatasetSource[] {
  const ids = Array.from({ length: ORGANISATIONS }, (_, index) => FIRST_ORGANISATION + index);
  return [
    { file: 'organisation', label: 'organisation', records: ids.map((id) => ({ id, name: `Crash ${id}`, long_name: `Crash test ${id}`, locations: [0, 1].map((n) => ({ id: id * 10 + n, latitude: 1, longitude: 2, city: `City ${n}`, location_target: id })) })) },
    { file: 'employment', label: 'employment', records: ids.map((id) => ({ id, user: 2, organisation: id, group: 'Users', is_approved: true })) },
    { file: 'partnership', label: 'partnership', records: ids.flatMap((id) => [1, 2].map((project) => ({ id: id * 10 + project, project, organisation: id, iati_organisation_role: 4 }))) },
    { file: 'transaction', label: 'transaction', records: ids.map((id) => ({ id, project: 1, reference: `C${id}`, provider_organisation: id })) },
  ];
}

/** References that point nowhere, table by table (none in a consistent database). */
async function danglingReferences(engine: Engine): Promise<string[]> {
  const found: string[] = [];
  for (const entity of TABLES) {
    for (const [name, field] of storedFields(entity)) {
      if (!field.references || name === 'id') continue;
      const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(entity.table)} as t where t.${sql.ref(name)} is not null and not exists (select 1 from ${sql.table(field.references)} as r where r.id = t.${sql.ref(name)})`.execute(engine.db);
      if (Number(rows[0].count) > 0) found.push(`${entity.table}.${name}: ${rows[0].count}`);
    }
  }
  return found;
}

/** Row counts of every table and a hash of all their rows. */
async function snapshot(engine: Engine): Promise<{ counts: Record<string, number>; hash: string }> {
  const tables = await Promise.all(TABLES.map((entity) => engine.db.selectFrom(entity.table).selectAll().orderBy('id').execute()));
  return {
    counts: Object.fromEntries(TABLES.map((entity, index) => [entity.table, tables[index].length])),
    hash: createHash('sha256').update(JSON.stringify(tables)).digest('hex'),
  };
}

async function organisationState(engine: Engine, id: number): Promise<string> {
  const count = async (table: string, column: string) => (await engine.db.selectFrom(table).select('id').where(column, '=', id).execute()).length;
  const parts = [await count('organisation', 'id'), await count('organisation_location', 'location_target'), await count('employment', 'organisation'), await count('partnership', 'organisation'), await count('transaction', 'provider_organisation')];
  if (parts.join() === '1,2,1,2,1') return 'present';
  if (parts.join() === '0,0,0,0,0') return 'absent';
  return `half-deleted (${parts.join()})`;
}

for (const store of testStores()) {
  describe(`crash safety (${store.name})`, () => {
    test('SIGKILL during a burst of writes: acknowledged writes are whole, the rest whole or absent', async () => {
      const database = await store.create();
      try {
        const setup = openEngine(database.url);
        await migrate(setup);
        await importRecords(setup, [...readDataset(FIXTURE), ...entangled()]);
        const key = await createToken(setup, 'ana@example.org');
        await setup.close();

        const server = await startCliServer([], { DATABASE_URL: database.url });
        const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
        const acknowledged = { links: new Map<number, string>(), deleted: new Set<number>() };
        let stopped = false;
        const worker = async (lane: number) => {
          for (let step = 0; !stopped; step += 1) {
            const organisation = FIRST_ORGANISATION + lane * 10 + step;
            const caption = `crash ${lane}-${step}`;
            try {
              const [deleted, created] = await Promise.all([
                step < 10 ? request(server.base, `/rest/v1/organisation/${organisation}/`, { method: 'DELETE', headers }) : null,
                request(server.base, '/rest/v1/link/', { method: 'POST', headers, body: JSON.stringify({ project: 1, url: `https://example.org/crash/${lane}/${step}`, caption }) }),
              ]);
              if (deleted?.status === 204) acknowledged.deleted.add(organisation);
              if (created.status === 201) acknowledged.links.set(created.body.id, caption);
            } catch {
              return; // the server is gone
            }
          }
        };
        const lanes = Array.from({ length: 4 }, (_, lane) => worker(lane));
        while (acknowledged.deleted.size < 12) await new Promise((resolve) => setTimeout(resolve, 2));
        await server.kill();
        stopped = true;
        await Promise.all(lanes);
        assert.ok(acknowledged.deleted.size > 0 && acknowledged.deleted.size < ORGANISATIONS, `deleted ${acknowledged.deleted.size}`);

        const after = openEngine(database.url);
        try {
          assert.deepEqual(await danglingReferences(after), []);
          if (store.name === 'sqlite') assert.deepEqual((await sql<{ integrity_check: string }>`pragma integrity_check`.execute(after.db)).rows, [{ integrity_check: 'ok' }]);
          for (let id = FIRST_ORGANISATION; id < FIRST_ORGANISATION + ORGANISATIONS; id += 1) {
            const state = await organisationState(after, id);
            if (acknowledged.deleted.has(id)) assert.equal(state, 'absent', `organisation ${id}`);
            else assert.ok(state === 'present' || state === 'absent', `organisation ${id}: ${state}`);
          }
          const links = new Map((await after.db.selectFrom('link').select(['id', 'caption', 'url', 'project']).where('caption', 'like', 'crash %').execute()).map((row) => [row.id as number, row]));
          for (const [id, caption] of acknowledged.links) assert.equal(links.get(id)?.caption, caption, `link ${id}`);
          for (const row of links.values()) {
            const [lane, step] = String(row.caption).slice('crash '.length).split('-');
            assert.deepEqual([row.project, row.url], [1, `https://example.org/crash/${lane}/${step}`], 'a written link holds every field');
          }
        } finally {
          await after.close();
        }
        const again = await startCliServer([], { DATABASE_URL: database.url });
        try {
          const listed = await request(again.base, '/rest/v1/link/?caption__startswith=crash&limit=1');
          assert.ok(listed.body.count >= acknowledged.links.size);
        } finally {
          await again.stop();
        }
      } finally {
        await database.drop();
      }
    });

    test('SIGKILL during import --replace: the data is all the old or all the new', async () => {
      const dataset = join(mkdtempSync(join(tmpdir(), 'rsr-crash-')), 'demo');
      const demo = await runCli(['demo', dataset, '--scale', '0.3', '--seed', '5'], {});
      assert.equal(demo.code, 0, demo.stderr);
      const database = await store.create();
      try {
        const setup = openEngine(database.url);
        await migrate(setup);
        await importRecords(setup, readDataset(FIXTURE));
        const before = await snapshot(setup);
        await setup.close();
        // The replacement's own result, for comparison: the same files imported on their own.
        const reference = await store.create();
        const full = openEngine(reference.url);
        await migrate(full);
        await importRecords(full, readDataset(dataset), { replace: true });
        const replaced = await snapshot(full);
        await full.close();
        await reference.drop();

        const outcomes: string[] = [];
        for (const delay of [150, 400, 800]) {
          const importing = spawnCli(['import', dataset, '--replace'], { DATABASE_URL: database.url });
          await new Promise((resolve) => setTimeout(resolve, delay));
          const code = await importing.kill();
          const check = openEngine(database.url);
          try {
            const now = await snapshot(check);
            assert.deepEqual(await danglingReferences(check), []);
            if (now.hash === before.hash) outcomes.push(`killed after ${delay} ms: as before`);
            else {
              assert.deepEqual(now.counts, replaced.counts, `killed after ${delay} ms (exit ${code}): neither the old data nor the new`);
              outcomes.push(`killed after ${delay} ms: replaced`);
              // The next round starts from the old data again.
              await importRecords(check, readDataset(FIXTURE), { replace: true });
            }
          } finally {
            await check.close();
          }
        }
        assert.ok(outcomes.some((outcome) => outcome.endsWith('as before')), outcomes.join('; '));
      } finally {
        await database.drop();
      }
    });
  });
}
