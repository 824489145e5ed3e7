/**
 * Filters as http.md states them: every lookup on text, number, date, boolean and foreign-key
 * fields with the ids it must give, relation traversal, the dictionary forms, malformed input
 * with its exact error, injection strings treated as plain values, and filters combined with
 * ordering, paging, visibility and links.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePythonLiteral } from '../src/query/python-literal.ts';
import { SERVICE, storedFields } from '../src/resources/define.ts';
import { RESOURCE_BY_NAME, RESOURCES } from '../src/resources/index.ts';
import { closedValues } from '../src/store/filter-sql.ts';
import { saveRecord } from '../src/store/save.ts';
import { request, testStores, useServer } from './support/server.ts';

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('python literals', () => {
  test('strings in either quote with escapes, numbers, constants, lists and tuples', () => {
    assert.deepEqual(parsePythonLiteral(`{'a': "it's", "b": 'say \\'hi\\'\\n', 'c': [1, -2.5, 3e2, (True, False, None,)], 'd': '\\u00e9\\x41'}`), {
      a: "it's", b: "say 'hi'\n", c: [1, -2.5, 300, [true, false, null]], d: 'éA',
    });
  });
  for (const text of ["{'a' 1}", "__import__('os').system('x')", "{'a': 1", "{'a': b}", "{1: 2}", '[' .repeat(50) + ']'.repeat(50), "{'a': 'unterminated}"]) {
    test(`refuses ${text.slice(0, 30)}`, () => assert.throws(() => parsePythonLiteral(text)));
  }
});

describe('the texts a field can hold', () => {
  const fieldOf = (table: string, name: string) => {
    const found = storedFields(RESOURCES.find((resource) => resource.table === table) as never).find(([field]) => field === name);
    assert.ok(found, `${table}.${name}`);
    return found[1];
  };
  test('a code list field holds its codes, its legacy ones or blank; a choice field its choices; a free text anything', () => {
    const currencies = closedValues(fieldOf('budget_item', 'currency'));
    assert.deepEqual([currencies?.has('EUR'), currencies?.has('eur'), currencies?.has(''), currencies?.has('XXXX')], [true, false, true, false]);
    const types = closedValues(fieldOf('transaction', 'transaction_type'));
    assert.deepEqual([types?.has('1'), types?.has('D'), types?.has('d')], [true, true, false]);
    assert.deepEqual([...(closedValues(fieldOf('link', 'kind')) ?? [])].sort(), ['', 'A', 'E']);
    assert.equal(closedValues(fieldOf('budget_item', 'other_extra')), null);
  });
});

for (const store of testStores()) {
  describe(`filters (${store.name})`, () => {
    const server = useServer(store);

    const ids = async (resource: string, query: string) => {
      const answer = await request(server.base, `/rest/v1/${resource}/?${query}`);
      assert.equal(answer.status, 200, `${query}: ${answer.text}`);
      return answer.body.results.map((record: { id: number }) => record.id);
    };

    // budget_item visible: 1, 2, 3, 4, 7, 8, 9, 10, 11 (projects 1 and 2)
    const cases: [string, Record<string, string>, number[]][] = [
      ['budget_item', { project: '2' }, [3, 4]],
      ['budget_item', { project__exact: '1', label: '38' }, [2, 7, 8, 9, 10]],
      ['budget_item', { project__in: '2,3,4' }, [3, 4]],
      ['budget_item', { other_extra: 'Fuel' }, [2]],
      ['budget_item', { other_extra__exact: 'fuel' }, []],
      ['budget_item', { other_extra__iexact: 'FUEL' }, [2]],
      ['budget_item', { other_extra__iexact: 'eclair' }, [8]],
      ['budget_item', { other_extra__contains: 'a' }, [7, 8, 9, 10]],
      ['budget_item', { other_extra__contains: 'A' }, []],
      ['budget_item', { other_extra__icontains: 'A' }, [7, 8, 9, 10]],
      ['budget_item', { other_extra__startswith: 'B' }, [10]],
      ['budget_item', { other_extra__istartswith: 'e' }, [8]],
      ['budget_item', { other_extra__endswith: 'a' }, [7, 10]],
      ['budget_item', { other_extra__iendswith: 'R' }, [8]],
      ['budget_item', { other_extra__isnull: 'true' }, [1, 3, 4]],
      ['budget_item', { other_extra__isnull: 'false', other_extra__gt: 'b' }, [2, 7, 8, 10]],
      ['budget_item', { other_extra__lt: 'banana' }, [9, 11]],
      // A code list's field holds only its codes (or blank): the key alone decides, and still exactly.
      ['budget_item', { currency: 'EUR' }, [1]],
      ['budget_item', { currency: 'eur' }, []],
      ['budget_item', { currency__iexact: 'cad' }, [4]],
      ['budget_item', { currency: '' }, [2, 3, 7, 8, 9, 10, 11]],
      // A choice among codes by the key alone; with a text that is no code, every text exactly.
      ['budget_item', { currency__in: 'EUR,CAD' }, [1, 4]],
      ['budget_item', { currency__in: 'eur,CAD' }, [4]],
      ['budget_item', { type: '2' }, [2, 3]],
      ['budget_item', { project__currency: 'usd' }, []],
      ['budget_item', { amount: '250' }, [2]],
      ['budget_item', { amount__gt: '3' }, [1, 2, 3]],
      ['budget_item', { amount__gte: '3' }, [1, 2, 3, 8, 9]],
      ['budget_item', { amount__lt: '0' }, [7]],
      ['budget_item', { amount__lte: '0' }, [7, 11]],
      ['budget_item', { amount__range: '0,250' }, [2, 8, 9, 11]],
      ['budget_item', { amount__in: '3,-1.25' }, [7, 8, 9]],
      ['budget_item', { amount__isnull: 'true' }, [4, 10]],
      ['budget_item', { period_start: '2023-01-01' }, [1]],
      ['budget_item', { period_end__gte: '2023-06-01' }, [1]],
      ['budget_item', { period_start__isnull: 'false' }, [1]],
      ['budget_item', { project__title__icontains: 'BOGOTA' }, [3, 4]],
      ['budget_item', { project__currency: 'USD' }, [3, 4]],
      ['budget_item', { project__parent: '5' }, [1, 2, 7, 8, 9, 10, 11]],
      ['budget_item', { project__parent__isnull: 'true' }, [3, 4]],
      ['budget_item', { project__is_public: 'false' }, []],
      ['transaction', { humanitarian: 'true' }, [2]],
      ['transaction', { humanitarian: 'False' }, [1]],
      ['transaction', { provider_organisation__name__istartswith: 'elan' }, [1]],
      ['transaction', { receiver_organisation__isnull: 'false' }, [1, 2]],
      ['organisation', { created_at__gt: '2024-01-15T09:30:00Z' }, [1, 2, 4]],
      ['organisation', { created_at__gt: '2024-01-15T10:30:00.123456+01:00' }, []],
      ['organisation', { created_at__lte: '2024-01-16' }, [1, 2, 4]],
      ['organisation', { can_create_projects: 'true' }, [1]],
      ['administrative_location', { location__project: '1' }, [1, 4]],
      ['administrative_location', { location__country: 'CO' }, [2]],
      ['disaggregation_target', { period__indicator__result__project: '1' }, [1, 2, 4]],
      ['disaggregation_target', { dimension_value__name: '1' }, [1, 2]],
      ['indicator_period_data_comment', { data__period__indicator__result__project__title__icontains: 'kisumu' }, [4, 1]],
      ['keyword', { label__icontains: 'ENERGIE' }, [3]],
      ['budget_item', { label_label: 'Other', utm_source: 'x', _: '123' }, [1, 2, 3, 4, 7, 8, 9, 10, 11]],
      ['budget_item', { filter: "{'other_extra__icontains': 'a', 'amount__gt': 2}" }, [8, 9]],
      ['budget_item', { filter: '{"project": 1, "label__in": [14, 7]}' }, [1, 11]],
      ['budget_item', { exclude: "{'label': 38}" }, [1, 3, 4, 11]],
      ['budget_item', { exclude: "{'other_extra': None}" }, [2, 7, 8, 9, 10, 11]],
      ['budget_item', { q_filter1: "{'amount': 3}", q_filter2: "{'project': 2}" }, [3, 4, 8, 9]],
      ['budget_item', { q_filter1: "{'amount': 3}", q_filter3: "{'project': 2}" }, [8, 9]],
      ['budget_item', { q_filter1: "{'amount': 3}", q_filter2: "{'project': 2}", label: '38' }, [8, 9]],
    ];
    for (const [resource, params, expected] of cases) {
      test(`${resource}?${q(params)}`, async () => {
        assert.deepEqual(await ids(resource, `${q(params)}&limit=100`), expected);
      });
    }

    test('a text filtered on but never ordered by (an organisation\'s IATI prefixes) is looked up by its key as any other', async () => {
      const organisation = RESOURCE_BY_NAME.get('organisation')!;
      await saveRecord(server.engine, organisation, SERVICE, 'patch', 3, { iati_prefixes: 'NL-KVK; GB-CHC Élan' });
      try {
        const found: [Record<string, string>, number[]][] = [
          [{ iati_prefixes: 'NL-KVK; GB-CHC Élan' }, [3]],
          [{ iati_prefixes: 'nl-kvk; gb-chc élan' }, []],
          [{ iati_prefixes__iexact: 'nl-kvk; gb-chc ELAN' }, [3]],
          [{ iati_prefixes__icontains: 'gb-chc' }, [3]],
          [{ iati_prefixes__istartswith: 'nl-' }, [3]],
          [{ iati_prefixes__iendswith: 'elan' }, [3]],
          [{ iati_prefixes__gt: 'a' }, [3]],
          [{ iati_prefixes__isnull: 'true' }, [1, 2, 4]],
          [{ iati_prefixes: 'aa' }, []],
        ];
        for (const [params, expected] of found) assert.deepEqual(await ids('organisation', `${q(params)}&limit=100`), expected, q(params));
      } finally {
        await saveRecord(server.engine, organisation, SERVICE, 'patch', 3, { iati_prefixes: null });
      }
    });

    const malformed: [Record<string, string>, string][] = [
      [{ project: 'abc' }, "Invalid value for filter 'project': 'abc'"],
      [{ amount__gt: 'lots' }, "Invalid value for filter 'amount__gt': 'lots'"],
      [{ amount__foo: '1' }, "Invalid value for filter 'amount__foo': '1'"],
      [{ amount__icontains: '1' }, "Invalid value for filter 'amount__icontains': '1'"],
      [{ period_start: '2023-02-30' }, "Invalid value for filter 'period_start': '2023-02-30'"],
      [{ other_extra__isnull: 'maybe' }, "Invalid value for filter 'other_extra__isnull': 'maybe'"],
      [{ amount__range: '1' }, "Invalid value for filter 'amount__range': '1'"],
      [{ project__nope: '1' }, "Invalid value for filter 'project__nope': '1'"],
      [{ filter: "{'title__icontains': 'water'" }, 'Query param filter is invalid'],
      [{ exclude: "['not', 'a dict']" }, 'Query param exclude is invalid'],
      [{ q_filter1: '{oops}' }, 'Query param q_filter1 is invalid'],
      [{ filter: "{'nope__icontains': 'x'}" }, "Error in request: Cannot resolve keyword 'nope' into field."],
      [{ filter: "{'amount__gt': 'lots'}" }, "Invalid value for filter 'amount__gt': 'lots'"],
    ];
    for (const [params, detail] of malformed) {
      test(`400 for ${q(params)}`, async () => {
        const answer = await request(server.base, `/rest/v1/budget_item/?${q(params)}`);
        assert.equal(answer.status, 400);
        assert.deepEqual(answer.body, { detail });
      });
    }

    test('injection strings are plain values in every filter form', async () => {
      const attacks = ["'; drop table budget_item; --", "' or '1'='1", '1 or 1=1', '%', '_', '\\', "Robert'); DROP TABLE project;--"];
      for (const attack of attacks) {
        assert.deepEqual(await ids('budget_item', q({ other_extra: attack })), []);
        assert.deepEqual(await ids('budget_item', q({ other_extra__icontains: attack })), []);
        assert.deepEqual(await ids('budget_item', q({ filter: `{'other_extra__contains': ${JSON.stringify(attack)}}` })), []);
        assert.equal((await request(server.base, `/rest/v1/budget_item/?${q({ project: attack })}`)).status, 400);
      }
      assert.equal((await request(server.base, '/rest/v1/budget_item/')).body.count, 9);
    });

    test('filters combine with ordering, paging, count and links', async () => {
      const answer = await request(server.base, `/rest/v1/budget_item/?${q({ label: '38', ordering: '-amount', limit: '2', page: '2' })}`);
      assert.equal(answer.body.count, 5);
      assert.deepEqual(answer.body.results.map((record: { id: number }) => record.id), [8, 9]);
      assert.equal(answer.body.next, `${server.base}/rest/v1/budget_item/?label=38&limit=2&ordering=-amount&page=3`);
      assert.equal(answer.body.previous, `${server.base}/rest/v1/budget_item/?label=38&limit=2&ordering=-amount`);
    });

    test('filters never reveal hidden records', async () => {
      assert.deepEqual(await ids('budget_item', q({ project: '3' })), []);
      assert.deepEqual(await ids('budget_item', q({ project__is_public: 'false' })), []);
      assert.deepEqual(await ids('indicator_period_data_comment', q({ data: '2' })), []);
    });
  });
}
