/**
 * Who sees and who may write what (http.md, Roles and visibility; resources.md, write rules).
 * The one place the rule lives: written once, as SQL, and used by lists and counts, details,
 * filters through relations, writes and their references, my_projects and the reports.
 *
 * A project is open to everyone when it is public and published; a signed-in caller also sees
 * the projects their organisations take part in; administrators see everything. A record tied to
 * a project (through the foreign keys of its path) is seen when its project is.
 */
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import {
  EDIT_ROLES, organisationsWithRole, projectPathOf, storedFields, writersOf,
  type Caller, type Entity, type Resource, type Row,
} from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { carriesProject, PROJECT_COLUMN, projectColumnName } from './columns.ts';
import type { Database, Engine, LookedUp } from './engine/index.ts';

// A query over one declared table, whose columns are known only at run time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tables are declared at run time
export type Query = SelectQueryBuilder<Database, any, object>;

const columns = new Map<string, RawBuilder<unknown>>();

/**
 * `alias.name` as a column reference. Kysely's expressions are immutable, so each is made once
 * and shared by every query that names it: building a query is most of what a fresh page costs.
 */
export function column(alias: string, name: string): RawBuilder<unknown> {
  const key = `${alias}.${name}`;
  let reference = columns.get(key);
  if (!reference) columns.set(key, (reference = sql.ref(key)));
  return reference;
}

/** The project's columns that make it open to everyone: public, and published (indexes.ts carries them beside the id). */
export const OPEN_COLUMNS = ['is_public', 'publishing_status'] as const;

/** What decides which records a caller sees: administrators, anonymous callers, or their roles. */
export function visibilityKey(caller: Caller): string {
  if (caller.isAdmin) return 'admin';
  return [...caller.organisations].sort(([a], [b]) => a - b).map(([id, groups]) => `${id}:${[...groups].sort().join('+')}`).join(',');
}

function partnerProjects(db: Kysely<Database>, organisations: readonly number[]) {
  return db.selectFrom('partnership').select('project').where('organisation', 'in', organisations);
}

/**
 * `query` (over records of `entity` as `alias`) narrowed to those whose project, reached through
 * the foreign keys of `path`, the caller may see. Joins are aliased `${prefix}0`, `${prefix}1`, …
 * so that nested queries do not mix them up.
 */
export function throughVisibleProject(engine: Engine, query: Query, caller: Caller, alias: string, entity: Entity, path: readonly string[], prefix: string): Query {
  if (caller.isAdmin) return query;
  // The project itself (an empty path), or the project its path leads to, joined.
  const at = path.length === 0 ? alias : `${prefix}${path.length - 1}`;
  if (path.length > 0) {
    const owner = towardsProject(query, alias, entity, path, prefix);
    query = outwards(owner.query, `project as ${at}`, column(at, 'id'), owner.project);
  }
  // SQL fragments rather than expression builders: this predicate is part of nearly every query.
  const open = sql<SqlBool>`(${column(at, OPEN_COLUMNS[0])} = ${engine.dialect.true} and ${column(at, OPEN_COLUMNS[1])} = 'published')`;
  const organisations = [...caller.organisations.keys()];
  if (organisations.length === 0) return query.where(open);
  return query.where(sql<SqlBool>`(${open} or ${column(at, 'id')} in (${partnerProjects(engine.db, organisations)}))`);
}

/**
 * `query` joined to `table` where `id` equals `reference`, always read from the records outwards:
 * a cross join that SQLite never reorders (PostgreSQL plans it as any join). Given statistics,
 * SQLite's planner would otherwise start from the 60,000 projects and sort a million budget
 * items for a page that walking the items in order finds in thirty steps.
 */
function outwards(query: Query, table: string, id: RawBuilder<unknown>, reference: RawBuilder<unknown>): Query {
  return query.crossJoin(table).where(sql<SqlBool>`${id} = ${reference}`);
}

/**
 * `query` (over records of `entity` as `alias`) joined along `path` up to the record that names
 * the project (joins aliased `${prefix}0`, `${prefix}1`, …), and that record's project column;
 * with left joins, a record whose path is broken is kept, its project null.
 */
export function towardsProject(query: Query, alias: string, entity: Entity, path: readonly string[], prefix: string, join: 'innerJoin' | 'leftJoin' = 'innerJoin'): { query: Query; project: RawBuilder<unknown> } {
  // A record that keeps its project (columns.ts, PROJECT_COLUMN) needs no join to find it.
  if (carriesProject(entity) && path.join() === projectPathOf(entity)?.join()) return { query, project: column(alias, PROJECT_COLUMN) };
  let at = alias;
  hopsTowardsProject(entity, path).forEach(({ foreignKey, target }, hop) => {
    const next = `${prefix}${hop}`;
    query = join === 'leftJoin'
      ? query.leftJoin(`${target} as ${next}`, column(next, 'id') as never, column(at, foreignKey) as never)
      : outwards(query, `${target} as ${next}`, column(next, 'id'), column(at, foreignKey));
    at = next;
  });
  return { query, project: column(at, path[path.length - 1]) };
}

