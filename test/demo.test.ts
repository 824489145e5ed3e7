/**
 * The demo dataset: deterministic, the seed's sizes at scale 1, valid (it goes through the real
 * import), labels that agree with the code lists, and hidden projects really hidden.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { generateDemo } from '../demo/generate.ts';
import type { DatasetSource } from '../src/store/import.ts';
import { ANONYMOUS, SERVICE, type Caller } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { parseQueryString } from '../src/query/params.ts';
import { changeData } from '../src/store/data-version.ts';
import { pageQuery } from '../src/store/list-sql.ts';
import { Reader } from '../src/store/reader.ts';
import { request, startServer, testStores, type TestServer } from './support/server.ts';

type Row = { [key: string]: unknown };

function fingerprint(scale: number, seed: number): string {
  const hash = createHash('sha256');
  for (const { entity, records } of generateDemo({ scale, seed })) {
    hash.update(entity);
    for (const record of records) hash.update(JSON.stringify(record));
  }
  return hash.digest('hex');
}

function demoSources(scale: number, seed: number): DatasetSource[] {
  return generateDemo({ scale, seed }).map(({ entity, records }) => ({ file: entity, label: entity, records }));
}

/** The code lists, read here from the shared copy, as the label oracle. */
function codeNames(list: string): Map<string, string> {
  const rows = JSON.parse(readFileSync(new URL(`../codelists/${list}.json`, import.meta.url), 'utf8')) as { code: string; name: string }[];
  return new Map(rows.map((row) => [row.code, row.name]));
}

function label(list: string, code: unknown): string {
  if (code === '') return '';
  const name = codeNames(list).get(code as string);
  return name === undefined ? (code as string) : `${code} - ${name}`;
}

describe('demo dataset generation', () => {
  test('the same scale and seed give the same records; another seed others', () => {
    assert.equal(fingerprint(0.05, 7), fingerprint(0.05, 7));
    assert.notEqual(fingerprint(0.05, 7), fingerprint(0.05, 8));
  });

  test('scale 1 has the sizes the seed observed', () => {
    const sizes = new Map(generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => [entity, [...records].length]));
    const observed = {
      budget_item: 10437, transaction: 6790, indicator_period_data_comment: 10334, recipient_region: 273,
      project_custom_field: 9318, administrative_location: 3743, link: 4858, disaggregation_target: 31459, keyword: 82,
    };
    for (const [entity, size] of Object.entries(observed)) assert.equal(sizes.get(entity), size, entity);
  });

  test('region percentages of each project sum to 100', () => {
    const sums = new Map<unknown, number>();
    for (const region of generateDemo({ scale: 1, seed: 1 }).find((source) => source.entity === 'recipient_region')?.records ?? []) {
      sums.set(region.project, (sums.get(region.project) ?? 0) + Math.round((region.percentage as number) * 10));
    }
    assert.ok(sums.size > 50);
    for (const [project, tenths] of sums) assert.equal(tenths, 1000, `project ${project}`);
  });

  test('programs link their contributors: an indicator (period) names one of its parent project (indicator) at the same place', () => {
    const demo = new Map(generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => [entity, [...records]]));
    const byId = (entity: string) => new Map(demo.get(entity)!.map((row) => [row.id, row]));
    const [projects, results, indicators, periods] = [byId('project'), byId('result'), byId('indicator'), byId('indicator_period')];
    const projectOf = (indicator: Row) => results.get(indicator.result)!.project;
    const linked = [...indicators.values()].filter((indicator) => indicator.parent_indicator !== null);
    assert.ok(linked.length > 100, `${linked.length} linked indicators`);
    const levels = new Set<number>();
    for (const indicator of linked) {
      const parent = indicators.get(indicator.parent_indicator)!;
      assert.equal(projectOf(parent), projects.get(projectOf(indicator))!.parent, `indicator ${String(indicator.id)}`);
      assert.equal(parent.measure, indicator.measure);
      levels.add(parent.parent_indicator === null ? 1 : 2);
    }
    assert.deepEqual([...levels].sort(), [1, 2], 'children and grandchildren contribute');
    const linkedPeriods = [...periods.values()].filter((period) => period.parent_period !== null);
    assert.ok(linkedPeriods.length > 200);
    for (const period of linkedPeriods) {
      const parent = periods.get(period.parent_period)!;
      assert.equal(parent.indicator, indicators.get(period.indicator)!.parent_indicator, `period ${String(period.id)}`);
      assert.deepEqual([parent.period_start, parent.period_end], [period.period_start, period.period_end]);
    }
    // Outside programs, nothing is linked.
    for (const period of periods.values()) if (indicators.get(period.indicator)!.parent_indicator === null) assert.equal(period.parent_period, null);
  });
});

