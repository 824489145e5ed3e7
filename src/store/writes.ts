/**
 * Creating, changing and deleting records through the API (issue: writes). Each write is one
 * transaction: the record is validated against its declaration, its references must exist and
 * be visible to the caller, unique fields stay unique, and the caller must hold a role that may
 * write it (resources.md). A refused write changes nothing.
 */
import type { Kysely } from 'kysely';
import {
  EDIT_ROLES, organisationsWithRole, projectPathOf, storedFields, writersOf,
  type Caller, type Entity, type Resource, type Row,
} from '../resources/define.ts';
import { ENTITY_BY_TABLE } from '../resources/index.ts';
import { checkRecord, cleanRecord, type Problem } from '../resources/validate.ts';
import { changeData } from './data-version.ts';
import { nowCanonical } from '../text/time.ts';
import type { Connection, Database } from './connect.ts';
import { entityOf, fromColumns, oneRecord } from './read.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import { insertRecord, updateRecord } from './columns.ts';

export type WriteKind = 'create' | 'replace' | 'patch';

export class WriteRefused extends Error {
  readonly reason: 'invalid' | 'forbidden' | 'not_found';
  readonly problems: Problem[];

  constructor(reason: 'invalid' | 'forbidden' | 'not_found', problems: Problem[] = []) {
    super(reason);
    this.reason = reason;
    this.problems = problems;
  }
}



/** The project a record belongs to, following its declared path; null when it has none. */
async function projectOf(db: Kysely<Database>, entity: Entity, record: Row): Promise<number | null> {
  const path = projectPathOf(entity);
  if (!path) return null;
  if (path.length === 0) return record.id ?? null;
  let value: unknown = record[path[0]];
  let table = storedFields(entity).find(([name]) => name === path[0])?.[1].references as string;
  for (const foreignKey of path.slice(1)) {
    if (value === null || value === undefined) return null;
    const row = await db.selectFrom(table).select(foreignKey).where('id', '=', value as number).executeTakeFirst();
    value = row?.[foreignKey] ?? null;
    table = storedFields(entityOf(table)).find(([name]) => name === foreignKey)?.[1].references as string;
  }
  return (value as number | null) ?? null;
}

async function isPartner(db: Kysely<Database>, project: number, organisations: readonly number[]): Promise<boolean> {
  if (organisations.length === 0) return false;
  const row = await db.selectFrom('partnership').select('id').where('project', '=', project).where('organisation', 'in', organisations).executeTakeFirst();
  return row !== undefined;
}

/** http.md: public and published, or a project of one of the caller's organisations. */
async function projectVisible(connection: Connection, db: Kysely<Database>, caller: Caller, project: number): Promise<boolean> {
  if (caller.isAdmin) return true;
  const row = await db.selectFrom('project').select(['is_public', 'publishing_status']).where('id', '=', project).executeTakeFirst();
  if (!row) return false;
  const stored = fromColumns(entityOf('project'), connection.dialect, { ...row, id: project });
  if (stored.is_public && stored.publishing_status === 'published') return true;
  return isPartner(db, project, [...caller.organisations.keys()]);
}

/** Each foreign key must name a record that exists and that the caller may see. */
async function referenceProblems(connection: Connection, db: Kysely<Database>, entity: Entity, caller: Caller, record: Row, skip: ReadonlySet<string>): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [name, field] of storedFields(entity)) {
    const value = record[name];
    if (!field.references || name === 'id' || skip.has(name) || typeof value !== 'number') continue;
    const target = entityOf(field.references);
    const exists = await db.selectFrom(target.table).selectAll().where('id', '=', value).executeTakeFirst();
    const project = exists ? await projectOf(db, target, fromColumns(target, connection.dialect, exists as Row)) : null;
    const visible = exists && (project === null || (await projectVisible(connection, db, caller, project)));
    if (!visible) problems.push({ field: name, code: 'does_not_exist', value });
  }
  return problems;
}

async function uniqueProblems(db: Kysely<Database>, entity: Entity, record: Row, id: number | null, skip: ReadonlySet<string>): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [name, field] of storedFields(entity)) {
    const value = record[name];
    if (!field.unique || typeof value !== 'string' || value === '' || skip.has(name)) continue;
    // Case is folded as JavaScript folds it, the same on both stores (SQLite's lower() folds
    // ASCII only): the candidates share the D7 key, which any case-insensitive match does.
    const caseless = field.unique === 'ci';
    let query = db.selectFrom(entity.table).select(['id', name]).where(caseless ? sortKeyColumn(name) : name, '=', caseless ? sortKey(value) : value);
    if (id !== null) query = query.where('id', '<>', id);
    const owner = (await query.execute()).find((row) => !caseless || String(row[name]).toLowerCase() === value.toLowerCase());
    if (owner) problems.push({ field: name, code: 'unique', value, owner: owner.id as number });
  }
  return problems;
}

/** Whether the caller holds one of `roles` at a partner organisation of the record's project. */
async function partnerWith(db: Kysely<Database>, resource: Resource, caller: Caller, roles: ReadonlySet<string>, record: Row): Promise<boolean> {
  const project = await projectOf(db, resource, record);
  return project !== null && isPartner(db, project, organisationsWithRole(caller, roles));
}

/**
 * May the caller make this write? `existing` is the record before it (null for a create),
 * `record` the record after it (the existing one for a delete).
 */