/** The foreign keys of `path` but its last (the project's), each with the table it leads to. */
function hopsTowardsProject(entity: Entity, path: readonly string[]): { foreignKey: string; target: string }[] {
  let at = entity;
  return path.slice(0, -1).map((foreignKey) => {
    const target = (at.fields[foreignKey] as { references: string }).references;
    at = entityOf(target);
    return { foreignKey, target };
  });
}

/** The ids of the projects the caller may see (not for administrators: they see all). */
export function visibleProjectsQuery(engine: Engine, caller: Caller): Query {
  const projects: Query = engine.db.selectFrom('project as t').select(column('t', 'id').as('id'));
  return throughVisibleProject(engine, projects, caller, 't', entityOf('project'), [], 'v');
}

/** Reports without organisations, and those of the caller's organisations. */
async function visibleReportIds(db: Kysely<Database>, caller: Caller): Promise<number[]> {
  // Reports are few and keep their organisations as a JSON list: matched here rather than in SQL.
  const reports = await db.selectFrom('report').select(['id', 'organisations']).execute();
  return reports
    .filter((report) => {
      const organisations = JSON.parse(report.organisations as string) as number[];
      return organisations.length === 0 || organisations.some((id) => caller.organisations.has(id));
    })
    .map((report) => report.id as number);
}

/** my_projects (resources.md): partner projects of the caller's organisations, unpublished ones only for edit roles. */
function ownProjects(engine: Engine, query: Query, caller: Caller): Query {
  if (caller.isAdmin) return query;
  const editing = organisationsWithRole(caller, EDIT_ROLES);
  const others = [...caller.organisations.keys()];
  if (others.length === 0) return query.where(sql<SqlBool>`1 = 0`);
  return query.where((eb) => {
    const published = eb.and([eb(column('t', 'id'), 'in', partnerProjects(engine.db, others)), eb(column('t', 'publishing_status'), '=', 'published')]);
    return editing.length ? eb.or([published, eb(column('t', 'id'), 'in', partnerProjects(engine.db, editing))]) : published;
  });
}

/** The records of `resource` the caller may see, as `t` (read from `from` where given), before filters, order and paging; `db` runs what it must read first. */
export async function visibleRecords(engine: Engine, resource: Resource, caller: Caller, db: Kysely<Database> = engine.db, from?: Query): Promise<Query> {
  const query: Query = from ?? engine.db.selectFrom(`${resource.table} as t`);
  if (caller.isAdmin) return query;
  const visibility = resource.visibility;
  switch (visibility.kind) {
    case 'public':
      return query;
    case 'organisations': {
      const ids = await visibleReportIds(db, caller);
      return query.where(column('t', 'id'), 'in', ids.length ? ids : [-1]);
    }
    case 'own-projects':
      return ownProjects(engine, query, caller);
    case 'project':
      return throughVisibleProject(engine, query, caller, 't', entityOf(resource.table), visibility.path, 'v');
  }
}

/** The ids of `entity`'s records the caller may see (every one when it is not tied to a project). */
export function visibleIds(engine: Engine, entity: Entity, caller: Caller, prefix: string): Query {
  const query: Query = engine.db.selectFrom(`${entity.table} as ${prefix}`).select(`${prefix}.id`);
  const path = projectPathOf(entity);
  return path ? throughVisibleProject(engine, query, caller, prefix, entity, path, `${prefix}_`) : query;
}

/** Which of `ids` (records of `table`) the caller may see. */
export async function seenAmong(engine: Engine, table: string, ids: readonly number[], caller: Caller, db: Kysely<Database> = engine.db): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const query = visibleIds(engine, entityOf(table), caller, 's').where('s.id', 'in', [...new Set(ids)]);
  return new Set((await engine.run(query.compile(), db)).map((row) => Number(row.id)));
}

// ---- writes ------------------------------------------------------------------------------------

/** Which of `projects` the caller may edit: an edit role at a partner organisation, or an administrator. */
export async function editableAmong(engine: Engine, projects: readonly number[], caller: Caller): Promise<Set<number>> {
  if (caller.isAdmin) return new Set(projects);
  const organisations = organisationsWithRole(caller, EDIT_ROLES);
  if (projects.length === 0 || organisations.length === 0) return new Set();
  const query = engine.db.selectFrom('partnership').select('project').where('project', 'in', [...new Set(projects)]).where('organisation', 'in', organisations);
  return new Set((await engine.run(query.compile())).map((row) => Number(row.project)));
}

