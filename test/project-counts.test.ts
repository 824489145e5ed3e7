/**
 * Counts kept per project (store/project-counts.ts): every list whose records belong to projects,
 * with and without filters, as each kind of caller sees it, equals the plain SQL count of the same
 * list, after every kind of write: a record created, moved to another project, changed out of a
 * filter, deleted; a project turned private; a change the log does not detail. API writes count
 * again only the projects they name, never a whole table.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { filterKey, parseFilters } from '../src/query/filters.ts';
import { ANONYMOUS, projectPathOf, storedFields, type Caller, type Resource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { changeData } from '../src/store/data-version.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { orderValue } from '../src/store/columns.ts';
import { countQuery, filterMatchQuery, matchQuery, matchSetQuery, pageQuery, type Seek } from '../src/store/list-sql.ts';
import { IdSet } from '../src/store/idset.ts';
import type { Query } from '../src/store/visibility.ts';
import { callerForKey, createToken, createUser } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

const KEPT = RESOURCES.filter((resource) => (projectPathOf(resource)?.length ?? 0) > 0);

/**
 * Filters on a list's own fields: none, ranges on ids (an empty one too), a text lookup, null
 * checks both ways, a boolean, a negation. Those of one non-text field are counted as every
 * record less those they leave out, where those are fewer (store/complement.ts).
 */
const LOW: Record<string, string> = { date: '2000-01-01', datetime: '2000-01-01T00:00:00Z', timestamp: '2000-01-01T00:00:00Z' };

function filtersOf(resource: Resource): string[] {
  const fields = storedFields(resource);
  const text = fields.find(([, field]) => field.type === 'text' && field.orderable && !field.filter)?.[0];
  const nullable = fields.find(([, field]) => field.nullable && !field.filter)?.[0];
  const nullableValue = fields.find(([, field]) => field.nullable && field.orderable && field.type !== 'text' && !field.filter)?.[0];
  const flag = fields.find(([, field]) => field.type === 'bool' && !field.filter)?.[0];
  return [
    '', 'id__gt=2', 'id__gte=2&id__lte=40', 'id__range=3,5', 'id__gte=9&id__lt=4', 'id=3',
    ...(text ? [`${text}__icontains=e`] : []),
    ...(nullable ? [`${nullable}__isnull=True`] : []),
    ...(nullableValue ? [`${nullableValue}__isnull=False`, `${nullableValue}__gte=${LOW[fields.find(([name]) => name === nullableValue)![1].type] ?? 1}`] : []),
    ...(flag ? [`${flag}=true`] : []),
    'exclude={"id__lt": 4}',
  ];
}

