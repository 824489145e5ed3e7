/**
 * Reading records: the SQL for a list page, its count and one record, with the caller's
 * visibility, the requested order and the batched lookups of related rows. It knows nothing of
 * HTTP; the query layer hands it an order, a limit and an offset.
 */
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { filterKey, type FilterTerm, type FilterTree, type Hop } from '../query/filters.ts';
import { EDIT_ROLES, organisationsWithRole, storedFields, type Caller, type Entity, type Lookup, type OrderTerm, type Resource, type Row, type StoredField } from '../resources/define.ts';
import { ENTITY_BY_TABLE } from '../resources/index.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import { orderColumn } from './columns.ts';
import { runShaped } from './compiled.ts';
import type { Connection, Database } from './connect.ts';
import { visibilityKey } from './data-version.ts';
import type { Dialect } from './dialect.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tables are declared at run time
type Query = SelectQueryBuilder<Database, any, object>;

/** Lookups send at most this many ids per query. */
const LOOKUP_CHUNK = 1000;

export function entityOf(table: string): Entity {
  const entity = ENTITY_BY_TABLE.get(table);
  if (!entity) throw new Error(`No declaration for table ${table}`);
  return entity;
}

/** Converts a database row into the values its declaration describes. */
export function fromColumns(entity: Entity, dialect: Dialect, columns: Row): Row {
  const row: Row = {};
  for (const [name, field] of storedFields(entity)) row[name] = dialect.fromDb(field, columns[name] ?? null);
  return row;
}

function field(entity: Entity, name: string): StoredField {
  const found = entity.fields[name];
  if (!found || found.kind !== 'stored') throw new Error(`${entity.table}.${name} is not a stored field`);
  return found;
}

const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/** The records of `resource` the caller may see, before ordering and paging. */
async function visibleRecords(connection: Connection, resource: Resource, caller: Caller): Promise<Query> {
  const query: Query = connection.db.selectFrom(`${resource.table} as t`);
  const visibility = resource.visibility;
  if (caller.isAdmin) return query;
  switch (visibility.kind) {
    case 'public':
      return query;
    case 'organisations': {
      const ids = await visibleReportIds(connection, caller);
      return query.where(column('t', 'id'), 'in', ids.length ? ids : [-1]);
    }
    case 'own-projects':
      return ownProjects(query, connection, caller);
    case 'project':
      return throughVisibleProject(query, connection, caller, 't', entityOf(resource.table), visibility.path, 'v');
  }
}

/**
 * `query` (over records of `entity` as `alias`) narrowed to those whose project, reached through
 * the foreign keys of `path`, the caller may see (http.md, Roles and visibility). Joins are
 * aliased `${prefix}0`, `${prefix}1`, … so that nested queries do not mix them up.
 */
function throughVisibleProject(query: Query, connection: Connection, caller: Caller, alias: string, entity: Entity, path: readonly string[], prefix: string): Query {
  let at = alias;
  path.forEach((foreignKey, hop) => {
    const target = field(entity, foreignKey).references as string;
    const next = `${prefix}${hop}`;
    query = query.innerJoin(`${target} as ${next}`, (join) => join.onRef(column(next, 'id') as never, '=', column(at, foreignKey) as never));
    at = next;
    entity = entityOf(target);
  });
  return query.where((eb) => {
    const open = eb.and([eb(column(at, 'is_public'), '=', connection.dialect.true), eb(column(at, 'publishing_status'), '=', 'published')]);
    // http.md: signed-in callers also see the projects their organisations take part in.
    const organisations = [...caller.organisations.keys()];
    if (organisations.length === 0) return open;
    return eb.or([open, eb(column(at, 'id'), 'in', partnerProjects(connection, organisations))]);
  });
}

function partnerProjects(connection: Connection, organisations: readonly number[]) {
  return connection.db.selectFrom('partnership').select('project').where('organisation', 'in', organisations);
}

/** Reports without organisations, and those of the caller's organisations (http.md). */
async function visibleReportIds(connection: Connection, caller: Caller): Promise<number[]> {
  // Reports are few and keep their organisations as a JSON list: matched here rather than in SQL.
  const reports = await connection.db.selectFrom('report').select(['id', 'organisations']).execute();
  return reports
    .filter((report) => {
      const organisations = JSON.parse(report.organisations as string) as number[];
      return organisations.length === 0 || organisations.some((id) => caller.organisations.has(id));
    })
    .map((report) => report.id as number);
}

