/**
 * `import --replace --keep-users` next to a serving instance, on every store (real processes):
 * readers keep being answered throughout (no lock held against them, no event loop held),
 * writes made meanwhile are refused with 503 and Retry-After rather than lost to the
 * replacement, the import completes (no deadlock), and the instance shows the new data at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openEngine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { runCli, spawnCli, startCliServer } from './support/cli.ts';
import { request, testStores } from './support/server.ts';

async function demo(seed: number): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'rsr-live-')), 'demo');
  const made = await runCli(['demo', dir, '--scale', '0.3', '--seed', String(seed)], {});
  assert.equal(made.code, 0, made.stderr);
  return dir;
}

for (const store of testStores()) {
  describe(`live import (${store.name})`, () => {
    test('readers are answered throughout, writes meanwhile are 503, the new data shows at once', async () => {
      const [before, replacement] = [await demo(5), await demo(6)];
      // The replacement keeps the database's users: it holds none of its own.
      for (const file of ['user.json', 'employment.json']) rmSync(join(replacement, file));
      const expected = (JSON.parse(readFileSync(join(replacement, 'budget_item.json'), 'utf8')) as unknown[]).length;
      const database = await store.create();
      try {
        const setup = openEngine(database.url);
        await migrate(setup);
        await importRecords(setup, readDataset(before));
        await createUser(setup, { email: 'operator@example.org', firstName: 'Op', lastName: 'Erator', admin: true });
        const key = await createToken(setup, 'operator@example.org');
        await setup.close();
        const server = await startCliServer([], { DATABASE_URL: database.url });
        try {
          const reads: number[] = [];
          const statuses = new Map<string, number>();
          const tally = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
          let running = true;
          let serial = 0;
          const reader = async () => {
            while (running) {
              const started = performance.now();
              const answer = await request(server.base, `/rest/v1/budget_item/?_=${(serial += 1)}`);
              reads.push(performance.now() - started);
              tally(`GET ${answer.status}`);
            }
          };
          const writer = async () => {
            while (running) {
              const answer = await request(server.base, '/rest/v1/keyword/', { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: `Live ${(serial += 1)}` }) });
              tally(`POST ${answer.status}`);
              if (answer.status === 503) assert.equal(answer.headers.get('retry-after'), '1');
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          };
          const loops = [reader(), reader(), writer()];
          await new Promise((resolve) => setTimeout(resolve, 300));
          const importing = spawnCli(['import', replacement, '--replace', '--keep-users'], { DATABASE_URL: database.url });
          const code = await importing.exited;
          const count = (await request(server.base, `/rest/v1/budget_item/?after=import`, { headers: { authorization: `Token ${key}` } })).body.count;
          running = false;
          await Promise.all(loops);
          const longest = Math.max(...reads);
          process.stderr.write(`live import (${store.name}): longest read ${longest.toFixed(0)} ms over ${reads.length} reads; ${JSON.stringify(Object.fromEntries(statuses))}\n`);
          assert.equal(code, 0, importing.output());
          assert.equal(count, expected, 'the new data shows at once');
          assert.deepEqual([...statuses.keys()].filter((what) => !['GET 200', 'POST 201', 'POST 503'].includes(what)), [], JSON.stringify([...statuses]));
          assert.ok(longest < 2500, `a read waited ${longest.toFixed(0)} ms`);
          const after = await request(server.base, '/rest/v1/keyword/', { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'After the import' }) });
          assert.equal(after.status, 201, 'the kept key still works');
        } finally {
          await server.stop();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
