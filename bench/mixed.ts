/**
 * The mixed scenario (issue 14): what a dashboard and its editors send, not one URL repeated.
 * Each request picks a resource among the thirteen, a page among the list's first hundred, an
 * ordering among the resource's orderable fields in either direction (or none), sometimes a
 * filter from a small realistic set (`project=`, a decimal's `__gte`, `currency=`, a text's
 * `__icontains`), and a cache-busting `_=N`; 5 % are writes through a signed-in editor (a new
 * link, a budget item's amount or a transaction's value changed). Before and after the run, a
 * check that nothing answered is stale: every list's count as an administrator against a direct
 * count of its table, and a sample of pages cached before the writes against the same pages
 * asked for afresh.
 */
import type autocannon from 'autocannon';
import { PAGE_SIZE } from '../src/query/list-query.ts';
import { storedFields, type Resource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';

/** A deterministic pseudo-random sequence (mulberry32), so every run asks the same things. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['wa', 'an', 'he', 'ed', 'in', 'ro', 'ma', 'ti'];
const CURRENCIES = ['EUR', 'USD', 'GBP'];
/** Thresholds a dashboard offers (`amount__gte=`), not any number. */
const THRESHOLDS = [1000, 5000, 10_000, 50_000, 100_000];

/** What the generator needs to know of the dataset: pages per list, project ids, the editor's records. */
export interface MixedData {
  /** Pages per list (anonymous), by resource name. */
  pages: Record<string, number>;
  /** Public, published projects (filters). */
  projects: number[];
  editorKey: string;
  editorProjects: number[];
  editorBudgetItems: number[];
  editorTransactions: number[];
}

type Pick = <T>(list: readonly T[]) => T;

/** The filters of the realistic set that apply to `resource`, each a query-string fragment. */
function filtersOf(resource: Resource, data: MixedData, pick: Pick): (() => string)[] {
  const fields = storedFields(resource);
  const filters: (() => string)[] = [];
  for (const [name, field] of fields) {
    if (field.filter) continue;
    if (name === 'project' && field.references === 'project') filters.push(() => `project=${pick(data.projects)}`);
    else if (name === 'currency') filters.push(() => `currency=${pick(CURRENCIES)}`);
    else if (field.type === 'decimal') filters.push(() => `${name}__gte=${pick(THRESHOLDS)}`);
  }
  const texts = fields.filter(([name, field]) => field.type === 'text' && !field.codelist && !field.filter && !name.endsWith('_uri') && field.orderable);
  if (texts.length) filters.push(() => `${pick(texts)[0]}__icontains=${pick(WORDS)}`);
  return filters;
}

/** A read: path and query of one list request. */
export function mixedRead(data: MixedData, random: () => number, sequence: number): string {
  const pick: Pick = (list) => list[Math.floor(random() * list.length)];
  const resource = pick(RESOURCES);
  const params: string[] = [];
  const orderable = storedFields(resource).filter(([, field]) => field.orderable).map(([name]) => name);
  const ordering = random() < 0.1 ? null : pick(orderable);
  if (ordering) params.push(`ordering=${random() < 0.5 ? '-' : ''}${ordering}`);
  const filters = filtersOf(resource, data, pick);
  // A filtered list is read from its first page: past its end there is no page to read.
  if (filters.length && random() < 0.4) params.push(pick(filters)());
  else {
    const page = 1 + Math.floor(random() * Math.min(100, data.pages[resource.name] ?? 1));
    if (page > 1) params.push(`page=${page}`);
  }
  params.push(`_=${sequence}`);
  return `/rest/v1/${resource.name}/?${params.join('&')}`;
}

/** A write by the editor: a new link, or a budget item's amount or a transaction's value changed. */
export function mixedWrite(data: MixedData, random: () => number, sequence: number): autocannon.Request {
  const pick: Pick = (list) => list[Math.floor(random() * list.length)];
  const headers = { authorization: `Token ${data.editorKey}`, 'content-type': 'application/json', accept: 'application/json' };
  const amount = (Math.round(random() * 10_000_000) / 100).toFixed(2);
  const writes: (() => autocannon.Request)[] = [
    () => ({ method: 'POST', path: '/rest/v1/link/', headers, body: JSON.stringify({ project: pick(data.editorProjects), kind: 'A', url: `https://example.org/bench/${sequence}`, caption: 'Benchmark' }) }),
  ];
  if (data.editorBudgetItems.length) writes.push(() => ({ method: 'PATCH', path: `/rest/v1/budget_item/${pick(data.editorBudgetItems)}/`, headers, body: JSON.stringify({ amount }) }));
  if (data.editorTransactions.length) writes.push(() => ({ method: 'PATCH', path: `/rest/v1/transaction/${pick(data.editorTransactions)}/`, headers, body: JSON.stringify({ value: amount }) }));
  return pick(writes)();
}

/** The mix's next request: a write for `writeShare` of them, else a read (what autocannon and wrk send alike). */
export function mixedRequest(data: MixedData, random: () => number, writeShare: number, sequence: number): { write: boolean; request: autocannon.Request } {
  if (random() < writeShare) return { write: true, request: mixedWrite(data, random, sequence) };
  return { write: false, request: { method: 'GET', path: mixedRead(data, random, sequence), headers: { accept: 'application/json' }, body: undefined } };
}

/** autocannon's request list for the mix: `writeShare` of the requests are writes (counted in `sent`). */
export function mixedRequests(data: MixedData, writeShare: number, seed = 14, sent = { writes: 0 }): autocannon.Request[] {
  const random = randomSource(seed);
  let sequence = 0;
  return [{
    setupRequest: (request: autocannon.Request) => {
      const next = mixedRequest(data, random, writeShare, (sequence += 1));
      if (next.write) sent.writes += 1;
      return { ...request, ...next.request };
    },
  }];
}

async function json(base: string, path: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const answer = await fetch(`${base}${path}`, { headers: { accept: 'application/json', connection: 'close', ...headers } });
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
}

/** Ids of every record of a list the caller sees (limit=1000 pages). */
async function allIds(base: string, path: string, headers: Record<string, string>): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page += 1) {
    const body = await json(base, `${path}${path.includes('?') ? '&' : '?'}limit=1000&page=${page}`, headers);
    ids.push(...(body.results as { id: number }[]).map((record) => record.id));
    if (!body.next) return ids;
  }
}