for (const store of testStores()) {
  describe(`demo dataset served (${store.name})`, () => {
    let server: TestServer;
    const projects = generateDemo({ scale: 1, seed: 1 }).find((source) => source.entity === 'project')?.records ?? [];
    const hidden = new Set([...projects].filter((project) => !project.is_public || project.publishing_status !== 'published').map((project) => project.id));
    before(async () => {
      server = await startServer(store, demoSources(1, 1), { metricsToken: 'm' });
    });
    after(() => server.close());

    test('some projects are private or unpublished, and none of their budget items is listed', async () => {
      assert.ok(hidden.size > 20, `${hidden.size} hidden projects`);
      const { body } = await request(server.base, '/rest/v1/budget_item/?limit=1000&page=last');
      assert.ok(body.count < 10437 && body.count > 8000, `count ${body.count}`);
      let url: string | null = `${server.base}/rest/v1/budget_item/?limit=1000`;
      let seen = 0;
      while (url) {
        const page: { body: { next: string | null; results: Row[] } } = await request(url, '');
        for (const item of page.body.results) assert.ok(!hidden.has(item.project), `budget item ${item.id}`);
        seen += page.body.results.length;
        url = page.body.next;
      }
      assert.equal(seen, body.count);
    });

    test('deep pages in id order or a field\'s (found from noted positions) hold what walking the list gives', async () => {
      const ids = async (path: string) => ((await request(server.base, path)).body.results as Row[]).map((row) => row.id);
      // `ordering=id,<other field>` and `ordering=<field>,id,<other field>` are the same orders as
      // `id` and `<field>` (id is unique), read by walking every row before the page.
      const cases = [
        ['budget_item', 'id', 'amount', 'limit=30&page=35'], ['budget_item', 'id', 'amount', 'limit=7&page=144'],
        ['budget_item', 'id', 'amount', 'limit=1000&page=3'], ['budget_item', 'id', 'amount', 'limit=20&page=last'],
        ['budget_item', '-id', 'amount', 'limit=30&page=67'], ['budget_item', 'id', 'amount', 'currency=EUR&limit=30&page=40'],
        ['indicator_period_data_comment', '-id', 'data', 'limit=30&page=100'], ['disaggregation_target', 'id', 'value', 'limit=100&page=250'],
        // A field of a few values (long runs of one value), a text (its sort key), a foreign key, either way, filtered or not.
        ['budget_item', '-type', 'id,amount', 'limit=30&page=35'], ['budget_item', 'currency', 'id,amount', 'currency=EUR&limit=30&page=20'],
        ['budget_item', 'project', 'id,amount', 'limit=1000&page=3'], ['budget_item', '-status', 'id,amount', 'limit=20&page=last'],
        ['link', 'caption', 'id,url', 'limit=25&page=60'], ['link', '-url', 'id,caption', 'kind=A&limit=30&page=20'],
        ['indicator_period_data_comment', '-comment', 'id,data', 'limit=30&page=100'], ['indicator_period_data_comment', 'user', 'id,data', 'limit=11&page=99'],
        // Fields that may be null, descending (nulls first): 6,796 of the 8,983 budget items'
        // value dates an anonymous caller sees are null, so the first 28 marks lie among them.
        // Pages among the nulls, just past them, and deeper; a decimal and a text with fewer
        // nulls; a date of comments with none.
        ['budget_item', '-value_date', 'id,amount', 'limit=30&page=200'], ['budget_item', '-value_date', 'id,amount', 'limit=30&page=230'],
        ['budget_item', '-value_date', 'id,amount', 'limit=30&page=290'], ['budget_item', '-amount', 'id,label', 'limit=30&page=250'],
        ['budget_item', '-other_extra', 'id,amount', 'limit=20&page=400'], ['indicator_period_data_comment', '-created_at', 'id,data', 'limit=30&page=100'],
      ];
      // Every case is at least SEEK_STEP (250) records deep: each unfiltered one notes or uses marks
      // (in SQL, not in memory); a filtered one is read the way its count chooses, without marks.
      server.reader.settledMs = Infinity;
      const seeks = server.reader.seeks.marks;
      // Marks kept or noted (found or made in their cache).
      const marks = () => seeks.figures().hits + seeks.figures().misses;
      for (const [list, order, other, page] of cases) {
        const before = marks();
        const seeking = await ids(`/rest/v1/${list}/?ordering=${order}&${page}`);
        const filtered = page.split('&').some((pair) => !/^(limit|page)=/.test(pair));
        assert.equal(marks(), filtered ? before : before + 1, `${list}?ordering=${order}&${page} ${filtered ? 'walks or sorts' : 'starts from a mark'}`);
        const walking = await ids(`/rest/v1/${list}/?ordering=${order},${other}&${page}`);
        assert.equal(marks(), filtered ? before : before + 1, `${list}?ordering=${order},${other}&${page} walks`);
        assert.ok(seeking.length > 0, `${list}?ordering=${order}&${page}`);
        assert.deepEqual(seeking, walking, `${list}?ordering=${order}&${page}`);
      }
      // The default order of comments is -id: the same pages without asking for it.
      assert.deepEqual(await ids('/rest/v1/indicator_period_data_comment/?page=100'), await ids('/rest/v1/indicator_period_data_comment/?ordering=-id,data&page=100'));
      server.reader.settledMs = new Reader(server.engine).settledMs;
    });

    test('marks that are not carried across writes are noted only for a version that has lasted: a deep page just after a write is read from the list\'s start, as exact', async () => {
      // Comments hold their project in a column filled by imports and writes, not a foreign key
      // (seek.ts, `carriable`): their marks are noted anew after a write.
      const ids = async (path: string) => ((await request(server.base, path)).body.results as Row[]).map((row) => row.id);
      server.reader.settledMs = Infinity;
      const seeks = server.reader.seeks;
      let marked = 0;
      const get = seeks.marks.get.bind(seeks.marks);
      seeks.marks.get = (...args) => ((marked += 1), get(...args));
      try {
        // Read once before the write, so that the version the write ends is one this process saw.
        await ids('/rest/v1/indicator_period_data_comment/?ordering=-created_at&page=250&_=before');
        marked = 0;
        const [comment] = await server.engine.run(server.engine.db.selectFrom('indicator_period_data_comment').select('id').orderBy('id').limit(1).compile());
        await changeData(server.engine, ['indicator_period_data_comment'], async (trx) => {
          await trx.updateTable('indicator_period_data_comment').set({ created_at: '2030-01-01T00:00:00Z' } as never).where('id', '=', Number(comment.id)).execute();
        });
        // The same order (id is unique), which no mark serves: read from the list's start.
        const walking = await ids('/rest/v1/indicator_period_data_comment/?ordering=-created_at,id,data&page=250');
        assert.deepEqual(await ids('/rest/v1/indicator_period_data_comment/?ordering=-created_at&page=250'), walking);
        assert.equal(marked, 0, 'a version just seen: no marks noted');
        seeks.lastingMs = 0;
        assert.deepEqual(await ids('/rest/v1/indicator_period_data_comment/?ordering=-created_at&page=250&_=lasted'), walking);
        assert.equal(marked, 1, 'once it has lasted, from a mark');
      } finally {
        seeks.marks.get = get;
        seeks.lastingMs = new Reader(server.engine).seeks.lastingMs;
        server.reader.settledMs = new Reader(server.engine).settledMs;
      }
    });

    test('a filtered list read again starts where its first page began, and holds what walking the list gives', async () => {
      // A page past the end (a short list) answers 404: no records.
      const ids = async (path: string) => ((await request(server.base, path)).body.results as Row[] | undefined ?? []).map((row) => row.id);
      const cases = [
        ['link', '-url', 'id,caption', 'kind=A'], ['budget_item', 'currency', 'id,amount', 'amount__gte=1000'],
        ['indicator_period_data_comment', '-comment', 'id,data', 'comment__icontains=an'], ['budget_item', '-id', 'amount', 'currency=EUR'],
        ['link', 'caption', 'id,url', 'caption__icontains=video'],
        // A nullable field ascending, its nulls last: matches that lie far along the order's values
        // (every budget item holding `ma` has the same, late label), and a list whose pages from
        // the sixth on reach into the nulls (188 of the 787 items in USD have a value date).
        ['budget_item', 'label', 'id,amount', 'other_extra__icontains=ma'], ['budget_item', 'value_date', 'id,amount', 'currency=USD'],
      ];
      server.reader.settledMs = Infinity;
      const starts = server.reader.seeks.starts;
      let valuesEndsFound = server.reader.seeks.valuesEnds.figures().hits;
      let serial = 0;
      for (const [list, order, other, filter] of cases) {
        await ids(`/rest/v1/${list}/?ordering=${order}&${filter}&_=${(serial += 1)}`);
        const before = starts.figures().hits;
        let read = 0;
        for (const page of ['limit=30', 'limit=30&page=5', 'limit=30&page=6', 'limit=7&page=40']) {
          const started = await ids(`/rest/v1/${list}/?ordering=${order}&${filter}&${page}&_=${(serial += 1)}`);
          // The same order (id is unique), which no noted start serves: read from the list's beginning.
          const walking = await ids(`/rest/v1/${list}/?ordering=${order},${other}&${filter}&${page}&_=${(serial += 1)}`);
          if (page === 'limit=30') assert.ok(started.length > 0, `${list}?ordering=${order}&${filter}&${page}`);
          assert.deepEqual(started, walking, `${list}?ordering=${order}&${filter}&${page}`);
          if (started.length > 0) read += 1;
        }
        // Each page read (not one past the end, answered 404 from the count alone) started there.
        assert.equal(starts.figures().hits, before + read, `${list}?ordering=${order}&${filter} starts where its first page began`);
        // Its fifth page came up short from there, into the nulls: the sixth and fortieth are read from the list's beginning at once.
        if (filter === 'currency=USD') assert.equal(server.reader.seeks.valuesEnds.figures().hits - valuesEndsFound, 2);
        valuesEndsFound = server.reader.seeks.valuesEnds.figures().hits;
      }
      server.reader.settledMs = new Reader(server.engine).settledMs;
    });

    test('a filtered page whose matches go with its order: the bounded walk comes back short, and the page is read again the next way', async () => {
      // The demo's links of kind A have captions of their own kind, which sort below the videos'.
      const link = RESOURCES.find((resource) => resource.name === 'link')!;
      const list = parseListQuery(link, parseQueryString('kind=A&ordering=-caption'), ANONYMOUS);
      const total = await server.reader.count(link, ANONYMOUS, list.filters);
      for (const offset of [0, 60]) {
        const page = { order: list.order, pinned: list.pinned, limit: 30, offset };
        const sorted = (await server.engine.run((await pageQuery(server.engine, link, ANONYMOUS, page, list.filters)).compile())).map((row) => row.id);
        const walked = await server.engine.run((await pageQuery(server.engine, link, ANONYMOUS, { ...page, walk: 1000 }, list.filters)).compile());
        assert.ok(walked.length < Math.min(30, total - offset), `a walk of 1,000 rows finds ${walked.length} of the page from ${offset}: the case is not correlated`);
        assert.equal(sorted.length, 30);
        assert.deepEqual((await server.reader.page(link, ANONYMOUS, page, total, list.filters)).map((row) => row.id), sorted, `from ${offset}`);
      }
    });

    // A walk's page is ordered by the walk's own columns of its order's `is null` terms
    // (list-sql.ts, `walked`), and a text of few keys is checked on each walked row, not listed
    // first (filter-sql.ts): the page is the one sorting every match gives, at every offset.
    test('a page walked in a nullable field\'s order, or checking a text of few keys row by row, is the sorted page', async () => {
      const cases = [
        'indicator_period_data_comment?comment__icontains=an&ordering=-created_at', 'indicator_period_data_comment?comment__icontains=an&ordering=last_modified_at',
        'transaction?currency=EUR&ordering=-value_date', 'transaction?currency=EUR&ordering=transaction_date', 'disaggregation_target?value__gte=10&ordering=-dimension_value',
        'budget_item?other_extra__icontains=ma&ordering=label', 'project_custom_field?name__icontains=ro&ordering=-max_characters',
      ];
      // SQLite's statistics count the comments' keys as few (PostgreSQL's sample may not): the
      // keys are listed where the matches are found through an index, never in a walk.
      if (server.engine.name === 'sqlite') {
        assert.ok(server.engine.fewKeys('indicator_period_data_comment', 'comment_sortkey'), 'comments are decided on their few keys where indexed');
        const comments = RESOURCES.find((candidate) => candidate.name === 'indicator_period_data_comment')!;
        const list = parseListQuery(comments, parseQueryString('comment__icontains=an&ordering=-created_at'), ANONYMOUS);
        const sqlOf = async (walk?: number) => (await pageQuery(server.engine, comments, ANONYMOUS, { order: list.order, pinned: list.pinned, limit: 30, offset: 0, walk }, list.filters)).compile().sql;
        assert.match(await sqlOf(), /with recursive keys/);
        assert.doesNotMatch(await sqlOf(1000), /with recursive keys/);
      }
      for (const path of cases) {
        const [name, query] = path.split('?');
        const resource = RESOURCES.find((candidate) => candidate.name === name)!;
        const list = parseListQuery(resource, parseQueryString(query), ANONYMOUS);
        for (const offset of [0, 90]) {
          const page = { order: list.order, pinned: list.pinned, limit: 30, offset };
          const ids = async (walk?: number) => (await server.engine.run((await pageQuery(server.engine, resource, ANONYMOUS, { ...page, walk }, list.filters)).compile())).map((row) => row.id);
          const sorted = await ids();
          assert.equal(sorted.length, 30, `${path} from ${offset}: a full page`);
          assert.deepEqual(await ids(1_000_000), sorted, `${path} from ${offset}`);
        }
      }
    });

    test('deep pages found in memory hold what SQL gives: in every order, to every caller, filtered, and after writes', async () => {
      const memory = new Reader(server.engine, { settledMs: 0 });
      const walking = new Reader(server.engine, { settledMs: Infinity });
      // A project editor at a partner of hidden projects: it sees some of them.
      const partnerships = await server.engine.db.selectFrom('partnership').select(['organisation', 'project']).orderBy('id').execute();
      const partner = partnerships.find((partnership) => hidden.has(partnership.project))!.organisation as number;
      const callers: [string, Caller][] = [['anonymous', ANONYMOUS], ['administrator', SERVICE], ['partner', { userId: 1, isAdmin: false, organisations: new Map([[partner, new Set(['Project Editors'])]]) }]];
      const cases = [
        'budget_item?ordering=amount', 'budget_item?ordering=-label', 'budget_item?ordering=period_start,-currency', 'budget_item?currency=EUR&ordering=-value_date',
        'budget_item', 'transaction?ordering=-value', 'indicator_period_data_comment', 'indicator_period_data_comment?comment__icontains=an&ordering=user',
        'disaggregation_target?ordering=-value', 'link?ordering=caption', 'project_custom_field?ordering=-section', 'my_projects?ordering=title',
      ];
      const read = async (reader: Reader, path: string, caller: Caller, offset: number) => {
        const [name, query = ''] = path.split('?');
        const resource = RESOURCES.find((candidate) => candidate.name === name)!;
        const list = parseListQuery(resource, parseQueryString(query), caller);
        const total = await reader.count(resource, caller, list.filters);
        const rows = await reader.page(resource, caller, { order: list.order, pinned: list.pinned, limit: 30, offset }, total, list.filters);
        return { total, ids: rows.map((row) => row.id as number) };
      };
      const compare = async () => {
        for (const path of cases) {
          for (const [who, caller] of callers) {
            const { total } = await read(walking, path, caller, 0);
            for (const offset of [300, 331, Math.max(300, total - 30), Math.max(300, total - 7), total + 300]) {
              const expected = await read(walking, path, caller, offset);
              assert.deepEqual(await read(memory, path, caller, offset), expected, `${path} as ${who} from ${offset}`);
            }
          }
        }
      };
      await compare();
      assert.ok(memory.memory.lists.size >= 20, `${memory.memory.lists.size} lists kept in memory`);
      // Writes: the budget item 300th by amount gets the largest one, and a published project is hidden.
      const [moved] = (await read(walking, 'budget_item?ordering=amount', SERVICE, 300)).ids;
      const [original] = await server.engine.db.selectFrom('budget_item').select('amount').where('id', '=', moved).execute();
      await changeData(server.engine, ['budget_item'], (trx) => trx.updateTable('budget_item').set({ amount: 987_654_321 }).where('id', '=', moved).execute());
      const [project] = await server.engine.db.selectFrom('project').select('id').where('publishing_status', '=', 'published').orderBy('id').limit(1).execute();
      await changeData(server.engine, ['project'], (trx) => trx.updateTable('project').set({ publishing_status: 'unpublished' }).where('id', '=', project.id).execute());
      assert.notEqual((await read(memory, 'budget_item?ordering=amount', SERVICE, 300)).ids[0], moved, 'the moved item left its place');
      await compare();
      // Served: the first deep page makes its list, the next ones of it are read from it (the metrics say which).
      server.reader.settledMs = 0;
      const metrics = async () => {
        const text = (await request(server.base, '/metrics', { headers: { authorization: 'Bearer m' } })).text;
        const sample = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
        return { miss: sample('rsr_api_deep_page_lists_total\\{result="miss"\\}'), hit: sample('rsr_api_deep_page_lists_total\\{result="hit"\\}'), ids: sample('rsr_api_deep_page_ids') };
      };
      const before = await metrics();
      const served: number[] = [];
      for (const page of [21, 22]) served.push(...((await request(server.base, `/rest/v1/link/?ordering=-caption&page=${page}`)).body.results as Row[]).map((link) => link.id as number));
      assert.deepEqual(served, [...(await read(walking, 'link?ordering=-caption', ANONYMOUS, 600)).ids, ...(await read(walking, 'link?ordering=-caption', ANONYMOUS, 630)).ids]);
      const after = await metrics();
      assert.deepEqual([after.miss - before.miss, after.hit - before.hit], [1, 1]);
      assert.ok(after.ids > before.ids, 'the link table\'s order and the list are held');
      server.reader.settledMs = new Reader(server.engine).settledMs;
      // As it was, for the tests after this one.
      await changeData(server.engine, ['budget_item', 'project'], async (trx) => {
        await trx.updateTable('budget_item').set({ amount: original.amount }).where('id', '=', moved).execute();
        await trx.updateTable('project').set({ publishing_status: 'published' }).where('id', '=', project.id).execute();
      });
    });

    test('a deep page whose ids are found first holds what the plain page holds: in every order, to every caller, filtered or not; PostgreSQL reads deep pages so', async () => {
      const partner = (await server.engine.db.selectFrom('partnership').select(['organisation', 'project']).orderBy('id').execute()).find((partnership) => hidden.has(partnership.project))!.organisation as number;
      const callers: [string, Caller][] = [['anonymous', ANONYMOUS], ['administrator', SERVICE], ['partner', { userId: 1, isAdmin: false, organisations: new Map([[partner, new Set(['Project Editors'])]]) }]];
      const cases = [
        'budget_item?ordering=amount', 'budget_item?ordering=-value_date', 'budget_item?ordering=type,-amount', 'budget_item?amount__gte=1000&ordering=amount',
        'budget_item', 'transaction?ordering=-value', 'indicator_period_data_comment?ordering=comment', 'disaggregation_target?ordering=dimension_value',
        'link?ordering=-caption', 'project_custom_field?ordering=section', 'organisation?ordering=name',
      ];
      for (const path of cases) {
        const [name, query = ''] = path.split('?');
        const resource = RESOURCES.find((candidate) => candidate.name === name)!;
        for (const [who, caller] of callers) {
          const list = parseListQuery(resource, parseQueryString(query), caller);
          for (const offset of [0, 300, 331, 1234]) {
            const page = { order: list.order, pinned: list.pinned, limit: 30, offset };
            const plain = await server.engine.run((await pageQuery(server.engine, resource, caller, page, list.filters)).compile());
            const first = await server.engine.run((await pageQuery(server.engine, resource, caller, { ...page, idsFirst: true }, list.filters)).compile());
            assert.ok(offset > 0 || plain.length === 30, `${path} as ${who}: a first page`);
            assert.deepEqual(first, plain, `${path} as ${who} from ${offset}`);
          }
        }
      }
      // The reader's choice: where the engine reads the rows a page skips, a page that skips rows
      // has its ids found first, whether it is read from the list's start (an order of two fields
      // has no noted places) or from a noted place (by `-amount`: 600 is 100 past the mark at 500).
      const walking = new Reader(server.engine, { settledMs: Infinity });
      const budget = RESOURCES.find((candidate) => candidate.name === 'budget_item')!;
      const { run, runLong } = server.engine;
      for (const order of ['type,-amount', '-amount']) {
        const statements: string[] = [];
        server.engine.run = (query, db) => (statements.push(query.sql), run.call(server.engine, query, db));
        server.engine.runLong = (query) => (statements.push(query.sql), runLong.call(server.engine, query));
        try {
          const list = parseListQuery(budget, parseQueryString(`ordering=${order}`), ANONYMOUS);
          const total = await walking.count(budget, ANONYMOUS, list.filters);
          await walking.page(budget, ANONYMOUS, { order: list.order, pinned: list.pinned, limit: 30, offset: 600 }, total, list.filters);
        } finally {
          Object.assign(server.engine, { run, runLong });
        }
        // Not the walks that note marks (numbering their rows, or reading every row's project and the version).
        const pages = statements.filter((text) => /from "budget_item" as "t" .*limit/.test(text) && !/row_number|"stamp"/.test(text));
        const idsFirst = pages.filter((text) => /where "t"\."id" (in |= any\(array)\(select "t"\."id" as "id" from "budget_item"/.test(text));
        assert.deepEqual([pages.length, idsFirst.length], [1, server.engine.dialect.readsSkippedRows ? 1 : 0], `ordering=${order}:\n${statements.join('\n')}`);
      }
    });

    test('transaction labels agree with the code lists', async () => {
      const { body } = await request(server.base, '/rest/v1/transaction/?limit=1000');
      const lists = [['transaction_type', 'transaction_type'], ['aid_type', 'aid_type'], ['disbursement_channel', 'disbursement_channel'], ['finance_type', 'finance_type'], ['flow_type', 'flow_type'], ['tied_status', 'tied_status'], ['recipient_country', 'country'], ['recipient_region', 'region'], ['recipient_region_vocabulary', 'region_vocabulary']];
      let coded = 0;
      for (const record of body.results as Row[]) {
        for (const [field, list] of lists) {
          assert.equal(record[`${field}_label`], label(list, record[field]), `transaction ${record.id} ${field}`);
          if (record[field] !== '') coded += 1;
        }
      }
      assert.ok(coded > 1000);
    });

    test('budget item, region and location labels agree with the code lists', async () => {
      for (const record of (await request(server.base, '/rest/v1/budget_item/?limit=1000')).body.results as Row[]) {
        assert.equal(record.type_label, label('budget_type', record.type));
        assert.equal(record.status_label, label('budget_status', record.status));
        if (record.currency !== '') assert.equal(record.currency_label, label('currency', record.currency));
      }
      for (const record of (await request(server.base, '/rest/v1/recipient_region/?limit=1000')).body.results as Row[]) {
        assert.equal(record.region_label, label('region', record.region));
        assert.equal(record.vocabulary_label, label('region_vocabulary', record.region_vocabulary));
      }
      for (const record of (await request(server.base, '/rest/v1/administrative_location/?limit=1000')).body.results as Row[]) {
        assert.equal(record.vocabulary_label, label('geographic_vocabulary', record.vocabulary));
      }
    });
  });
}