/** my_projects (resources.md): partner projects of the caller's organisations, unpublished ones only for edit roles. */
function ownProjects(query: Query, connection: Connection, caller: Caller): Query {
  const editing = organisationsWithRole(caller, EDIT_ROLES);
  const others = [...caller.organisations.keys()];
  if (others.length === 0) return query.where(sql<SqlBool>`1 = 0`);
  return query.where((eb) => {
    const published = eb.and([eb(column('t', 'id'), 'in', partnerProjects(connection, others)), eb(column('t', 'publishing_status'), '=', 'published')]);
    return editing.length ? eb.or([published, eb(column('t', 'id'), 'in', partnerProjects(connection, editing))]) : published;
  });
}

/** `%` and `_` are wildcards of LIKE: a searched value matches them literally. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);
const like = (column: Expression<unknown>, pattern: string) => sql<SqlBool>`${column} like ${pattern} escape '\\'`;
const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** One lookup on `alias.name`; text compares by its D7 key where case does not matter or order does. */
function condition(eb: ExpressionBuilder<Database, never>, dialect: Dialect, alias: string, term: FilterTerm): Expression<SqlBool> {
  const value = term.value;
  const text = term.field.type === 'text';
  const plain = column(alias, term.name);
  const keyed = text ? column(alias, sortKeyColumn(term.name)) : plain;
  const stored = (item: unknown) => (text ? item : dialect.toDb(term.field, item));
  const key = (item: unknown) => (text ? sortKey(item as string) : dialect.toDb(term.field, item));
  switch (term.lookup) {
    case 'exact':
      return value === null ? eb(plain, 'is', null) : eb(plain, '=', stored(value));
    case 'iexact':
      return eb(keyed, '=', key(value));
    case 'contains': return like(plain, `%${likeEscaped(value as string)}%`);
    case 'startswith': return like(plain, `${likeEscaped(value as string)}%`);
    case 'endswith': return like(plain, `%${likeEscaped(value as string)}`);
    case 'icontains': return like(keyed, `%${likeEscaped(key(value) as string)}%`);
    case 'istartswith': return like(keyed, `${likeEscaped(key(value) as string)}%`);
    case 'iendswith': return like(keyed, `%${likeEscaped(key(value) as string)}`);
    case 'in': {
      const items = (value as unknown[]).map(stored);
      return items.length ? eb(plain, 'in', items) : sql<SqlBool>`1 = 0`;
    }
    case 'range': {
      const [low, high] = value as unknown[];
      return eb.and([eb(keyed, '>=', key(low)), eb(keyed, '<=', key(high))]);
    }
    case 'isnull':
      return value ? eb(plain, 'is', null) : eb(plain, 'is not', null);
    default:
      return eb(keyed, COMPARISONS[term.lookup], key(value));
  }
}

/**
 * The ids of `hop.table` a term's next step may go to: those matching `inner`, and where the hop
 * is masked only those the caller may see.
 */
function hopTargets(connection: Connection, caller: Caller, hop: Hop, depth: number, inner: (query: Query) => Query): Query {
  let ids: Query = inner(connection.db.selectFrom(`${hop.table} as f`).select('f.id'));
  if (hop.masked) {
    const entity = entityOf(hop.table);
    ids = throughVisibleProject(ids, connection, caller, 'f', entity, entity.projectPath ?? [], `m${depth}_`);
  }
  return ids;
}

/** A term on the record itself, or through its foreign keys as nested `IN (select id …)`. */
function termExpression(eb: ExpressionBuilder<Database, never>, connection: Connection, caller: Caller, term: FilterTerm): Expression<SqlBool> {
  if (term.hops.length === 0) return condition(eb, connection.dialect, 't', term);
  const last = term.hops.length - 1;
  let ids = hopTargets(connection, caller, term.hops[last], last, (query) => query.where((inner) => condition(inner as never, connection.dialect, 'f', term)));
  for (let index = last - 1; index >= 0; index -= 1) {
    const within = ids;
    ids = hopTargets(connection, caller, term.hops[index], index, (query) => query.where(column('f', term.hops[index + 1].foreignKey), 'in', within));
  }
  return eb(column('t', term.hops[0].foreignKey), 'in', ids);
}

