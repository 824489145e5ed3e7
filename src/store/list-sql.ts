/**
 * The SQL of a list: the caller's visible records that match the filters, counted, or selected
 * in the requested order a page at a time. Kysely builds it anew for every request; the engine
 * reuses the statement its SQL text was prepared as.
 */
import { sql, type AliasedRawBuilder, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterTree } from '../query/filters.ts';
import { projectPathOf, SERVICE, storedFields, type Caller, type Entity, type OrderTerm, type Resource, type StoredField } from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { orderColumn } from './columns.ts';
import type { Database, Engine, OrderByTerm } from './engine/index.ts';
import { whereFilters, type FilterUse } from './filter-sql.ts';
import { column, projectColumnOf, towardsProject, visibleProjectsQuery, visibleRecords, type Query } from './visibility.ts';

export interface PageRequest {
  order: readonly OrderTerm[];
  /** No ordering was asked for: the resource's pinned ids come first. */
  pinned: boolean;
  limit: number;
  offset: number;
  /** Found by walking the order's index for at most this many rows, the filters checked row by row (pages/in-sql.ts, `way`). */
  walk?: number;
  /** Only records of these projects can match (pages/in-sql.ts, `within`): read through the project's index. */
  within?: readonly number[];
  /**
   * The filters' matches found first, apart, then read by id and sorted (pages/in-sql.ts: filters
   * no index serves): the planner finds them in the narrowest index holding the filtered columns
   * rather than walk the whole order's index reading every row.
   */
  matchesFirst?: boolean;
  /**
   * The page's ids found first: the order's index walked alone, each id checked against the
   * caller's matches (found in the filters' own indexes), up to the page's end; rows are read for
   * those only (pages/in-sql.ts).
   */
  idsInOrder?: boolean;
  /**
   * The page's ids found in the order's index, each checked against the filters' matches kept in
   * memory (`Dialect.among`, Engine.runAmong; pages/kept-matches.ts) and then for visibility, past
   * the offset; rows are read for those only (pages/in-sql.ts).
   */
  among?: boolean;
  /**
   * The page's ids found first, in the order's index alone (it holds the id, and the project of a
   * record that keeps it), past the offset; rows are read for the page's ids only, where the
   * engine would read every row it skips (Dialect.readsSkippedRows; pages/in-sql.ts).
   */
  idsFirst?: boolean;
}

/**
 * A known position of a list in its order (pages/seek.ts): the id of the record there, and its
 * value of the order's field where the order is one field then `id`; a page read from it starts
 * there.
 */
export interface Seek {
  id: number;
  /** The stored value (its sort key, for a text) of the order's first field; absent in id order. */
  value?: unknown;
}

function field(resource: Resource, name: string): StoredField {
  const found = entityOf(resource.table).fields[name];
  if (!found || found.kind !== 'stored') throw new Error(`${resource.table}.${name} is not a stored field`);
  return found;
}

/** The caller's visible records that match the filters. */
async function matchingRecords(engine: Engine, resource: Resource, caller: Caller, filters: FilterTree | undefined, db?: Kysely<Database>, use?: FilterUse, from?: Query): Promise<Query> {
  return whereFilters(await visibleRecords(engine, resource, caller, db, from), engine, caller, resource.table, filters, use);
}

/** One term of a page's ORDER BY, and whether it is a column of the table rather than an expression over one. */
interface PageOrderTerm {
  term: OrderByTerm;
  isColumn: boolean;
}

/** The ORDER BY terms of a page's order on `t`: the pinned ids first where asked, then each field's as the dialect orders it. */
function orderTerms(engine: Engine, resource: Resource, order: readonly OrderTerm[], pinned: boolean): PageOrderTerm[] {
  const terms: PageOrderTerm[] = [];
  if (pinned && resource.pinnedOrder) {
    const positions = resource.pinnedOrder.map((id, position) => sql`when ${sql.lit(id)} then ${sql.lit(position)}`);
    terms.push({ term: [sql`case ${column('t', 'id')} ${sql.join(positions, sql` `)} else ${sql.lit(resource.pinnedOrder.length)} end`, 'asc'], isColumn: false });
  }
  for (const term of order) {
    const declared = field(resource, term.field);
    const value = column('t', orderColumn(term.field, declared));
    for (const ordered of engine.dialect.orderTerms(value, declared.nullable, term.descending)) terms.push({ term: ordered, isColumn: ordered[0] === value });
  }
  return terms;
}