/** Reads what the generator needs through the API: pages per list, projects, the editor's records. */
export async function mixedData(base: string, editorKey: string): Promise<MixedData> {
  const pages: Record<string, number> = {};
  for (const resource of RESOURCES) pages[resource.name] = Math.max(1, Math.ceil(((await json(base, `/rest/v1/${resource.name}/`)).count as number) / PAGE_SIZE));
  const editor = { authorization: `Token ${editorKey}` };
  const projects = ((await json(base, '/rest/v1/budget_item/?limit=200&ordering=id')).results as { project: number }[]).map((item) => item.project);
  const editorProjects = editorKey ? await allIds(base, '/rest/v1/my_projects/', editor) : [];
  const owned = async (resource: string) => (await Promise.all(editorProjects.slice(0, 20).map((project) => allIds(base, `/rest/v1/${resource}/?project=${project}`, editor)))).flat();
  return { pages, projects: [...new Set(projects)], editorKey, editorProjects, editorBudgetItems: await owned('budget_item'), editorTransactions: await owned('transaction') };
}

/** Pages to compare after the run: requests of the mix (of its own sequence), without the `_`. */
export function samplePaths(data: MixedData, count: number): string[] {
  const random = randomSource(7);
  return Array.from({ length: count }, (_, index) => mixedRead(data, random, index).replace(/&?_=\d+$/, '').replace(/\?$/, ''));
}

/** The part of a list answer that must not be stale: its count and records. */
const content = (body: Record<string, unknown>) => JSON.stringify([body.count, body.results]);

/**
 * After the run: each sample path, answered as cached (asked for before the run, and twice, so
 * that both workers may hold it), against the same path with a new `_`, computed afresh. The
 * paths whose answers differed.
 */
export async function staleAnswers(base: string, paths: readonly string[]): Promise<string[]> {
  const stale: string[] = [];
  for (const [index, path] of paths.entries()) {
    const fresh = await json(base, `${path}${path.includes('?') ? '&' : '?'}_=check${index}`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (content(await json(base, path)) !== content(fresh)) {
        stale.push(path);
        break;
      }
    }
  }
  return stale;
}

/** Asks for each path twice on new connections (so every worker may cache it). */
export async function warmPaths(base: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) for (let attempt = 0; attempt < 2; attempt += 1) await json(base, path);
}

/** Every list's count as an administrator sees it (every record), by resource name. */
export async function adminCounts(base: string, adminKey: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const resource of RESOURCES) counts[resource.name] = (await json(base, `/rest/v1/${resource.name}/`, { authorization: `Token ${adminKey}` })).count as number;
  return counts;
}
