// Prints the SQL of a list's count and page, and times them. usage: node --import tsx .scratch/sql.ts DBURL 'link/?page=2&ordering=-caption&kind=A'
import { openEngine } from '../src/store/engine/index.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { pageQuery, countQuery } from '../src/store/list-sql.ts';
import { parseFilters } from '../src/query/filters.ts';
import { parseOrdering, parseLimit, PAGE_SIZE } from '../src/query/list-query.ts';
import { parseQueryString } from '../src/query/params.ts';
import { ANONYMOUS } from '../src/resources/define.ts';
const [url, path] = process.argv.slice(2);
const engine = openEngine(url);
const [name, query = ''] = path.split('/?');
const resource = RESOURCES.find((r) => r.name === name.replace(/\/$/, ''))!;
const pairs = parseQueryString(query);
const filters = parseFilters(resource, pairs, ANONYMOUS);
const { order, pinned } = parseOrdering(resource, pairs);
const page = Number(new URLSearchParams(query).get('page') ?? 1);
const limit = parseLimit(pairs);
const pq = (await pageQuery(engine, resource, ANONYMOUS, { order, pinned, limit, offset: (page - 1) * limit }, filters)).compile();
const cq = (await countQuery(engine, resource, ANONYMOUS, filters)).compile();
for (const [label, q] of [['page', pq], ['count', cq]] as const) {
  console.log(label, q.sql, JSON.stringify(q.parameters));
  const t = performance.now();
  await engine.run(q);
  console.log(`  ${(performance.now() - t).toFixed(1)} ms`);
}
await engine.close();