function orderedBy(query: Query, terms: readonly PageOrderTerm[]): Query {
  for (const { term: [expression, modifiers] } of terms) query = query.orderBy(expression, modifiers);
  return query;
}

function applyOrder(engine: Engine, query: Query, resource: Resource, order: readonly OrderTerm[], pinned: boolean): Query {
  return orderedBy(query, orderTerms(engine, resource, order, pinned));
}

const selections = new WeakMap<Entity, AliasedRawBuilder<unknown, string>>();
/** Declared names are plain identifiers: they need no escaping inside double quotes. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * The entity's stored columns, selected from `t` under their own names, made once as one SQL
 * fragment: a list of forty columns then costs one step to compile on every request, not forty.
 * Kysely aliases a selection, so the fragment ends in the last column and takes its name.
 */
export function selectColumns(query: Query, entity: Entity): Query {
  let selection = selections.get(entity);
  if (!selection) {
    const names = storedFields(entity).map(([name]) => name);
    if (!names.every((name) => PLAIN_NAME.test(name))) throw new Error(`${entity.table}: a column name that is not a plain identifier`);
    const last = names[names.length - 1];
    const before = names.slice(0, -1).map((name) => `"t"."${name}" as "${name}", `).join('');
    selections.set(entity, (selection = sql.raw(`${before}"t"."${last}"`).as(last)));
  }
  return query.select(selection);
}

export async function countQuery(engine: Engine, resource: Resource, caller: Caller, filters?: FilterTree): Promise<Query> {
  return (await matchingRecords(engine, resource, caller, filters)).select(sql<number | string>`count(*)`.as('count'));
}

/**
 * The records at `seek` or after it in `order` (one field then `id` ascending, or `id` alone):
 * a range of the order's index from the noted value, less the records of that value before
 * the noted id.
 */
function fromSeek(resource: Resource, order: readonly OrderTerm[], seek: Seek): Expression<SqlBool> {
  const [term] = order;
  const id = column('t', 'id');
  if (term.field === 'id') return sql<SqlBool>`${id} ${sql.raw(term.descending ? '<=' : '>=')} ${seek.id}`;
  const value = column('t', orderColumn(term.field, field(resource, term.field)));
  const [past, atOrPast] = term.descending ? ['<', '<='] : ['>', '>='];
  return sql<SqlBool>`(${value} ${sql.raw(atOrPast)} ${seek.value} and (${value} ${sql.raw(past)} ${seek.value} or ${id} >= ${seek.id}))`;
}

/** One page: the caller's matching records in the requested order (from `seek` on, when given). */
export async function pageQuery(engine: Engine, resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree, seek?: Seek): Promise<Query> {
  const terms = orderTerms(engine, resource, page.order, page.pinned);
  const from = page.walk ? walked(engine, resource, page, terms, seek) : undefined;
  let records = selectColumns(
    page.matchesFirst ? await matchedFirst(engine, resource, caller, filters)
      : page.idsInOrder ? await idsInOrder(engine, resource, caller, page, filters, seek)
        : page.among ? await idsAmongKept(engine, resource, caller, page, seek)
          : page.idsFirst ? await idsFirst(engine, resource, caller, page, filters, seek)
            : await matchingRecords(engine, resource, caller, filters, undefined, page.walk ? 'walked' : 'indexed', from),
    entityOf(resource.table),
  );
  if (seek && !from) records = records.where(fromSeek(resource, page.order, seek));
  const project = page.within ? projectColumnOf(entityOf(resource.table), 't') : null;
  if (project && page.within) records = records.where(engine.dialect.inList(project as never, engine.dialect.listParameter(page.within)));
  const ordered = from ? inWalkOrder(records, terms) : orderedBy(records, terms);
  // The ids found first are the page's own: its offset is behind them.
  return ordered.limit(page.limit).offset(page.idsFirst || page.among ? 0 : page.offset);
}

