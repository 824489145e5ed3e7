/**
 * The secondary indexes of a table, derived from its declaration: for every field a list may be
 * ordered by, those the dialect shapes so that a page in that order, either way, reads only its
 * own rows (they serve the field's filters too); for other foreign keys (pages look up and join
 * by them) and `index: 'filter'` fields, one plain index. Bulk loads into empty tables drop them
 * first and build them afterwards. Indexes are created by name if missing: a declaration that
 * changes an existing index's shape comes with a migration that drops it first.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { storedFields, type Entity } from '../resources/define.ts';
import { RESOURCES } from '../resources/index.ts';
import { carriesProject, orderColumn, PROJECT_COLUMN, projectColumnName } from './columns.ts';
import type { Database, Dialect } from './engine/index.ts';
import { OPEN_COLUMNS } from './visibility.ts';

interface Index {
  name: string;
  columns: RawBuilder<unknown>[];
  /** Whether it carries the record's project after its own columns (carriedBy). */
  carries?: boolean;
  /** Columns it carries after its key, not ordered by (Dialect.includes). */
  include?: readonly string[];
}

/**
 * Tables of lists that grow with the data, so are read in the order asked for from an index. A
 * list of a caller's own projects, or of the report definitions its organisations may see, is
 * short and sorted as it is read; an index of `project.is_public` would even lead the planner to
 * start every project-tied list from the projects and sort what it found.
 */
const SHORT = new Set(['own-projects', 'organisations']);
const LISTED = new Set(RESOURCES.filter((resource) => !SHORT.has(resource.visibility.kind)).map((resource) => resource.table));

/** Every name an index of ours may have had, newer or older declarations alike. */
const SUFFIXES = ['idx', 'asc', 'desc'];

/**
 * Tables left without statistics: every list joins the projects by id, and SQLite, knowing there
 * are only 60,000 of them, builds a Bloom filter of all of them for each page of thirty (5 ms a
 * page at scale 100, where the join itself costs 0.1 ms).
 */
export const UNANALYZED = ['project'];

/**
 * The columns an order's filter index carries after its own: the record's project, where the
 * record holds it (a foreign key or PROJECT_COLUMN). Counting a filter's matches per project
 * (project-counts.ts) then reads that index alone, not each match's row: at scale 100 a range of
 * 300,000 targets is grouped in 80 ms instead of 350.
 */
function carriedBy(entity: Entity, column: string): string[] {
  const project = projectColumnName(entity);
  return project === null || project === 'id' || project === column ? [] : [project];
}

/** `carry`: with the columns of carriedBy (false: as migrations 4 and 5 made them, before PROJECT_COLUMN). */
export function secondaryIndexes(entity: Entity, dialect: Dialect, carry = true): Index[] {
  const indexes: Index[] = [];
  for (const [name, field] of storedFields(entity)) {
    if (name === 'id') continue;
    const column = orderColumn(name, field);
    if (field.orderable && LISTED.has(entity.table)) {
      const carried = carry ? carriedBy(entity, column) : [];
      for (const [suffix, columns] of Object.entries(dialect.orderIndexes(column, field.nullable, carried))) {
        indexes.push({ name: `${entity.table}_${column}_${suffix}`, columns, carries: carried.length > 0 && dialect.carryingIndexes(field.nullable).includes(suffix) });
      }
    } else if ((field.references && field.index !== 'none') || field.index === 'filter') {
      indexes.push({ name: `${entity.table}_${column}_idx`, columns: [sql.ref(column)] });
    }
  }
  return indexes;
}

/** The D7 key columns of the entity's fields declared `index: 'search'`, each with a trigram index. */
export function searchedColumns(entity: Entity): string[] {
  return storedFields(entity).filter(([, field]) => field.index === 'search').map(([name, field]) => orderColumn(name, field));
}

/** The index of the project a record keeps (columns.ts, PROJECT_COLUMN), where it keeps one. */
const projectIndex = (entity: Entity): Index[] => (carriesProject(entity) ? [{ name: `${entity.table}${PROJECT_COLUMN}_idx`, columns: [sql.ref(PROJECT_COLUMN)] }] : []);

