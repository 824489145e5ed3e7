/** `ordering` as http.md states it: keys, direction, NULL placement, D7 text order, the id tie-breaker. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pagingDataset, pagingItems, type PagingItem } from './support/datasets.ts';
import { request, testStores, useServer } from './support/server.ts';

type Key = keyof PagingItem;
const VISIBLE = pagingItems().filter((item) => item.project === 1);

/** decision D7's key, written out here as the spec states it. */
const d7 = (text: string) => text.normalize('NFD').replace(/\p{Mn}/gu, '').toLowerCase();

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [d7(a), d7(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return (a as number) - (b as number);
}

/** The expected order: NULLs last ascending and first descending, then id ascending. */
function sorted(terms: [Key, boolean][]): number[] {
  return [...VISIBLE]
    .sort((a, b) => {
      for (const [key, descending] of terms) {
        const [x, y] = [a[key], b[key]];
        if (x === y) continue;
        if (x === null) return descending ? -1 : 1;
        if (y === null) return descending ? 1 : -1;
        const order = compareValues(x, y);
        if (order !== 0) return descending ? -order : order;
      }
      return a.id - b.id;
    })
    .map((item) => item.id);
}

for (const store of testStores()) {
  describe(`ordering (${store.name})`, () => {
    const server = useServer(store, pagingDataset);

    /** Every page of the list, walked through its `next` links. */
    async function walk(query: string): Promise<number[]> {
      const seen: number[] = [];
      let url: string | null = `${server.base}/rest/v1/budget_item/?${query}`;
      while (url) {
        const answer = await request(url, '');
        assert.equal(answer.status, 200);
        seen.push(...answer.body.results.map((record: { id: number }) => record.id));
        url = answer.body.next;
      }
      return seen;
    }

    const cases: [string, [Key, boolean][]][] = [
      ['amount', [['amount', false]]],
      ['-amount', [['amount', true]]],
      ['type,-amount', [['type', false], ['amount', true]]],
      [' -type , amount ', [['type', true], ['amount', false]]],
      ['other_extra', [['other_extra', false]]],
      ['-other_extra,-id', [['other_extra', true], ['id', true]]],
      ['nope,-amount', [['amount', true]]],
      ['project,type', [['project', false], ['type', false]]],
    ];
    for (const [ordering, terms] of cases) {
      test(`ordering=${ordering}: every page in order, none seen twice or missed`, async () => {
        const seen = await walk(`ordering=${encodeURIComponent(ordering)}&limit=97`);
        assert.deepEqual(seen, sorted(terms));
      });
    }

    test('ties across page boundaries: walking pages of 7 by `type` sees each record once', async () => {
      const seen = await walk('ordering=type&limit=7');
      assert.equal(new Set(seen).size, VISIBLE.length);
      assert.deepEqual(seen, sorted([['type', false]]));
    });

    for (const ordering of ['nope', 'label_label', '-currency_label', '', ',', '-']) {
      test(`ordering=${ordering} (unknown, derived or empty) falls back to the default order`, async () => {
        const { body } = await request(server.base, `/rest/v1/budget_item/?ordering=${encodeURIComponent(ordering)}`);
        assert.deepEqual(body.results.map((record: { id: number }) => record.id), VISIBLE.slice(0, 30).map((item) => item.id));
      });
    }

    test('ordering=-id reverses the list', async () => {
      const { body } = await request(server.base, '/rest/v1/budget_item/?ordering=-id&limit=3');
      assert.deepEqual(body.results.map((record: { id: number }) => record.id), [1099, 1098, 1097]);
    });
  });

  describe(`text ordering on the fixture (${store.name})`, () => {
    const server = useServer(store);

    const idsOf = async (path: string) => (await request(server.base, path)).body.results.map((record: { id: number }) => record.id);

    test('other_extra: blank first, accents and case ignored, NULLs last', async () => {
      assert.deepEqual(await idsOf('/rest/v1/budget_item/?ordering=other_extra'), [11, 9, 10, 8, 2, 7, 1, 3, 4]);
      assert.deepEqual(await idsOf('/rest/v1/budget_item/?ordering=-other_extra'), [1, 3, 4, 7, 2, 8, 10, 9, 11]);
    });

    test('organisation by -name and keyword by label', async () => {
      assert.deepEqual(await idsOf('/rest/v1/organisation/?ordering=-name'), [4, 2, 3, 1]);
      assert.deepEqual(await idsOf('/rest/v1/keyword/?ordering=-label'), [1, 3, 2]);
    });

    test('a foreign key orders by its id (D5); timestamps and booleans order too', async () => {
      assert.deepEqual(await idsOf('/rest/v1/transaction/?ordering=-receiver_organisation'), [2, 1]);
      assert.deepEqual(await idsOf('/rest/v1/organisation/?ordering=-created_at'), [3, 1, 2, 4]);
      assert.deepEqual(await idsOf('/rest/v1/organisation/?ordering=-can_create_projects'), [1, 2, 3, 4]);
    });

    test('reports: an explicit ordering replaces the seed order', async () => {
      assert.deepEqual(await idsOf('/rest/v1/reports/?ordering=id'), [1, 2, 3, 4, 6, 13, 16, 28, 29]);
      assert.deepEqual(await idsOf('/rest/v1/reports/?ordering=name'), [4, 6, 29, 28, 16, 13, 3, 1, 2]);
    });
  });
}