/**
 * The caller's visible records among the ids the filters match, found by a subquery of their own
 * (its `t` the table again; on PostgreSQL only where they are few: pages/in-sql.ts): at scale
 * 100, `help_text__icontains=wa&ordering=-order` of custom fields, 51,000 of 932,000 match: 0.3 s
 * found in the text's index (it carries the id), where the planner walked the whole order's index
 * reading every row, 0.9–1.3 s (SQLite).
 */
async function matchedFirst(engine: Engine, resource: Resource, caller: Caller, filters: FilterTree | undefined): Promise<Query> {
  // PostgreSQL gathers them as one array first (Dialect.amongFew), then reads each by id: given
  // the subquery as a join, it probed it for each row of the order's index instead.
  const ids = await filterMatchQuery(engine, resource, caller, filters);
  return (await visibleRecords(engine, resource, caller)).where(engine.dialect.amongFew(column('t', 'id'), sql`(${ids})`));
}

/** The ids of the records the filters match, whether the caller may see them or not (pages/kept-matches.ts). */
export async function filterMatchQuery(engine: Engine, resource: Resource, caller: Caller, filters: FilterTree | undefined): Promise<Query> {
  return whereFilters(engine.db.selectFrom(`${resource.table} as t`), engine, caller, resource.table, filters).select(column('t', 'id').as('id'));
}

/**
 * The ids of the records the filters match, whoever may see them, each with its project (a
 * table that carries it): a set of matches and its counts per project read by one statement
 * (Engine.readIdsTallied, pages/kept-matches.ts).
 */
export function matchesAndProjectsQuery(engine: Engine, resource: Resource, filters: FilterTree): Query {
  const project = projectColumnOf(entityOf(resource.table), 't');
  if (!project) throw new Error(`${resource.name}: its table does not carry its records' project`);
  return whereFilters(engine.db.selectFrom(`${resource.table} as t`), engine, SERVICE, resource.table, filters).select([column('t', 'id').as('id'), project.as('project')]);
}

/**
 * The ids of the records of `projects` the filters match, whoever asks (every record there
 * without filters): what a set of matches kept in memory reads again of the projects a write
 * changed (pages/kept-matches.ts), for tables that carry their records' project.
 */
export function projectMatchesQuery(engine: Engine, resource: Resource, projects: readonly number[], filters?: FilterTree): Query {
  const project = projectColumnOf(entityOf(resource.table), 't');
  if (!project) throw new Error(`${resource.name}: its table does not carry its records' project`);
  const records = engine.db.selectFrom(`${resource.table} as t`).where(engine.dialect.inList(project, engine.dialect.listParameter(projects)));
  return whereFilters(records, engine, SERVICE, resource.table, filters).select(column('t', 'id').as('id'));
}

/** The caller's visible records among the ids `ids` (a subquery) names. */
async function visibleAmong(engine: Engine, resource: Resource, caller: Caller, ids: Query): Promise<Query> {
  return (await visibleRecords(engine, resource, caller)).where(column('t', 'id') as never, 'in', ids as never);
}

/**
 * The caller's records among the page's ids, found first in the order's index: each id it holds,
 * in order, checked against the caller's matches, up to the page's end. `+` keeps the id's own
 * index (the table) out of the plan: SQLite's planner would read each match's row by its id and
 * sort them all (at scale 100, comments prefixed `revis` by `-created_at`, page 50: 137 ms warm,
 * 420 ms cold) instead of walking the order's index, which holds the id (24 ms).
 */