/**
 * The project's id with what makes a project open to everyone (visibility.ts), where an index can
 * carry columns it is not ordered by: every list's visibility join then reads this small index
 * alone, not the project's row (at scale 100, 3,000 budget items walked by `amount` for page 100:
 * 29 ms with each project's row, 6 ms so). Not ordered by them: the planner must not start a
 * list from the open projects (LISTED, above).
 */
const openProjectIndex = (entity: Entity, dialect: Dialect): Index[] => (entity.table === 'project' && dialect.includes ? [{ name: 'project_open', columns: [sql`id`], include: OPEN_COLUMNS }] : []);

async function createIndexes(db: Kysely<Database>, entity: Entity, indexes: readonly Index[]): Promise<void> {
  for (const index of indexes) {
    const include = index.include ? sql` include (${sql.join(index.include.map((name) => sql.ref(name)))})` : sql``;
    await sql`create index if not exists ${sql.id(index.name)} on ${sql.table(entity.table)} (${sql.join(index.columns)})${include}`.execute(db);
  }
}

/** The indexes of lists' orders and filters (without the carried columns: what migrations 4 and 5 made). */
export const createSecondaryIndexes = (db: Kysely<Database>, dialect: Dialect, entity: Entity, carry = true): Promise<void> => createIndexes(db, entity, secondaryIndexes(entity, dialect, carry));

/** The trigram indexes of searched texts (migration 10). */
export async function createTrigramIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  for (const column of searchedColumns(entity)) for (const statement of dialect.trigramIndex(entity.table, column).create) await statement.execute(db);
}

/** The index of the project a record keeps (migration 11). */
export const createProjectIndex = (db: Kysely<Database>, entity: Entity): Promise<void> => createIndexes(db, entity, projectIndex(entity));

/** The index of open projects (migration 19). */
export const createOpenProjectIndex = (db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> => createIndexes(db, entity, openProjectIndex(entity, dialect));

/** Every index a table has now: a new table's, or one loaded in bulk. */
export async function createAllIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  await createSecondaryIndexes(db, dialect, entity);
  await createTrigramIndexes(db, dialect, entity);
  await createProjectIndex(db, entity);
  await createOpenProjectIndex(db, dialect, entity);
}

/** Every index but the primary key's and the unique ones, before a bulk load into an empty table. */
export async function dropAllIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  for (const index of [...secondaryIndexes(entity, dialect), ...projectIndex(entity), ...openProjectIndex(entity, dialect)]) await sql`drop index if exists ${sql.id(index.name)}`.execute(db);
  for (const column of searchedColumns(entity)) for (const statement of dialect.trigramIndex(entity.table, column).drop) await statement.execute(db);
}

/**
 * Makes again the indexes of orders, of the name suffixes given, that now carry the record's
 * project (migrations 15 and 16), with the planner's statistics of them.
 */
export async function carryProjectsInOrderIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity, suffixes: readonly string[]): Promise<void> {
  const carrying = secondaryIndexes(entity, dialect).filter((index) => index.carries && suffixes.some((suffix) => index.name.endsWith(`_${suffix}`)));
  for (const index of carrying) {
    await sql`drop index if exists ${sql.id(index.name)}`.execute(db);
    await createIndexes(db, entity, [index]);
    await dialect.analyzeIndex(index.name)?.execute(db);
  }
}

/** Drops the indexes of ours that the declaration no longer asks for (an index now covered by a wider one). */
export async function dropUndeclaredIndexes(db: Kysely<Database>, dialect: Dialect, entity: Entity): Promise<void> {
  const declared = new Set(secondaryIndexes(entity, dialect).map((index) => index.name));
  for (const [name, field] of storedFields(entity)) {
    for (const suffix of SUFFIXES) {
      const index = `${entity.table}_${orderColumn(name, field)}_${suffix}`;
      if (!declared.has(index)) await sql`drop index if exists ${sql.id(index)}`.execute(db);
    }
  }
}
