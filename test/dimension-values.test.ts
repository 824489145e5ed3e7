/**
 * /explorer/api/dimension-values/: the names the charts label disaggregation targets with, paged
 * and filtered as the lists are, and only those of projects the caller may see.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { DatasetSource } from '../src/store/import.ts';
import { createToken } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

function dataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  return [
    records('user', [{ id: 1, email: 'admin@example.org', is_admin: true }]),
    records('project', [{ id: 1, title: 'Open', is_public: true, publishing_status: 'published' }, { id: 2, title: 'Private', is_public: false, publishing_status: 'published' }]),
    records('indicator_dimension_name', [{ id: 1, project: 1, name: 'Sex' }, { id: 2, project: 2, name: 'Age' }]),
    records('indicator_dimension_value', [{ id: 1, name: 1, value: 'Female' }, { id: 2, name: 1, value: 'Male' }, { id: 3, name: 2, value: 'Under 18' }]),
  ];
}

for (const store of testStores()) {
  describe(`dimension values for the explorer (${store.name})`, () => {
    const server = useServer(store, dataset);
    let admin = '';
    before(async () => {
      admin = await createToken(server.engine, 'admin@example.org');
    });

    test('each value with its dimension\u2019s name, as the caller may see it, paged and filtered by project', async () => {
      const anonymous = await request(server.base, '/explorer/api/dimension-values/');
      assert.equal(anonymous.status, 200);
      assert.deepEqual(anonymous.body, {
        count: 2,
        next: null,
        previous: null,
        results: [{ id: 1, name: 1, dimension: 'Sex', value: 'Female' }, { id: 2, name: 1, dimension: 'Sex', value: 'Male' }],
      });
      const all = await request(server.base, '/explorer/api/dimension-values/?limit=2', { headers: { authorization: `Token ${admin}` } });
      assert.equal(all.body.count, 3);
      assert.equal(all.body.next, `${server.base}/explorer/api/dimension-values/?limit=2&page=2`);
      assert.deepEqual((await request(server.base, '/explorer/api/dimension-values/?limit=2&page=2', { headers: { authorization: `Token ${admin}` } })).body.results, [{ id: 3, name: 2, dimension: 'Age', value: 'Under 18' }]);
      assert.equal((await request(server.base, '/explorer/api/dimension-values/?name__project=2')).body.count, 0, 'a private project\u2019s values are not told');
      assert.equal((await request(server.base, '/explorer/api/dimension-values/?name__project=2', { headers: { authorization: `Token ${admin}` } })).body.count, 1);
      assert.equal((await request(server.base, '/explorer/api/dimension-values/?name__project=abc')).status, 400);
    });
  });
}