async function idsInOrder(engine: Engine, resource: Resource, caller: Caller, page: PageRequest, filters: FilterTree | undefined, seek?: Seek): Promise<Query> {
  const matches = await matchQuery(engine, resource, caller, filters);
  let ids: Query = engine.db.selectFrom(`${resource.table} as t`).select(column('t', 'id').as('id')).where(sql<SqlBool>`+${column('t', 'id')} in (${matches})`);
  if (seek) ids = ids.where(fromSeek(resource, page.order, seek));
  ids = applyOrder(engine, ids, resource, page.order, page.pinned).limit(page.offset + page.limit);
  return visibleAmong(engine, resource, caller, ids);
}

/**
 * The records of the page's ids, found first in the order's index (which holds the id): each
 * id in order checked against the kept matches (`Dialect.among`), then whether the caller may see it,
 * past the offset. The matches cost no SQL at all, where `idsInOrder` finds them again for
 * every page; visibility is asked only of the records that match. The page's ids are gathered as
 * one array on PostgreSQL (`Dialect.amongFew`): with `in (…)` a prepared statement's generic plan
 * reads the whole table to find their rows (budget items by `label`: 305 ms for 30 rows).
 */
async function idsAmongKept(engine: Engine, resource: Resource, caller: Caller, page: PageRequest, seek?: Seek): Promise<Query> {
  const id = column('t', 'id');
  return rowsOfPage(engine, resource, page, (await visibleRecords(engine, resource, caller)).select(id.as('id')).where(engine.dialect.among(id)), seek);
}

/**
 * The records of the page's ids, found first: the caller's matching records in the order, past
 * the offset, selecting the id alone. PostgreSQL then walks the order's index without reading a
 * row (an index-only scan: the index carries the project, which the visibility join looks up in
 * the project's own index, indexes.ts) and reads the page's thirty rows by id, where a page
 * selecting every column reads each row it skips (at scale 100, budget items by `amount`, page
 * 100: 3,000 rows read, 24–32 ms idle, 30–150 ms under load; so, 16–23 ms idle).
 */
async function idsFirst(engine: Engine, resource: Resource, caller: Caller, page: PageRequest, filters: FilterTree | undefined, seek?: Seek): Promise<Query> {
  return rowsOfPage(engine, resource, page, (await matchingRecords(engine, resource, caller, filters)).select(column('t', 'id').as('id')), seek);
}

/**
 * The rows of the page's own ids, `candidates` (ids of `t`) taken in the page's order from `seek`
 * on, past the offset (pageQuery applies no offset again), gathered as one array where the engine
 * would otherwise plan their join for any number (`Dialect.amongFew`).
 */
function rowsOfPage(engine: Engine, resource: Resource, page: PageRequest, candidates: Query, seek?: Seek): Query {
  const ids = applyOrder(engine, seek ? candidates.where(fromSeek(resource, page.order, seek)) : candidates, resource, page.order, page.pinned).limit(page.limit).offset(page.offset);
  return engine.db.selectFrom(`${resource.table} as t`).where(engine.dialect.amongFew(column('t', 'id'), ids));
}

/**
 * Every one of the caller's matching records in the list's order, as one statement: a whole-list
 * download reads it a batch at a time through a cursor, from one snapshot of the data.
 */
export async function wholeListQuery(engine: Engine, resource: Resource, caller: Caller, order: Pick<PageRequest, 'order' | 'pinned'>, filters?: FilterTree): Promise<Query> {
  const records = selectColumns(await matchingRecords(engine, resource, caller, filters), entityOf(resource.table));
  return applyOrder(engine, records, resource, order.order, order.pinned);
}

/**
 * The first `walk` records of the table in the page's order (`terms`, from `seek` on), as `t`: a
 * walk that meets no more rows than that whatever the filters (pages/in-sql.ts falls back to
 * another way where it found too few). A subquery with a LIMIT is not merged into a query that
 * joins. Its order's terms that are not columns of the table (SQLite's `x is null` before a
 * nullable field) are selected as columns of the walk (`walkColumn`), and the page is ordered by
 * those (`inWalkOrder`): SQLite then sees the walk's rows come in the page's order and stops at
 * the page's end, where ordered by the expressions it read the walk's every row and sorted them
 * (at scale 100, comments holding `he` by `-created_at`, page 1: 3.3 ms so, 0.2 ms now).
 */
