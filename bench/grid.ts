/**
 * `npm run bench:grid`: single list requests on an idle server, one at a time, every URL new (an
 * ignored `_` parameter counts up, so no response cache answers), over a grid of every list under
 * /rest/v1/: no ordering and each orderable field both ways, at pages 1, 10, 50 and 100; and a
 * handful of filters per list (equality on a foreign key and on a code, `__in`, a `__gte`/`__lte`
 * range, `__isnull` both ways, `__icontains`/`__istartswith`/`__iexact` on a text), each alone and
 * with an ordering on another field, at pages 1, 10 and 50. A page past the end answers 404: a
 * valid answer, counted apart. Prints p50, p99, max, how many took over 50 ms and over 1 s, the
 * 5xx failures and the ten slowest; writes bench/results/grid-<label>.json.
 *
 *   DATABASE_URL=sqlite:/tmp/copy.sqlite npm run bench:grid   starts our server on it (and stops it)
 *   GRID_BASE=http://127.0.0.1:8000   measures a running server instead
 *   GRID_WORKERS=1     processes of the server started here (one: requests come one at a time,
 *                      and the warm-up, a request per list, reaches every process only then)
 *   GRID_MAX=3000      requests at most; a larger grid is sampled (seeded, so runs compare)
 *   GRID_SETTLE=30     seconds the server started here is left alone first: it counts every list
 *                      kept per project as it starts (an idle server is one that has done so)
 *   GRID_SEED=1        GRID_TOKEN=<key>  as that user (`Authorization: Token`), else anonymous
 *   GRID_LABEL=latest  names the results file   GRID_SCALE=1  noted in it
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storedFields, type Resource, type StoredField } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { startOurs, type Running } from './servers.ts';

const root = new URL('..', import.meta.url).pathname;
const label = process.env.GRID_LABEL ?? 'latest';
const max = Number(process.env.GRID_MAX ?? 3000);
const seed = Number(process.env.GRID_SEED ?? 1);
const headers: Record<string, string> = process.env.GRID_TOKEN ? { authorization: `Token ${process.env.GRID_TOKEN}` } : {};
const PAGES = [1, 10, 50, 100];
const FILTER_PAGES = [1, 10, 50];

/** mulberry32: a small seeded PRNG, so that the sample and the order are the same run to run. */
function prng(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

function shuffle<T>(items: T[]): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other], items[index]];
  }
  return items;
}

/** A record as the list shows it. */
type Shown = Record<string, unknown>;
type Query = [string, string][];

interface Measured {
  path: string;
  ms: number;
  status: number;
}

let serial = 0;
/** One request, timed from before `fetch` to the end of its body; the `_` makes its URL new. */
async function timed(base: string, path: string): Promise<Measured & { body: string }> {
  const url = `${base}${path}${path.includes('?') ? '&' : '?'}_=${(serial += 1)}`;
  const started = performance.now();
  const answer = await fetch(url, { headers });
  const body = await answer.text();
  return { path, ms: Math.round((performance.now() - started) * 10) / 10, status: answer.status, body };
}

/** What the running server says each list takes: its `ordering` values and its filter parameters. */
interface ListApi {
  orderings: string[];
  filters: Set<string>;
}

interface Parameter {
  name: string;
  schema?: { items?: { enum?: string[] } };
  'x-filter'?: unknown;
}

async function listApis(base: string): Promise<Map<string, ListApi>> {
  const document = JSON.parse((await timed(base, '/rest/v1/openapi.json')).body) as { paths: Record<string, { get?: { parameters?: Parameter[] } }> };
  const apis = new Map<string, ListApi>();
  for (const { name } of RESOURCES) {
    const parameters = document.paths[`/rest/v1/${name}/`]?.get?.parameters ?? [];
    apis.set(name, {
      orderings: parameters.find((parameter) => parameter.name === 'ordering')?.schema?.items?.enum ?? [],
      filters: new Set(parameters.filter((parameter) => parameter['x-filter']).map((parameter) => parameter.name)),
    });
  }
  return apis;
}

/** The values of a field on page 1 worth filtering by: scalars, neither null nor blank. */
const valuesOf = (records: Shown[], name: string) =>
  [...new Set(records.map((record) => record[name]).filter((value) => value !== null && value !== '' && typeof value !== 'object').map(String))];

/**
 * The filters clients use, with values from real records (page 1 of the list), on the fields the
 * server documents a filter for. Fields that render otherwise than stored are left out: their
 * shown value is not one to filter by.
 */