/** The project a record belongs to, following its declared path; null when it has none. */
export async function projectOf(db: Kysely<Database>, entity: Entity, record: Row): Promise<number | null> {
  const path = projectPathOf(entity);
  if (!path) return null;
  if (path.length === 0) return record.id ?? null;
  let value: unknown = record[path[0]];
  let table = (entity.fields[path[0]] as { references: string }).references;
  for (const foreignKey of path.slice(1)) {
    if (value === null || value === undefined) return null;
    const row = await db.selectFrom(table).select(foreignKey).where('id', '=', value as number).executeTakeFirst();
    value = row?.[foreignKey] ?? null;
    table = storedFields(entityOf(table)).find(([name]) => name === foreignKey)?.[1].references as string;
  }
  return (value as number | null) ?? null;
}

/** The column of a record (as `alias`) that holds its project, where the record holds it: its own foreign key or PROJECT_COLUMN. */
export function projectColumnOf(entity: Entity, alias: string): RawBuilder<unknown> | null {
  const name = projectColumnName(entity);
  return name === null ? null : column(alias, name);
}

/** The tables between an entity's table and its project: the records its path goes through. */
export function pathTables(entity: Entity): string[] {
  return hopsTowardsProject(entity, projectPathOf(entity) ?? []).map((hop) => hop.target);
}

/**
 * PROJECT_COLUMN (columns.ts) as an insert fills it (Engine.insertMany): the project found from
 * the record's first foreign key along its path; undefined for a record that keeps none.
 */
export function projectLookup(db: Kysely<Database>, entity: Entity): LookedUp | undefined {
  if (!carriesProject(entity)) return undefined;
  const path = projectPathOf(entity)!;
  const first = (entity.fields[path[0]] as { references: string }).references;
  const owner = towardsProject(db.selectFrom(`${first} as s`), 's', entityOf(first), path.slice(1), 'q');
  const found = owner.query.select(owner.project.as('project'));
  return { column: PROJECT_COLUMN, from: path[0], of: (key) => found.where(sql<SqlBool>`${column('s', 'id')} = ${key}`) };
}

/**
 * Writes each record's project into PROJECT_COLUMN again, following its path: of the records
 * `ids` (a write that may have moved them), or of every record of the table (an import that
 * replaced records on their path).
 */
export async function fillProjects(db: Kysely<Database>, entity: Entity, ids?: readonly number[]): Promise<void> {
  const lookup = projectLookup(db, entity);
  if (!lookup || ids?.length === 0) return;
  let update = db.updateTable(entity.table).set({ [PROJECT_COLUMN]: lookup.of(sql.ref(`${entity.table}.${lookup.from}`)) as never });
  if (ids) update = update.where('id', 'in', [...ids]);
  await update.execute();
}

/**
 * The projects a write takes a record from and to (`before` null for a create): the path to the
 * project is followed once where its first step is unchanged, as it is in most writes.
 */
export async function projectsOfWrite(db: Kysely<Database>, entity: Entity, existing: Row | null, record: Row): Promise<{ before: number | null; after: number | null }> {
  const before = existing === null ? null : await projectOf(db, entity, existing);
  const first = projectPathOf(entity)?.[0] ?? 'id';
  const after = existing !== null && existing[first] === record[first] ? before : await projectOf(db, entity, record);
  return { before, after };
}

/** Whether the caller holds one of `roles` at a partner organisation of the project. */
async function partnerIn(db: Kysely<Database>, caller: Caller, roles: ReadonlySet<string>, project: number | null): Promise<boolean> {
  const organisations = organisationsWithRole(caller, roles);
  if (project === null || organisations.length === 0) return false;
  return (await db.selectFrom('partnership').select('id').where('project', '=', project).where('organisation', 'in', organisations).executeTakeFirst()) !== undefined;
}

export type WriteKind = 'create' | 'replace' | 'patch' | 'delete';

/**
 * May the caller make this write? `existing` is the record before it (null for a create),
 * `record` the record after it (the existing one for a delete), `projects` theirs
 * (projectsOfWrite).
 */
export async function mayWrite(db: Kysely<Database>, resource: Resource, caller: Caller, kind: WriteKind, existing: Row | null, record: Row, projects: { before: number | null; after: number | null }): Promise<boolean> {
  if (caller.isAdmin) return true;
  const writers = writersOf(resource);
  const { before, after } = projects;
  switch (writers.kind) {
    case 'admins':
      return false;
    case 'organisation':
      return (kind === 'replace' || kind === 'patch') && organisationsWithRole(caller, EDIT_ROLES).includes(record.id);
    case 'partners':
      if (existing !== null && !(await partnerIn(db, caller, writers.roles, before))) return false;
      return (existing !== null && after === before) || partnerIn(db, caller, writers.roles, after);
    case 'authors': {
      const own = existing !== null && caller.userId !== null && existing[resource.serviceFields?.author ?? ''] === caller.userId;
      if (kind === 'create') return partnerIn(db, caller, writers.roles, after);
      if (kind === 'delete') return own || partnerIn(db, caller, writers.moderators, after);
      // The author rewrites their own text; moved elsewhere, it must go where they may write.
      return own && (before === after || partnerIn(db, caller, writers.roles, after));
    }
  }
}