function walked(engine: Engine, resource: Resource, page: PageRequest, terms: readonly PageOrderTerm[], seek?: Seek): Query {
  let rows: Query = engine.db.selectFrom(`${resource.table} as t`).selectAll('t');
  terms.forEach(({ term: [expression], isColumn }, position) => {
    if (!isColumn) rows = rows.select(sql`${expression}`.as(walkColumn(position)));
  });
  if (seek) rows = rows.where(fromSeek(resource, page.order, seek));
  return engine.db.selectFrom(orderedBy(rows, terms).limit(page.walk as number).as('t'));
}

/** The name a walk selects its order's `position`th term under, where that term is not a column. */
const walkColumn = (position: number) => `_order_${position}`;

/** A page of a walk (`walked`) in the walk's own order: its terms that are not columns by the walk's columns of them. */
function inWalkOrder(query: Query, terms: readonly PageOrderTerm[]): Query {
  terms.forEach(({ term: [expression, modifiers], isColumn }, position) => {
    query = query.orderBy(isColumn ? expression : column('t', walkColumn(position)), modifiers);
  });
  return query;
}

/**
 * The ids of the caller's matching records, for a set of them kept in memory (pages/in-memory.ts).
 * Where each record holds its project, the projects the caller sees are found once, apart, not
 * joined record by record; `+` keeps the project's index out of SQLite's plan, which the filters'
 * own index serves better (at scale 100, custom fields named like `in`, 322,000 of 932,000 for an
 * anonymous caller: 0.30 s joined, 0.14 s so, 0.70 s through the project's index).
 */
export async function matchSetQuery(engine: Engine, resource: Resource, caller: Caller, filters?: FilterTree): Promise<Query> {
  const entity = entityOf(resource.table);
  const visibility = resource.visibility;
  const project = visibility.kind === 'project' && visibility.path.join() === projectPathOf(entity)?.join() ? projectColumnOf(entity, 't') : null;
  if (caller.isAdmin || !project) return matchQuery(engine, resource, caller, filters);
  const records = engine.db.selectFrom(`${resource.table} as t`).where(sql<SqlBool>`+${project} in (${visibleProjectsQuery(engine, caller)})`);
  return whereFilters(records, engine, caller, resource.table, filters).select(column('t', 'id').as('id'));
}

/** The ids of the caller's matching records (pages/in-memory.ts). */
export async function matchQuery(engine: Engine, resource: Resource, caller: Caller, filters?: FilterTree): Promise<Query> {
  return (await matchingRecords(engine, resource, caller, filters)).select(column('t', 'id').as('id'));
}

/** The ids of every record of the resource's table, in the page's order, whoever sees them (pages/in-memory.ts). */
export function orderQuery(engine: Engine, resource: Resource, page: Pick<PageRequest, 'order' | 'pinned'>): Query {
  const ids: Query = engine.db.selectFrom(`${resource.table} as t`).select(column('t', 'id').as('id'));
  return applyOrder(engine, ids, resource, page.order, page.pinned);
}

/**
 * The positions `step`, 2·`step`, … records on from `from` in `order`, `count` of them (without
 * `from`: from the first record, which is the first of them), by `n`: `id`, and `value`, the
 * stored value of the order's first field where it is not `id`. One statement walks to the last
 * of them, numbering the rows it passes, rather than one statement (and one round trip, one plan)
 * per position: fewer where the list ends first.
 */