function filtersOf(resource: Resource, api: ListApi, records: Shown[]): { field: string; query: Query }[] {
  const fields = storedFields(resource).filter(([name, field]) => api.filters.has(name) && !field.render && field.type !== 'bool');
  const first = (test: (name: string, field: StoredField) => boolean, least = 1) =>
    fields.find(([name, field]) => test(name, field) && valuesOf(records, name).length >= least)?.[0];
  const filters: { field: string; query: Query }[] = [];
  const add = (field: string, ...query: Query) => filters.push({ field, query });

  const foreignKey = first((_, field) => Boolean(field.references));
  if (foreignKey) add(foreignKey, [foreignKey, valuesOf(records, foreignKey)[0]]);
  const code = first((_, field) => Boolean(field.codelist));
  if (code) add(code, [code, valuesOf(records, code)[0]]);
  const listed = first((_, field) => Boolean(field.references || field.codelist), 2) ?? first((name) => name === 'id', 2);
  if (listed) add(listed, [`${listed}__in`, valuesOf(records, listed).slice(0, 2).join(',')]);

  // A range on a date if the list has one, as clients ask for a period; else on a number.
  const ranged = first((_, field) => ['date', 'timestamp'].includes(field.type)) ?? first((name, field) => name !== 'id' && !field.references && ['int', 'decimal'].includes(field.type));
  if (ranged) {
    const values = valuesOf(records, ranged).sort((a, b) => (Number.isNaN(Number(a)) ? a.localeCompare(b) : Number(a) - Number(b)));
    add(ranged, [`${ranged}__gte`, values[0]], [`${ranged}__lte`, values[values.length - 1]]);
  }
  const nullable = fields.find(([, field]) => field.nullable)?.[0];
  if (nullable) add(nullable, [`${nullable}__isnull`, 'True']);
  if (nullable) add(nullable, [`${nullable}__isnull`, 'False']);

  const text = first((_, field) => field.type === 'text' && !field.codelist && !field.url && !field.email && !field.choices);
  const value = text && valuesOf(records, text).find((candidate) => [...candidate].length >= 3);
  if (text && value) {
    const chars = [...value];
    const length = Math.min(5, chars.length);
    const start = Math.min(Math.floor(chars.length / 3), chars.length - length);
    add(text, [`${text}__icontains`, chars.slice(start, start + length).join('')]);
    add(text, [`${text}__istartswith`, chars.slice(0, length).join('')]);
    add(text, [`${text}__iexact`, value]);
  }
  return filters;
}

const pathOf = (name: string, query: Query) => `/rest/v1/${name}/${query.length ? `?${new URLSearchParams(query)}` : ''}`;
const ordered = (ordering: string): Query => (ordering ? [['ordering', ordering]] : []);
const paged = (page: number): Query => (page > 1 ? [['page', String(page)]] : []);

