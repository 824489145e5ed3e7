/**
 * Filters as an attacker uses them (http.md, Filtering): fields nobody may probe answer the same
 * 400 whatever the data, relations never reach records the caller may not see, and the limits
 * on depth, terms, ordering keys, offsets and values answer 400 (or an empty page), never a 500.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createToken, createUser } from '../src/store/users.ts';
import { privacyDataset } from './support/datasets.ts';
import { request, testStores, useServer, type Answer } from './support/server.ts';

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const ELEVEN_KEYS = ['id__gte', 'id__gt', 'id__lte', 'id__lt', 'amount__gte', 'amount__gt', 'amount__lte', 'amount__lt', 'project__gte', 'project__gt', 'project__lte'];

for (const store of testStores()) {
  describe(`hostile filters (${store.name})`, () => {
    const server = useServer(store, privacyDataset);
    /** admin: an administrator; bob: a plain user of organisation 2, the private program's partner; eve: signed in, no organisation. */
    const keys: Record<string, string> = {};
    before(async () => {
      keys.admin = await createToken(server.engine, 'admin@example.org');
      keys.bob = await createToken(server.engine, 'bob@partner.org');
      await createUser(server.engine, { email: 'eve@example.org', firstName: 'Eve', lastName: 'Outsider' });
      keys.eve = await createToken(server.engine, 'eve@example.org');
    });

    const get = (path: string, who?: string): Promise<Answer> =>
      request(server.base, path, { headers: who ? { authorization: `Token ${keys[who]}` } : {} });
    const count = async (path: string, who?: string) => {
      const answer = await get(path, who);
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      return answer.body.count as number;
    };

    describe('fields nobody (or only administrators) may filter by', () => {
      const comments = '/rest/v1/indicator_period_data_comment/';

      test("a user's e-mail cannot be probed: the same 400 whether or not a letter matches", async () => {
        for (const who of [undefined, 'eve', 'bob']) {
          for (const prefix of ['a', 'z']) {
            const forms = [
              [`user__email__startswith=${prefix}`, 'user__email__startswith'],
              [q({ filter: `{'user__email__startswith': '${prefix}'}` }), 'user__email__startswith'],
              [q({ exclude: `{'user__email__startswith': '${prefix}'}` }), 'user__email__startswith'],
              [q({ q_filter1: `{'user__email__startswith': '${prefix}'}` }), 'user__email__startswith'],
              [`data__user__email=${prefix}`, 'data__user__email'],
              [`data__period__indicator__result__project__title=x&user__email__iexact=${prefix}`, 'user__email__iexact'],
            ];
            for (const [query, param] of forms) {
              const answer = await get(`${comments}?${query}`, who);
              assert.equal(answer.status, 400, `${who} ${query}`);
              assert.equal(answer.text, JSON.stringify({ detail: `Invalid filter '${param}'` }), `${who} ${query}`);
            }
          }
        }
      });

      test('administrators may filter by e-mail; anyone by id and names', async () => {
        assert.equal(await count(`${comments}?user__email__startswith=a`, 'admin'), 1);
        assert.equal(await count(`${comments}?user__email__startswith=z`, 'admin'), 0);
        for (const who of [undefined, 'eve', 'admin']) {
          assert.equal(await count(`${comments}?user__first_name=Ann`, who), 1);
          assert.equal(await count(`${comments}?user__last_name__icontains=PARTNER&user__id=3`, who), 1);
          assert.equal(await count(`${comments}?user=2`, who), 1);
        }
      });

      test('flags of users are filtered by no one, administrators included', async () => {
        for (const param of ['user__is_admin', 'user__is_superuser', 'user__is_active', 'data__user__is_admin']) {
          for (const who of [undefined, 'bob', 'admin']) {
            const answer = await get(`${comments}?${param}=true`, who);
            assert.equal(answer.status, 400, `${who} ${param}`);
            assert.deepEqual(answer.body, { detail: `Invalid filter '${param}'` });
          }
        }
      });
    });

    describe("relations never reach what the caller may not see", () => {
      const items = '/rest/v1/budget_item/';

      test("a visible project's private parent compares as if it did not exist", async () => {
        // Project 1 (items 1, 2) is public; its parent, program 2, is private to organisation 2.
        const probes = ['project__parent__title=Secret%20program', 'project__parent__title__istartswith=s', 'project__parent=2', 'project__parent__isnull=false', 'project__parent__in=2,3'];
        for (const probe of probes) {
          const anonymous = await get(`${items}?${probe}`);
          assert.equal(anonymous.status, 200, probe);
          assert.equal(anonymous.body.count, 0, probe);
          assert.equal(await count(`${items}?${probe}`, 'eve'), 0, probe);
          assert.equal(await count(`${items}?${probe}`, 'bob'), 2, `${probe}: a partner of the program sees it`);
          assert.equal(await count(`${items}?${probe}`, 'admin'), 2, probe);
        }
        // Without the parent visible, project 1 reads as having none.
        assert.equal(await count(`${items}?project__parent__isnull=true`), 3);
        assert.equal(await count(`${items}?project__parent__isnull=true`, 'bob'), 2, 'bob sees program 2 itself (item 4) and project 3');
        assert.equal(await count(`${items}?${q({ filter: "{'project__parent': None}" })}`), 3);
        assert.equal(await count(`${items}?${q({ exclude: "{'project__parent__title': 'Secret program'}" })}`), 3);
        assert.equal(await count(`${items}?${q({ exclude: "{'project__parent__isnull': True}" })}`), 0);
        assert.equal(await count(`${items}?${q({ exclude: "{'project__parent__isnull': True}" })}`, 'bob'), 2);
      });

      test("the record's own visibility path is not masked: it is visible when the record is", async () => {
        assert.equal(await count('/rest/v1/indicator_period_data_comment/?data__period__indicator__result__project=1'), 2);
        assert.equal(await count('/rest/v1/indicator_period_data_comment/?data__period__indicator__result__project__title=Open%20well'), 2);
        assert.equal(await count(`${items}?project__title__icontains=well`), 3);
      });

      test('the original\'s name for a location\'s project, location_target, filters', async () => {
        assert.equal(await count('/rest/v1/administrative_location/?location__location_target=1'), 1);
        assert.equal(await count('/rest/v1/administrative_location/?location__location_target=3'), 0);
        assert.equal(await count(`/rest/v1/administrative_location/?${q({ filter: "{'location__location_target__title': 'Open well'}" })}`), 1);
      });
    });

    describe('limits', () => {
      const chain = (hops: number) => ['project', ...Array.from({ length: hops - 1 }, () => 'parent'), 'title__icontains'].join('__');

      test(`at most 10 relation hops in a path, in parameters and in filter=`, async () => {
        assert.equal((await get(`/rest/v1/budget_item/?${chain(10)}=a`)).status, 200);
        for (const hops of [11, 38, 500]) {
          const param = chain(hops);
          for (const query of [`${param}=a`, q({ filter: `{'${param}': 'a'}` }), q({ exclude: `{'${param}': 'a'}` })]) {
            const answer = await get(`/rest/v1/budget_item/?${query}`);
            assert.equal(answer.status, 400, `${hops} hops`);
            assert.deepEqual(answer.body, { detail: `Filter path too deep: '${param}'` });
          }
        }
      });

      test('at most 50 filter terms in a request, parameters and dictionary keys together', async () => {
        const repeated = (times: number) => Array.from({ length: times }, () => 'id__gte=0').join('&');
        assert.equal(await count(`/rest/v1/budget_item/?${repeated(50)}`), 3);
        for (const query of [repeated(51), repeated(1000), `${repeated(40)}&${q({ filter: `{${ELEVEN_KEYS.map((key) => `'${key}': 0`).join(', ')}}` })}`]) {
          const answer = await get(`/rest/v1/budget_item/?${query}`);
          assert.equal(answer.status, 400);
          assert.deepEqual(answer.body, { detail: 'Too many filters' });
        }
        const dictionaries = Array.from({ length: 60 }, (_, index) => `q_filter${index + 1}=${encodeURIComponent('{}')}`).join('&');
        assert.deepEqual((await get(`/rest/v1/budget_item/?${dictionaries}`)).body, { detail: 'Too many filters' });
      });

      test('only the first 10 ordering keys count, however many are sent', async () => {
        const answer = await get(`/rest/v1/budget_item/?ordering=-amount,${Array.from({ length: 2100 }, () => 'amount').join(',')}`);
        assert.equal(answer.status, 200);
        assert.deepEqual(answer.body.results.map((record: { id: number }) => record.id), [3, 2, 1]);
        const beyond = await get(`/rest/v1/budget_item/?ordering=${Array.from({ length: 10 }, () => 'nothing').join(',')},-amount`);
        assert.deepEqual(beyond.body.results.map((record: { id: number }) => record.id), [1, 2, 3], 'the eleventh key is ignored');
      });

      test('an /api/v1/ offset beyond any integer gives an empty page with the true count', async () => {
        const answer = await get('/api/v1/link/?offset=9223372036854775808');
        assert.equal(answer.status, 200);
        assert.equal(answer.text, `{"meta":{"limit":30,"next":null,"offset":9223372036854775808,"previous":"${server.base}/api/v1/link/?offset=9223372036854775778","total_count":5},"objects":[]}`);
        const xml = await get('/api/v1/link/?offset=99999999999999999999999&format=xml');
        assert.equal(xml.status, 200);
        assert.match(xml.text, /<offset>99999999999999999999999<\/offset>.*<total_count>5<\/total_count><\/meta><objects><\/objects>/);
        for (const offset of ['1e21', '-1', '2.5', '0x10']) {
          const invalid = await get(`/api/v1/link/?offset=${offset}&limit=2`);
          assert.equal(invalid.status, 200, offset);
          assert.equal(invalid.body.meta.offset, 0, offset);
          assert.deepEqual(invalid.body.objects.map((link: { id: number }) => link.id), [1, 2]);
        }
      });

      test('integers beyond 32 bits, and NUL or lone surrogates in values, are a 400 on every store', async () => {
        const cases: [string, string][] = [
          ['/rest/v1/budget_item/?id=2147483648', "Invalid value for filter 'id': '2147483648'"],
          ['/rest/v1/administrative_location/?location=-2147483649', "Invalid value for filter 'location': '-2147483649'"],
          ['/rest/v1/budget_item/?project__in=1,99999999999', "Invalid value for filter 'project__in': '1,99999999999'"],
          ['/rest/v1/link/?caption=a%00b', "Invalid value for filter 'caption': 'a\u0000b'"],
          [`/rest/v1/link/?${q({ filter: "{'caption': 'a\\x00'}" })}`, "Invalid value for filter 'caption': 'a\u0000'"],
          [`/rest/v1/link/?${q({ filter: "{'caption__icontains': '\\ud800'}" })}`, "Invalid value for filter 'caption__icontains': '\ud800'"],
          [`/rest/v1/budget_item/?amount__gt=1${'0'.repeat(400)}`, `Invalid value for filter 'amount__gt': '1${'0'.repeat(400)}'`],
        ];
        for (const [path, detail] of cases) {
          const answer = await get(path);
          assert.equal(answer.status, 400, path);
          assert.deepEqual(answer.body, { detail }, path);
        }
        assert.equal(await count('/rest/v1/budget_item/?id=2147483647'), 0);
        assert.equal(await count('/rest/v1/budget_item/?id__gte=-2147483648'), 3);
      });
    });
  });
}