function filterExpression(eb: ExpressionBuilder<Database, never>, connection: Connection, caller: Caller, tree: FilterTree): Expression<SqlBool> {
  const each = (item: FilterTree) => filterExpression(eb, connection, caller, item);
  switch (tree.kind) {
    case 'term': return termExpression(eb, connection, caller, tree);
    // Django's exclude() keeps records whose compared value is NULL: NOT of unknown is unknown in SQL.
    case 'not': return sql<SqlBool>`not coalesce(${each(tree.item)}, 1 = 0)`;
    case 'and': return tree.items.length ? eb.and(tree.items.map(each)) : sql<SqlBool>`1 = 1`;
    case 'or': return eb.or(tree.items.map(each));
  }
}

/** The caller's visible records that match the filters. */
async function matchingRecords(connection: Connection, resource: Resource, caller: Caller, filters?: FilterTree): Promise<Query> {
  const query = await visibleRecords(connection, resource, caller);
  return filters ? query.where((eb) => filterExpression(eb as never, connection, caller, filters)) : query;
}

function applyOrder(query: Query, resource: Resource, order: readonly OrderTerm[], pinned: boolean, dialect: Dialect): Query {
  if (pinned && resource.pinnedOrder) {
    const positions = resource.pinnedOrder.map((id, position) => sql`when ${sql.lit(id)} then ${sql.lit(position)}`);
    query = query.orderBy(sql`case ${column('t', 'id')} ${sql.join(positions, sql` `)} else ${sql.lit(resource.pinnedOrder.length)} end`);
  }
  const entity = entityOf(resource.table);
  for (const term of order) {
    const declared = field(entity, term.field);
    for (const [expression, modifiers] of dialect.orderTerms(column('t', orderColumn(term.field, declared)), declared.nullable, term.descending)) {
      query = query.orderBy(expression, modifiers);
    }
  }
  return query;
}

function selectColumns(query: Query, resource: Resource): Query {
  return query.select(storedFields(entityOf(resource.table)).map(([name]) => column('t', name).as(name)));
}

export interface PageRequest {
  order: readonly OrderTerm[];
  /** No ordering was asked for: the resource's pinned ids come first. */
  pinned: boolean;
  limit: number;
  offset: number;
}

/** How many records the caller may see that match the filters; cached until data changes. */
export async function countRecords(connection: Connection, resource: Resource, caller: Caller, filters?: FilterTree): Promise<number> {
  return connection.counts.get(connection, resource, caller, filters, async () => {
    const row = await (await countQuery(connection, resource, caller, filters)).executeTakeFirstOrThrow();
    return Number((row as { count: number | string }).count);
  });
}

export async function countQuery(connection: Connection, resource: Resource, caller: Caller, filters?: FilterTree): Promise<Query> {
  return (await matchingRecords(connection, resource, caller, filters)).select(sql<number | string>`count(*)`.as('count'));
}

/** Where a page in id order starts looking: at the id of a known position before it (see `seekFor`). */
interface Seek {
  id: number;
  descending: boolean;
}

/** The SQL of one page: the caller's matching records in the requested order. */
export async function pageQuery(connection: Connection, resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree, seek?: Seek): Promise<Query> {
  let records = selectColumns(await matchingRecords(connection, resource, caller, filters), resource);
  if (seek) records = records.where(column('t', 'id'), seek.descending ? '<=' : '>=', seek.id);
  return applyOrder(records, resource, page.order, page.pinned, connection.dialect).limit(page.limit).offset(page.offset);
}

/**
 * A deep page in id order would walk every row before it (probing each one's project for
 * visibility). Instead the ids at positions 0, SEEK_STEP, 2·SEEK_STEP, … of the list are noted
 * as pages that deep are asked for (once per data version), and a page starts from the nearest
 * one before it: it walks fewer than SEEK_STEP rows however deep it is.
 */
const SEEK_STEP = 1000;

export interface Marks {
  ids: number[];
  complete: boolean;
  /** Extensions run one after the other: concurrent deep pages note each position once. */
  extending: Promise<unknown>;
}

/** The id SEEK_STEP positions on from id `from` (without one: the first id), or null past the end. */
async function nextMark(connection: Connection, resource: Resource, caller: Caller, filters: FilterTree | undefined, descending: boolean, from: number | null): Promise<number | null> {
  const build = async () => {
    let ids = (await matchingRecords(connection, resource, caller, filters)).select(column('t', 'id').as('id'));
    if (from !== null) ids = ids.where(column('t', 'id'), descending ? '<=' : '>=', from);
    return ids.orderBy(column('t', 'id'), descending ? 'desc' : 'asc').limit(1).offset(from === null ? 0 : SEEK_STEP);
  };
  const shape = `mark|${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}|${descending}|${from !== null}`;
  const [row] = from === null ? await runShaped(connection, shape, build, 2, [1, 0]) : await runShaped(connection, shape, build, 3, [from, 1, SEEK_STEP]);
  return row ? Number((row as { id: number }).id) : null;
}