/** One list's part of the grid: orderings × pages, then filters × (none, another field's order) × pages. */
function gridOf(resource: Resource, api: ListApi, records: Shown[]): string[] {
  const paths: string[] = [];
  for (const ordering of ['', ...api.orderings]) {
    for (const page of PAGES) paths.push(pathOf(resource.name, [...ordered(ordering), ...paged(page)]));
  }
  for (const { field, query } of filtersOf(resource, api, records)) {
    const others = api.orderings.filter((ordering) => ordering.replace(/^-/, '') !== field);
    for (const ordering of ['', others.length ? pick(others) : '']) {
      for (const page of FILTER_PAGES) paths.push(pathOf(resource.name, [...query, ...ordered(ordering), ...paged(page)]));
    }
  }
  return [...new Set(paths)];
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

function summarise(measured: Measured[], gridSize: number) {
  const sorted = measured.map((request) => request.ms).sort((a, b) => a - b);
  // Pages past the end answer fast: the figures of the pages with records, apart.
  const answered = measured.filter((request) => request.status === 200).map((request) => request.ms).sort((a, b) => a - b);
  const statuses: Record<number, number> = {};
  for (const { status } of measured) statuses[status] = (statuses[status] ?? 0) + 1;
  return {
    grid: gridSize,
    requests: measured.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
    over50ms: sorted.filter((ms) => ms > 50).length,
    over1s: sorted.filter((ms) => ms > 1000).length,
    answered: { requests: answered.length, p50: quantile(answered, 0.5), p99: quantile(answered, 0.99) },
    statuses,
    /** Pages past the end of the (filtered) list: valid answers. */
    pastTheEnd: statuses[404] ?? 0,
    failures: measured.filter((request) => request.status >= 500),
    /** Other 4xx: a filter or ordering the grid got wrong, or the server refused. */
    refused: measured.filter((request) => request.status >= 400 && request.status < 500 && request.status !== 404),
    slowest: [...measured].sort((a, b) => b.ms - a.ms).slice(0, 10),
  };
}

async function measure(base: string) {
  const apis = await listApis(base);
  // Warm-up: one page-1 request per list, so that the measured requests find a process that has
  // compiled its code and prepared its statements; the data is not warmed, as every measured URL
  // is new anyway. Its answer gives the real values the filters use.
  const grid: string[] = [];
  for (const resource of RESOURCES) {
    const warm = await timed(base, `/rest/v1/${resource.name}/`);
    if (warm.status !== 200) throw new Error(`${resource.name}/ answered ${warm.status} to the warm-up: ${warm.body.slice(0, 200)}`);
    const records = (JSON.parse(warm.body) as { results: Shown[] }).results;
    grid.push(...gridOf(resource, apis.get(resource.name) as ListApi, records));
  }
  // A seeded random order (and sample, when the grid is larger than GRID_MAX): no list is
  // measured only right after itself, where the previous request has just read its pages.
  const chosen = shuffle([...grid]).slice(0, max);
  const measured: Measured[] = [];
  for (const path of chosen) {
    const { ms, status } = await timed(base, path);
    measured.push({ path, ms, status });
  }
  return { measured, gridSize: grid.length };
}

function print(summary: ReturnType<typeof summarise>, measured: Measured[]) {
  console.log(`\n${summary.requests} of the grid's ${summary.grid} requests, one at a time: p50 ${summary.p50} ms, p99 ${summary.p99} ms, max ${summary.max} ms; over 50 ms ${summary.over50ms}, over 1 s ${summary.over1s}`);
  console.log(`statuses ${JSON.stringify(summary.statuses)} (404: ${summary.pastTheEnd} pages past the end, valid answers); the ${summary.answered.requests} 200s alone: p50 ${summary.answered.p50} ms, p99 ${summary.answered.p99} ms`);
  for (const request of summary.failures) console.log(`FAILED ${request.status} ${request.ms} ms ${request.path}`);
  for (const request of summary.refused) console.log(`refused ${request.status} ${request.path}`);
  console.log('\n| list | requests | p50 | p99 | max |\n| --- | ---: | ---: | ---: | ---: |');
  for (const { name } of RESOURCES) {
    const sorted = measured.filter((request) => request.path.startsWith(`/rest/v1/${name}/`)).map((request) => request.ms).sort((a, b) => a - b);
    console.log(`| ${name} | ${sorted.length} | ${quantile(sorted, 0.5)} | ${quantile(sorted, 0.99)} | ${sorted.at(-1) ?? 0} |`);
  }
  console.log("\nThe grid's slowest ten:\n\n| ms | status | path |\n| ---: | ---: | --- |");
  for (const request of summary.slowest) console.log(`| ${request.ms} | ${request.status} | \`${request.path}\` |`);
}

const databaseUrl = process.env.DATABASE_URL;
if (!process.env.GRID_BASE && !databaseUrl) throw new Error('Set GRID_BASE (a running server) or DATABASE_URL (a database to start ours on).');
const server: Running | undefined = process.env.GRID_BASE ? undefined : await startOurs(databaseUrl as string, Number(process.env.GRID_WORKERS ?? 1));
const base = (process.env.GRID_BASE ?? server?.base ?? '').replace(/\/$/, '');
if (server) await new Promise((resolve) => setTimeout(resolve, Number(process.env.GRID_SETTLE ?? 30) * 1000));
try {
  const { measured, gridSize } = await measure(base);
  const summary = summarise(measured, gridSize);
  print(summary, measured);
  const where = process.env.GRID_BASE ? { base } : { database: /^postgres(ql)?:/.test(databaseUrl as string) ? 'postgres' : 'sqlite' };
  const scale = process.env.GRID_SCALE ? { scale: Number(process.env.GRID_SCALE) } : {};
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const file = join(root, `bench/results/grid-${label}.json`);
  writeFileSync(file, `${JSON.stringify({ label, ...where, ...scale, node: process.version, requests: measured, summary }, null, 2)}\n`);
  console.log(`\nwrote ${file}`);
  if (summary.failures.length) process.exitCode = 1;
} finally {
  await server?.stop();
}
