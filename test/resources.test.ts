/**
 * Every list of the seed against the hand-written fixture (test/fixtures/small): each record's
 * fields, order and types as the seed shows them, derived labels as written by hand in the
 * fixture, the default order, and what anonymous callers may see.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { seedProblems, SEED_FIELDS } from './support/seed.ts';
import { FIXTURE, request, testStores, useServer } from './support/server.ts';

type Record = { [key: string]: unknown };

/** Visible ids in default order, worked out by hand from the fixture (private project 3, unpublished 4). */
const EXPECTED_IDS: { [resource: string]: number[] } = {
  budget_item: [1, 2, 3, 4, 7, 8, 9, 10, 11],
  transaction: [1, 2],
  organisation: [1, 3, 2, 4], // Akvo, akvo labs, Élan Water, Zeta (D7: accents and case ignored)
  indicator_period_data_comment: [4, 1], // newest first
  recipient_region: [1, 2],
  project_custom_field: [1, 2, 3],
  administrative_location: [1, 2, 4],
  link: [1, 2],
  disaggregation_target: [1, 2, 4],
  keyword: [2, 3, 1], // agriculture, Énergie, Water
  reports: [4, 6, 29, 28, 16, 3, 13, 1, 2], // the seed's order
  my_projects: [],
  humanitarian_scope: [1],
};

function fixtureRecords(resource: string): Record[] {
  return JSON.parse(readFileSync(`${FIXTURE}${resource}.json`, 'utf8')) as Record[];
}

/** resources.md: anonymous callers get no e-mail addresses and no organisation permissions. */
function anonymousView(record: Record): Record {
  const view = { ...record };
  if (view.user_details) view.user_details = { ...(view.user_details as Record), email: '' };
  if (view.current_user_permissions) view.current_user_permissions = { can_create_iati_export: false, can_edit_iati_export: false };
  return view;
}

for (const store of testStores()) {
  describe(`resources (${store.name})`, () => {
    const server = useServer(store);

    for (const [resource, ids] of Object.entries(EXPECTED_IDS)) {
      test(`${resource}: the visible records, in the default order, exactly`, async () => {
        const answer = await request(server.base, `/rest/v1/${resource}/?limit=1000`);
        assert.equal(answer.status, 200);
        assert.deepEqual(Object.keys(answer.body), ['count', 'next', 'previous', 'results']);
        assert.equal(answer.body.count, ids.length);
        assert.deepEqual(answer.body.results.map((record: Record) => record.id), ids);
        if (resource === 'my_projects') return;
        const byId = new Map(fixtureRecords(resource).map((record) => [record.id, anonymousView(record)]));
        for (const record of answer.body.results as Record[]) {
          assert.deepEqual(record, byId.get(record.id), `${resource} ${record.id}`);
          // Same key order as the fixture (deepEqual ignores order).
          assert.deepEqual(Object.keys(record), Object.keys(byId.get(record.id) as Record));
        }
      });

      if (SEED_FIELDS[resource]) {
        test(`${resource}: every field of the seed, in its order, with its type`, async () => {
          const answer = await request(server.base, `/rest/v1/${resource}/?limit=1000`);
          for (const record of answer.body.results as Record[]) assert.deepEqual(seedProblems(resource, record), [], `${resource} ${record.id}`);
        });
      }

      test(`${resource}: one record on its own URL, hidden ones 404`, async () => {
        for (const id of ids) {
          const answer = await request(server.base, `/rest/v1/${resource}/${id}/`);
          assert.equal(answer.status, 200);
          assert.equal(answer.body.id, id);
          assert.equal(answer.headers.get('allow'), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
        }
        const hidden = resource === 'my_projects' ? [] : fixtureRecords(resource).map((record) => record.id as number).filter((id) => !ids.includes(id));
        for (const id of [...hidden, 999999]) {
          const answer = await request(server.base, `/rest/v1/${resource}/${id}/`);
          assert.equal(answer.status, 404, `${resource} ${id}`);
          assert.deepEqual(answer.body, { detail: 'Not found.' });
        }
      });
    }

    test('the list and the record URL give the same record', async () => {
      const list = await request(server.base, '/rest/v1/transaction/');
      const one = await request(server.base, '/rest/v1/transaction/1/');
      assert.deepEqual(one.body, list.body.results[0]);
    });
  });
}