export async function marksQuery(engine: Engine, resource: Resource, caller: Caller, filters: FilterTree | undefined, order: readonly OrderTerm[], from: Seek | null, step: number, count: number): Promise<Query> {
  // Without `from` the first row is the first position; with it, the known one, left out.
  const skipped = from === null ? 0 : 1;
  const walked = await walkedInOrder(engine, resource, caller, filters, order, from, (count - 1 + skipped) * step + 1);
  // The walked rows are in the order asked for; numbered again in it (a window's own order), as
  // a subquery's order is not kept by the query around it. The order is one field then `id`, or
  // `id` alone (seek.ts): `value` and `id` order the rows as it does, the nulls of a field that
  // may be null first where it is descending, as its order puts them (SQLite's `desc` alone, last).
  const terms = order.flatMap((each) => {
    const [name, direction] = [sql.ref(each.field === 'id' ? 'm.id' : 'm.value'), sql.raw(each.descending ? 'desc' : 'asc')];
    return each.descending && each.field !== 'id' && field(resource, each.field).nullable ? [sql`${name} is null desc`, sql`${name} desc`] : [sql`${name} ${direction}`];
  });
  const numbered = engine.db
    .selectFrom(walked.as('m'))
    .selectAll('m')
    .select(sql<number>`row_number() over (order by ${sql.join(terms)})`.as('n'));
  return engine.db
    .selectFrom(numbered.as('w'))
    .selectAll('w')
    .where(sql<SqlBool>`${sql.ref('w.n')} > ${sql.lit(skipped)} and (${sql.ref('w.n')} - 1) % ${sql.lit(step)} = 0`)
    .orderBy('w.n');
}

/**
 * The caller's whole list in `order` (one field then `id`, or `id` alone) from the known position
 * `from` on, `from` itself included, or from its start, `rows` records at most: each one's `id`,
 * `value` (as marksQuery), `project`, and `stamp`, the version of `tables` the statement read.
 * Where a write's change to the list is measured by its projects (pages/seek.ts, `carry`),
 * positions are noted from every record walked, not only the marked ones: the projects of the
 * records before each mark are kept.
 */
export async function walkQuery(engine: Engine, resource: Resource, caller: Caller, order: readonly OrderTerm[], from: Seek | null, tables: readonly string[], rows: number): Promise<Query> {
  // The version of `tables` the statement reads (data-version.ts, `stamp`), in its own snapshot.
  const stamp = engine.db.selectFrom('table_version').select(sql<number | null>`max(version)`.as('stamp')).where('name', 'in', [...tables]);
  return (await walkedInOrder(engine, resource, caller, undefined, order, from, rows)).select([recordsProject(resource).as('project'), stamp.as('stamp')]);
}

/** The caller's matching records in `order` from `from` on (itself included), `rows` at most: `id`, and `value` where the order is a field's. */
async function walkedInOrder(engine: Engine, resource: Resource, caller: Caller, filters: FilterTree | undefined, order: readonly OrderTerm[], from: Seek | null, rows: number): Promise<Query> {
  const [term] = order;
  let walked: Query = (await matchingRecords(engine, resource, caller, filters)).select(column('t', 'id').as('id'));
  if (term.field !== 'id') walked = walked.select(column('t', orderColumn(term.field, field(resource, term.field))).as('value'));
  if (from !== null) walked = walked.where(fromSeek(resource, order, from));
  return applyOrder(engine, walked, resource, order, false).limit(rows);
}

/** The column of `t` holding its record's project (lists whose marks are carried: pages/seek.ts). */
function recordsProject(resource: Resource): RawBuilder<unknown> {
  const project = projectColumnOf(entityOf(resource.table), 't');
  if (project === null) throw new Error(`${resource.name}: its records hold no project`);
  return project;
}

/**
 * Of the caller's records of `projects`, how many there are (`records`) and how many are at
 * `seek` or after it in `order` (`after`): what a write to those projects moved around a noted
 * position (pages/seek.ts). A few projects' records, read through the project's index.
 */
export async function aroundQuery(engine: Engine, resource: Resource, caller: Caller, order: readonly OrderTerm[], seek: Seek, projects: readonly number[]): Promise<Query> {
  return (await matchingRecords(engine, resource, caller, undefined))
    .where(engine.dialect.inList(recordsProject(resource) as never, engine.dialect.listParameter(projects)))
    .select([sql<number | string>`count(*)`.as('records'), sql<number | string | null>`sum(case when ${fromSeek(resource, order, seek)} then 1 else 0 end)`.as('after')]);
}