for (const store of testStores()) {
  describe(`counts kept per project (${store.name})`, () => {
    const server = useServer(store);
    const callers: [string, Caller][] = [['anonymous', ANONYMOUS]];
    let adminKey = '';
    before(async () => {
      await createUser(server.engine, { email: 'kim@example.org', firstName: 'Kim', lastName: 'Partner', organisation: 1, role: 'Users' });
      for (const email of ['ana@example.org', 'bo@example.org', 'kim@example.org']) {
        const key = await createToken(server.engine, email);
        if (email.startsWith('ana')) adminKey = key;
        const found = await callerForKey(server.engine, key);
        if (!('caller' in found)) throw new Error(email);
        callers.push([email, found.caller]);
      }
    });

    /** Every kept list, filter and caller whose count differs from the plain SQL count. */
    async function differences(): Promise<string[]> {
      const wrong: string[] = [];
      for (const resource of KEPT) {
        for (const query of filtersOf(resource)) {
          for (const [who, caller] of callers) {
            const filters = parseFilters(resource, [...new URLSearchParams(query)], caller);
            const [row] = await server.engine.run((await countQuery(server.engine, resource, caller, filters)).compile());
            const counted = await server.reader.count(resource, caller, filters);
            if (counted !== Number(row.count)) wrong.push(`${resource.name}?${query} as ${who}: ${counted}, SQL ${Number(row.count)}`);
          }
        }
      }
      return wrong;
    }
    const kept = () => server.reader.projectCounts.figures();
    const write = async (method: string, path: string, body?: unknown) => {
      const answer = await request(server.base, path, { method, headers: { authorization: `Token ${adminKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
      return answer.body as { id: number };
    };

    test('counted at start (warm) are the ones a request without filters reads: none is counted again', async () => {
      await server.reader.projectCounts.warm();
      const before = kept();
      for (const resource of RESOURCES.filter((each) => server.reader.projectCounts.keeps(each, undefined))) {
        const answer = await request(server.base, `/rest/v1/${resource.name}/`);
        assert.equal(answer.status, 200, resource.name);
      }
      assert.deepEqual({ histograms: kept().histograms, misses: kept().misses }, { histograms: before.histograms, misses: before.misses });
    });

    test('equal the plain SQL count for every list, filter and caller', async () => {
      assert.deepEqual(await differences(), []);
      assert.ok(kept().histograms > 0);
      assert.ok(kept().complements > 0, 'some counted as every record less those their filter leaves out');
    });

    test('stay exact after API writes, which count again only the projects they wrote', async () => {
      const before = kept();
      const link = await write('POST', '/rest/v1/link/', { project: 1, kind: 'A', url: 'https://example.org/kept', caption: 'Kept count' });
      // The project written is counted again at once, on the service's own connection: never a
      // long read, which SQLite queues for its reader threads behind scans.
      const runLong = server.engine.runLong;
      let long = 0;
      server.engine.runLong = (query) => ((long += 1), runLong.call(server.engine, query));
      try {
        assert.deepEqual(await differences(), [], 'created');
      } finally {
        server.engine.runLong = runLong;
      }
      assert.equal(long, 0, 'no long read');
      await write('PATCH', `/rest/v1/link/${link.id}/`, { project: 3 });
      assert.deepEqual(await differences(), [], 'moved to a private project');
      await write('PATCH', `/rest/v1/link/${link.id}/`, { caption: 'Moved' });
      assert.deepEqual(await differences(), [], 'changed out of a text filter');
      const item = await write('POST', '/rest/v1/budget_item/', { project: 2, label: 14, amount: '10.00' });
      await write('PATCH', `/rest/v1/budget_item/${item.id}/`, { amount: null });
      assert.deepEqual(await differences(), [], 'a value cleared (isnull)');
      // A comment, whose project is five foreign keys away (kept on the record): data 1 is in project 1, data 2 in private project 3.
      const comment = await write('POST', '/rest/v1/indicator_period_data_comment/', { data: 1, comment: 'A kept count' });
      assert.deepEqual(await differences(), [], 'a comment created');
      await write('PATCH', `/rest/v1/indicator_period_data_comment/${comment.id}/`, { data: 2 });
      assert.deepEqual(await differences(), [], 'a comment moved to a private project');
      await write('DELETE', `/rest/v1/link/${link.id}/`);
      await write('DELETE', `/rest/v1/budget_item/${item.id}/`);
      await write('DELETE', `/rest/v1/indicator_period_data_comment/${comment.id}/`);
      assert.deepEqual(await differences(), [], 'deleted');
      const after = kept();
      assert.equal(after.misses, before.misses, 'no list counted again whole');
      assert.ok(after.projectsCounted > before.projectsCounted, 'the projects written counted again');
    });

    test('pages walked in their order\'s index, read within the projects that hold the matches, among the matches found first, from their ids found in the order\'s index, or checked against the matches kept in memory, hold what the filters\' indexes and a sort find, for every list, order and caller', async () => {
      const wrong: string[] = [];
      for (const resource of RESOURCES.filter((each) => each.visibility.kind === 'project')) {
        const orderable = storedFields(resource).filter(([, field]) => field.orderable).map(([name]) => name);
        for (const query of filtersOf(resource).filter(Boolean)) {
          for (const ordering of orderable.flatMap((name) => [name, `-${name}`])) {
            for (const [who, caller] of callers) {
              const list = parseListQuery(resource, [...new URLSearchParams(`${query}&ordering=${ordering}`)], caller);
              const where = await server.reader.projectCounts.whereMatches(resource, caller, list.filters, filterKey(list.filters));
              // Asked for at most one project: the same, or none where the matches lie in more.
              const few = await server.reader.projectCounts.whereMatches(resource, caller, list.filters, filterKey(list.filters), 1);
              if (JSON.stringify(few) !== JSON.stringify(where && where.projects.length <= 1 ? where : null)) wrong.push(`${resource.name}?${query} as ${who}: ${JSON.stringify(few)} in at most one project, ${JSON.stringify(where)} in all`);
              const read = async (offset: number, way: { walk?: number; within?: number[]; matchesFirst?: boolean; idsInOrder?: boolean }, seek?: Seek) => (await server.engine.run((await pageQuery(server.engine, resource, caller, { order: list.order, pinned: list.pinned, limit: 3, offset, ...way }, list.filters, seek)).compile())).map((row) => row.id);
              // The caller's matches as pages/in-memory.ts keeps them: those of the plain reading.
              const ids = async (query: Promise<Query>) => [...(await server.engine.readIds((await query).compile()))].sort((a, b) => a - b);
              const [matched, plain] = [await ids(matchSetQuery(server.engine, resource, caller, list.filters)), await ids(matchQuery(server.engine, resource, caller, list.filters))];
              if (JSON.stringify(matched) !== JSON.stringify(plain)) wrong.push(`${resource.name}?${query} as ${who}: ${matched.length} kept as matches, ${plain.length} match`);
              // SQLite: the page's ids in the order's index, checked against the filters' matches kept in memory (pages/kept-matches.ts).
              const matches = IdSet.of(await ids(filterMatchQuery(server.engine, resource, caller, list.filters)));
              const among = async (offset: number, seek?: Seek) => (server.engine.runAmong ? JSON.stringify((await server.engine.runAmong((await pageQuery(server.engine, resource, caller, { order: list.order, pinned: list.pinned, limit: 3, offset, among: true }, list.filters, seek)).compile(), matches)).map((row) => row.id)) : null);
              // A noted position (pages/seek.ts, in an order of one field never null then id): the list's third record.
              const [term, tie] = list.order;
              const field = storedFields(resource).find(([name]) => name === term.field)?.[1];
              const third = (await server.engine.run((await pageQuery(server.engine, resource, caller, { order: list.order, pinned: list.pinned, limit: 1, offset: 2 }, list.filters)).compile()))[0];
              const fromThird: Seek | undefined = third && field && !field.nullable && tie?.field === 'id' && !tie.descending ? { id: Number(third.id), value: orderValue(field, third[term.field]) } : undefined;
              for (const offset of [0, 2]) {
                const sorted = JSON.stringify(await read(offset, {}));
                const walked = JSON.stringify(await read(offset, { walk: 1_000_000 }));
                // A walk cut short holds fewer, never others: the first of the sorted ones.
                const cut = await read(offset, { walk: offset + 2 });
                if (JSON.stringify(cut) !== JSON.stringify(JSON.parse(walked).slice(0, cut.length)) && cut.length > 0) wrong.push(`${resource.name}?${query}&ordering=${ordering} at ${offset} as ${who}: a walk cut short found ${JSON.stringify(cut)}`);
                const within = where ? JSON.stringify(await read(offset, { within: where.projects })) : sorted;
                const apart = JSON.stringify(await read(offset, { matchesFirst: true }));
                const inOrder = JSON.stringify(await read(offset, { idsInOrder: true }));
                const fromSeek = offset === 2 && fromThird ? JSON.stringify(await read(0, { idsInOrder: true }, fromThird)) : sorted;
                if (fromSeek !== sorted) wrong.push(`${resource.name}?${query}&ordering=${ordering} at ${offset} as ${who}: ids in order from the third record ${fromSeek}, ${sorted} sorted`);
                const amongKept = (await among(offset)) ?? sorted;
                const amongFromSeek = offset === 2 && fromThird ? ((await among(0, fromThird)) ?? sorted) : sorted;
                if (amongKept !== sorted || amongFromSeek !== sorted) wrong.push(`${resource.name}?${query}&ordering=${ordering} at ${offset} as ${who}: among the kept matches ${amongKept} (from the third record ${amongFromSeek}), ${sorted} sorted`);
                if (walked !== sorted || within !== sorted || apart !== sorted || inOrder !== sorted) wrong.push(`${resource.name}?${query}&ordering=${ordering} at ${offset} as ${who}: ${walked} walked, ${within} within its projects, ${apart} matched first, ${inOrder} ids in order, ${sorted} sorted`);
              }
            }
          }
        }
      }
      assert.deepEqual(wrong, []);
    });

    test('stay exact when a project turns private, and after a change the log does not detail', async () => {
      const before = kept();
      const flag = (value: boolean) => server.engine.dialect.toDb({ type: 'bool' } as never, value) as never;
      await changeData(server.engine, ['project'], (trx) => trx.updateTable('project').set({ is_public: flag(true) }).where('id', '=', 3).execute());
      assert.deepEqual(await differences(), [], 'project 3 public');
      await changeData(server.engine, ['project'], (trx) => trx.updateTable('project').set({ is_public: flag(false) }).where('id', '=', 1).execute());
      assert.deepEqual(await differences(), [], 'project 1 private');
      assert.equal(kept().misses, before.misses, 'visibility is not in the histograms');
      await changeData(server.engine, ['link'], (trx) => trx.updateTable('link').set({ project: 2 }).where('id', '=', 1).execute());
      assert.deepEqual(await differences(), [], 'a link moved outside the API');
      assert.ok(kept().wholeRecounts > before.wholeRecounts, 'the link lists counted again whole');
    });
  });
}
