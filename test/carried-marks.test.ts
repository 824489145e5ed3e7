/**
 * Deep pages read from noted positions (store/pages/seek.ts) after writes that move records
 * around them: the marks of a list whose records hold their project are carried to each new
 * version, placed anew by the projects the change log names. Every page must be the page a walk
 * from the list's start gives, for the anonymous caller and a signed-in one, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateDemo } from '../demo/generate.ts';
import { createDemoUsers } from '../src/commands/demo.ts';
import { changeData } from '../src/store/data-version.ts';
import { createToken } from '../src/store/users.ts';
import { request, startServer, testStores, type TestServer } from './support/server.ts';

type Row = { [key: string]: unknown };

/** Orders with marks (one field then id, or id alone; a nullable field descending), each with a longer order that is the same but has none. */
const ORDERS: [string, string][] = [
  ['-amount', '-amount,id,currency'], ['amount', 'amount,id,currency'], ['id', 'id,amount'], ['-id', '-id,amount'],
  ['label', 'label,id,amount'], ['-type', '-type,id,amount'], ['project', 'project,id,amount'], ['-value_date', '-value_date,id,amount'],
];
/** Pages (30 records) from the ninth position on, to past the 250th. */
const PAGES = [9, 17, 42, 100, 250, 290];

for (const store of testStores()) {
  describe(`marks carried across writes (${store.name})`, () => {
    let server: TestServer;
    let admin: Record<string, string>;
    let editor: Record<string, string>;
    before(async () => {
      server = await startServer(store, generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
      await createDemoUsers(server.engine, false);
      admin = { authorization: `Token ${await createToken(server.engine, 'admin@demo.rsr-api.org')}`, 'content-type': 'application/json' };
      editor = { authorization: `Token ${await createToken(server.engine, 'editor@demo.rsr-api.org')}` };
      // Deep pages read in SQL (not in memory), and marks noted at once.
      server.reader.settledMs = Infinity;
      server.reader.seeks.lastingMs = 0;
    });
    after(() => server.close());

    const ids = async (path: string, headers: Record<string, string> = {}) => {
      const answer = await request(server.base, path, { headers });
      return answer.status === 404 ? [] : (answer.body.results as Row[]).map((row) => row.id);
    };

    /** Every page of every order, as the anonymous caller and the editor see it, against the walk from the list's start. */
    async function pagesAgree(when: string): Promise<void> {
      for (const [caller, headers] of [['anonymous', {}], ['editor', editor]] as const) {
        for (const [order, walked] of ORDERS) {
          for (const page of PAGES) {
            const path = `/rest/v1/budget_item/?ordering=${order}&page=${page}`;
            const expected = await ids(`/rest/v1/budget_item/?ordering=${walked}&page=${page}`, headers);
            assert.deepEqual(await ids(path, headers), expected, `${when}, ${caller}: ${path}`);
          }
        }
      }
    }

    const write = async (method: string, path: string, body?: Row) => {
      const answer = await request(server.base, path, { method, headers: admin, body: body && JSON.stringify(body) });
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
      return answer.body as Row;
    };

    test('pages after moves, inserts, deletes and a move to another project are the walk\'s, from carried marks', async () => {
      await pagesAgree('before any write');
      const carriedBefore = server.reader.seeks.carries;
      const items = (await request(server.base, '/rest/v1/budget_item/?ordering=id&limit=40')).body.results as Row[];
      const [first, second, third] = items;

      // Moved to the start and the end of the amount's order, and deep into the label's.
      await write('PATCH', `/rest/v1/budget_item/${first.id}/`, { amount: '0.01' });
      await write('PATCH', `/rest/v1/budget_item/${second.id}/`, { amount: '9999999.99', value_date: '2001-01-01' });
      await pagesAgree('after two moves');
      assert.ok(server.reader.seeks.carries > carriedBefore, 'marks carried');

      // 260 new records in one project, ahead of every mark in the amount's order: a mark's place
      // moves past the page that used it, which then starts from the one before.
      for (let index = 0; index < 260; index += 1) await write('POST', '/rest/v1/budget_item/', { project: third.project, amount: '0.02', currency: 'EUR' });
      await pagesAgree('after 260 new records');

      // Deleted: the records before the marks are fewer.
      for (const item of items.slice(3, 23)) await write('DELETE', `/rest/v1/budget_item/${item.id}/`);
      await pagesAgree('after 20 deletes');

      // Moved to another project (both named by the log): one the anonymous caller cannot see.
      const hidden = [...generateDemo({ scale: 1, seed: 1 }).find((source) => source.entity === 'project')!.records].find((project) => !project.is_public)!;
      for (const item of items.slice(23, 33)) await write('PATCH', `/rest/v1/budget_item/${item.id}/`, { project: hidden.id });
      await pagesAgree('after moves to a private project');
    });

    test('marks deeper than 10,000 records are not carried (their walk keeps no projects), and pages there are still the walk\'s', async () => {
      // As the administrator: 10,437 budget items; offset 10,200 wants the 41st mark, record 10,250.
      const path = (order: string) => `/rest/v1/budget_item/?ordering=${order}&limit=100&page=103`;
      const deep = await ids(path('-amount'), admin);
      assert.equal(deep.length, 100);
      assert.deepEqual(deep, await ids(path('-amount,id,currency'), admin));
      const carried = server.reader.seeks.carries;
      const [item] = (await request(server.base, '/rest/v1/budget_item/?ordering=-amount&limit=1', { headers: admin })).body.results as Row[];
      await write('PATCH', `/rest/v1/budget_item/${item.id}/`, { amount: '0.03' });
      assert.deepEqual(await ids(path('-amount'), admin), await ids(path('-amount,id,currency'), admin), 'after a write');
      assert.equal(server.reader.seeks.carries, carried, 'noted anew, not carried');
    });

    test('a project turned private is not carried across (another table changed): its records leave every page', async () => {
      const [item] = (await request(server.base, '/rest/v1/budget_item/?ordering=-amount&limit=1')).body.results as Row[];
      await pagesAgree('before');
      const carried = server.reader.seeks.carries;
      await changeData(server.engine, ['project'], async (trx, log) => {
        await trx.updateTable('project').set({ is_public: server.engine.dialect.toDb({ type: 'bool' } as never, false) } as never).where('id', '=', Number(item.project)).execute();
        log.projects('project', [Number(item.project)]);
      });
      await pagesAgree('after a project turned private');
      assert.equal(server.reader.seeks.carries, carried, 'noted anew, not carried');
      const seen = await ids('/rest/v1/budget_item/?ordering=-amount&page=1');
      assert.ok(!seen.includes(item.id), 'the record is hidden');
    });
  });
}