/**
 * The project of every record matching the filters (whoever may see them), to be tallied
 * (Engine.tally): a histogram counted whole (project-counts.ts). Records whose path to a
 * project is broken hold none (null). Ungrouped: SQLite reads the filter's index range, or for a
 * filter no index serves (a two-letter search) the searched key's index whole, which carries the
 * project, and its reader thread counts; grouped in SQL, it sorted every match into a temporary
 * B-tree first (at scale 100, budget items of a date range: 0.37 s so, 0.08 s to read them).
 */
export function matchesProjectQuery(engine: Engine, resource: Resource, filters: FilterTree | undefined): Query {
  const { query, project } = matchesWithProject(engine, resource, filters);
  return query.select(project.as('project'));
}

/**
 * How many records match the filters per project (whoever may see them), of `projects` or all:
 * `project` and `count`, in project order (no project first). Read through the project's index,
 * grouped as it is read: a write's few projects counted again, or a list unfiltered (read whole
 * so, 3.1 million targets in 0.43 s, tallied 0.85 s).
 */
export function projectCountsQuery(engine: Engine, resource: Resource, filters: FilterTree | undefined, projects?: readonly number[]): Query {
  const { query, project } = matchesWithProject(engine, resource, filters);
  return (projects ? query.where(engine.dialect.inList(project as never, engine.dialect.listParameter(projects))) : query)
    .select([project.as('project'), sql<number | string>`count(*)`.as('count')]).groupBy(project as never).orderBy(project as never, (order) => order.asc().nullsFirst());
}

function matchesWithProject(engine: Engine, resource: Resource, filters: FilterTree | undefined) {
  const path = projectPathOf(resource);
  if (!path || path.length === 0) throw new Error(`${resource.name}: its records belong to no project`);
  const owner = towardsProject(engine.db.selectFrom(`${resource.table} as t`), 't', entityOf(resource.table), path, 'p', 'leftJoin');
  return { query: whereFilters(owner.query, engine, SERVICE, resource.table, filters), project: owner.project };
}

/**
 * The project of every record of a table holding its project per record (columns.ts,
 * projectColumnName) that falls in one of the disjoint `parts` (complement.ts), to be tallied
 * (Engine.tally): one index range per part, UNION ALL (an OR of the parts would lead the planner
 * to read the whole table).
 */
export function partsProjectQuery(engine: Engine, resource: Resource, parts: readonly FilterTree[]): Query {
  return partsUnion(engine, resource, parts, (project) => project.as('project'));
}

/** How many records fall in the disjoint `parts`, counted up to `most` only. */
export function partsCountQuery(engine: Engine, resource: Resource, parts: readonly FilterTree[], most: number): Query {
  return engine.db.selectFrom(partsUnion(engine, resource, parts, () => sql.lit(1).as('one')).limit(most).as('m')).select(sql<number | string>`count(*)`.as('count'));
}

function partsUnion(engine: Engine, resource: Resource, parts: readonly FilterTree[], selected: (project: RawBuilder<unknown>) => AliasedRawBuilder<unknown, string>): Query {
  const project = projectColumnOf(entityOf(resource.table), 't');
  if (!project) throw new Error(`${resource.name}: its records do not hold their project`);
  const [first, ...rest] = parts.map((part) => whereFilters(engine.db.selectFrom(`${resource.table} as t`), engine, SERVICE, resource.table, part).select(selected(project)));
  return rest.reduce((union, part) => union.unionAll(part), first);
}

/** One record the caller may see, by id; `db` is the transaction a write reads it in. */
export async function recordQuery(engine: Engine, resource: Resource, caller: Caller, id: number, db?: Kysely<Database>): Promise<Query> {
  return selectColumns(await visibleRecords(engine, resource, caller, db), entityOf(resource.table)).where(column('t', 'id'), '=', id);
}