async function mayWrite(db: Kysely<Database>, resource: Resource, caller: Caller, kind: WriteKind | 'delete', existing: Row | null, record: Row): Promise<boolean> {
  if (caller.isAdmin) return true;
  const writers = writersOf(resource);
  switch (writers.kind) {
    case 'admins':
      return false;
    case 'organisation':
      return (kind === 'replace' || kind === 'patch') && organisationsWithRole(caller, EDIT_ROLES).includes(record.id);
    case 'partners':
      return (existing === null || (await partnerWith(db, resource, caller, writers.roles, existing))) && partnerWith(db, resource, caller, writers.roles, record);
    case 'authors': {
      const own = existing !== null && caller.userId !== null && existing[resource.serviceFields?.author ?? ''] === caller.userId;
      if (kind === 'create') return partnerWith(db, resource, caller, writers.roles, record);
      if (kind === 'delete') return own || partnerWith(db, resource, caller, writers.moderators, record);
      // The author rewrites their own text; moved elsewhere, it must go where they may write.
      const moved = existing !== null && (await projectOf(db, resource, existing)) !== (await projectOf(db, resource, record));
      return own && (!moved || partnerWith(db, resource, caller, writers.roles, record));
    }
  }
}

/** The nested collections of a stored record, as a written record would hold them (for checks). */
async function nestedOf(connection: Connection, db: Kysely<Database>, entity: Entity, id: number | null): Promise<Row> {
  const nested: Row = {};
  for (const collection of entity.nested ?? []) {
    const rows = id === null ? [] : await db.selectFrom(collection.entity.table).selectAll().where(collection.parent, '=', id).execute();
    nested[collection.field] = rows.map((row) => fromColumns(collection.entity, connection.dialect, row as Row));
  }
  return nested;
}

/** Creates (id null) or changes a record; its id. Refusals throw WriteRefused. */
export async function saveRecord(connection: Connection, resource: Resource, caller: Caller, kind: WriteKind, id: number | null, input: Row): Promise<number> {
  try {
    return await writeRecord(connection, resource, caller, kind, id, input);
  } catch (error) {
    // A sequence left behind its table (by a tool outside the service) is moved on, and the write made again.
    if (!connection.dialect.isIdClash(error, resource.table)) throw error;
    await connection.dialect.syncGeneratedIds(connection.db, resource.table);
    return writeRecord(connection, resource, caller, kind, id, input);
  }
}

async function writeRecord(connection: Connection, resource: Resource, caller: Caller, kind: WriteKind, id: number | null, input: Row): Promise<number> {
  return changeData(connection, async (trx) => {
    const scoped: Connection = { ...connection, db: trx };
    const existing = id === null ? null : await oneRecord(scoped, resource, caller, id);
    if (id !== null && !existing) throw new WriteRefused('not_found');
    const service = resource.serviceFields ?? {};
    const ignore = new Set(['id', ...Object.values(service)]);
    // PUT keeps the stored value of an optional field it leaves out; required ones must be given.
    const base = kind === 'replace' && existing ? Object.fromEntries(storedFields(resource).filter(([name, field]) => !field.required && !ignore.has(name)).map(([name]) => [name, existing[name]])) : {};
    const { record: cleaned, problems } = cleanRecord(resource, { ...base, ...input }, { partial: kind === 'patch', ignore });
    const record: Row = { ...(existing ?? {}), ...cleaned };
    const stamp = nowCanonical();
    if (service.created && !existing) record[service.created] = stamp;
    if (service.modified) record[service.modified] = stamp;
    if (service.author && !existing) record[service.author] = caller.userId;
    if (problems.length === 0) problems.push(...checkRecord(resource, { ...record, ...(await nestedOf(connection, trx, resource, id)) }));
    // A value already refused is not looked up: it may be one the database cannot even compare.
    const skip = new Set([...(service.author ? [service.author] : []), ...problems.map((problem) => problem.field)]);
    problems.push(...(await referenceProblems(connection, trx, resource, caller, record, skip)));
    problems.push(...(await uniqueProblems(trx, resource, record, id, skip)));
    if (problems.length) throw new WriteRefused('invalid', problems);
    if (!(await mayWrite(trx, resource, caller, kind, existing, record))) throw new WriteRefused('forbidden');
    if (existing && id !== null) {
      await updateRecord(connection, trx, resource, id, record);
      return id;
    }
    return insertRecord(connection, trx, resource, record);
  });
}

export async function deleteRecord(connection: Connection, resource: Resource, caller: Caller, id: number): Promise<void> {
  await changeData(connection, async (trx) => {
    const scoped: Connection = { ...connection, db: trx };
    const existing = await oneRecord(scoped, resource, caller, id);
    if (!existing) throw new WriteRefused('not_found');
    if (!(await mayWrite(trx, resource, caller, 'delete', existing, existing))) throw new WriteRefused('forbidden');
    for (const collection of resource.nested ?? []) await trx.deleteFrom(collection.entity.table).where(collection.parent, '=', id).execute();
    await detachReferences(trx, resource.table, id);
    await trx.deleteFrom(resource.table).where('id', '=', id).execute();
  });
}

/**
 * What pointed to a deleted record: optional references are cleared (a transaction keeps its
 * history without the organisation); records that cannot exist without it (an organisation's
 * employments and partnerships) go with it.
 */
async function detachReferences(db: Kysely<Database>, table: string, id: number): Promise<void> {
  for (const entity of ENTITY_BY_TABLE.values()) {
    for (const [name, field] of storedFields(entity)) {
      if (field.references !== table || name === 'id') continue;
      if (field.nullable) await db.updateTable(entity.table).set({ [name]: null }).where(name, '=', id).execute();
      else await db.deleteFrom(entity.table).where(name, '=', id).execute();
    }
  }
}