async function seekFor(connection: Connection, resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree): Promise<{ seek: Seek; offset: number } | null> {
  const [term] = page.order;
  const inIdOrder = page.order.length === 1 && term.field === 'id' && !(page.pinned && resource.pinnedOrder);
  if (!inIdOrder || page.offset < SEEK_STEP || resource.visibility.kind === 'organisations') return null;
  const descending = term.descending;
  const marks = await connection.seeks.get(connection, resource, caller, filters, async (): Promise<Marks> => ({ ids: [], complete: false, extending: Promise.resolve() }), String(descending));
  const wanted = Math.floor(page.offset / SEEK_STEP);
  const extension = marks.extending.then(async () => {
    while (!marks.complete && marks.ids.length <= wanted) {
      const next = await nextMark(connection, resource, caller, filters, descending, marks.ids.at(-1) ?? null);
      if (next === null) marks.complete = true;
      else marks.ids.push(next);
    }
  });
  marks.extending = extension.catch(() => undefined); // a failed query fails this request only
  await extension;
  const step = Math.min(wanted, marks.ids.length - 1);
  if (step < 1) return null;
  return { seek: { id: marks.ids[step], descending }, offset: page.offset - step * SEEK_STEP };
}

export async function pageRecords(connection: Connection, resource: Resource, caller: Caller, page: PageRequest, filters?: FilterTree): Promise<Row[]> {
  const entity = entityOf(resource.table);
  const shape = `page|${resource.name}|${visibilityKey(caller)}|${filterKey(filters)}|${JSON.stringify(page.order)}|${page.pinned}`;
  const seeking = await seekFor(connection, resource, caller, page, filters);
  let rows: object[];
  if (resource.visibility.kind === 'organisations') {
    // Report visibility reads the reports themselves: that query is built afresh each time.
    rows = await (await pageQuery(connection, resource, caller, page, filters)).execute();
  } else if (seeking) {
    const { seek, offset } = seeking;
    rows = await runShaped(connection, `${shape}|seek`, () => pageQuery(connection, resource, caller, page, filters, seek), 3, [seek.id, page.limit, offset]);
  } else {
    rows = await runShaped(connection, shape, () => pageQuery(connection, resource, caller, page, filters), 2, [page.limit, page.offset]);
  }
  return rows.map((columns) => fromColumns(entity, connection.dialect, columns as Row));
}

export async function oneRecord(connection: Connection, resource: Resource, caller: Caller, id: number): Promise<Row | null> {
  const query = selectColumns(await visibleRecords(connection, resource, caller), resource).where(column('t', 'id'), '=', id);
  const columns = await query.executeTakeFirst();
  return columns ? fromColumns(entityOf(resource.table), connection.dialect, columns as Row) : null;
}

/** Every record of a table in id order, a batch at a time (export). */
export async function* allRecords(connection: Connection, entity: Entity, batch = 1000): AsyncGenerator<Row[]> {
  let after = 0;
  for (;;) {
    const rows = await connection.db
      .selectFrom(entity.table)
      .select(storedFields(entity).map(([name]) => name))
      .where('id', '>', after)
      .orderBy('id')
      .limit(batch)
      .execute();
    if (rows.length === 0) return;
    yield rows.map((columns) => fromColumns(entity, connection.dialect, columns as Row));
    after = rows[rows.length - 1].id as number;
  }
}

export function lookupFor(connection: Connection): Lookup {
  return {
    async byColumn(table, columnName, values) {
      const entity = entityOf(table);
      const wanted = [...new Set(values.filter((value) => value !== null && value !== undefined))];
      const rows: Row[] = [];
      for (let start = 0; start < wanted.length; start += LOOKUP_CHUNK) {
        const chunk = wanted.slice(start, start + LOOKUP_CHUNK);
        const build = () => connection.db.selectFrom(table).select(storedFields(entity).map(([name]) => name)).where(columnName, 'in', chunk);
        const found = await runShaped(connection, `lookup|${table}|${columnName}|${chunk.length}`, build, chunk.length, chunk);
        for (const columns of found) rows.push(fromColumns(entity, connection.dialect, columns as Row));
      }
      return rows;
    },
  };
}
