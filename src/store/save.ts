/**
 * Creating, changing and deleting records through the API (issue: writes). Each write is one
 * transaction: the record is validated against its declaration, its references must exist and
 * be visible to the caller, unique fields stay unique, and the caller must hold a role that may
 * write it (resources.md). A refused write changes nothing.
 */
import type { Kysely } from 'kysely';
import { projectPathOf, storedFields, type Caller, type Entity, type Resource, type Row, type StoredField } from '../resources/define.ts';
import { ENTITY_BY_TABLE, entityOf } from '../resources/index.ts';
import { checkRecord, cleanRecord, type Problem } from '../resources/validate.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import { nowCanonical } from '../text/time.ts';
import { fromColumns, insertRecord, updateRecord } from './columns.ts';
import { changeData, checkThenChange, type ChangeLog } from './data-version.ts';
import type { Database, Engine } from './engine/index.ts';
import { oneRecord } from './reader.ts';
import { fillProjects, mayWrite, projectsOfWrite, seenAmong } from './visibility.ts';

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

/** Each foreign key must name a record that exists and that the caller may see. */
async function referenceProblems(engine: Engine, db: Kysely<Database>, entity: Entity, caller: Caller, record: Row, skip: ReadonlySet<string>): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [name, field] of storedFields(entity)) {
    const value = record[name];
    if (!field.references || name === 'id' || skip.has(name) || typeof value !== 'number') continue;
    if (!(await seenAmong(engine, entityOf(field.references).table, [value], caller, db)).has(value)) problems.push({ field: name, code: 'does_not_exist', value });
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

/** The nested collections of a stored record, as a written record would hold them (for checks). */
async function nestedOf(engine: Engine, db: Kysely<Database>, entity: Entity, id: number | null): Promise<Row> {
  const nested: Row = {};
  for (const collection of entity.nested ?? []) {
    const rows = id === null ? [] : await db.selectFrom(collection.entity.table).selectAll().where(collection.parent, '=', id).execute();
    nested[collection.field] = rows.map((row) => fromColumns(collection.entity, engine.dialect, row as Row));
  }
  return nested;
}

function missingRequired(resource: Resource, input: Row, ignore: ReadonlySet<string>): Problem[] {
  return storedFields(resource)
    .filter(([name, field]) => field.required && !ignore.has(name) && input[name] === undefined)
    .map(([name]) => ({ field: name, code: 'required' }));
}

/** Creates (id null) or changes a record; its id. Refusals throw WriteRefused. */
export async function saveRecord(engine: Engine, resource: Resource, caller: Caller, kind: WriteKind, id: number | null, input: Row): Promise<number> {
  try {
    return await writeRecord(engine, resource, caller, kind, id, input);
  } catch (error) {
    // A sequence left behind its table (by a tool outside the service) is moved on, and the write made again.
    if (!engine.isIdClash(error, resource.table)) throw error;
    await engine.syncGeneratedIds(engine.db, resource.table);
    return writeRecord(engine, resource, caller, kind, id, input);
  }
}

/** What a write's checks found, for the change itself (checkThenChange). */
interface CheckedWrite {
  existing: Row | null;
  /** The record as it will be stored. */
  record: Row;
  /** The fields this write gives a value (of an existing record, the only ones written). */
  written: Row;
  projects: { before: number | null; after: number | null };
  /** Fields whose problems are not looked up (uniqueProblems). */
  skip: ReadonlySet<string>;
}

/** The record a write checked was moved by another meanwhile (its checks were read before the change began). */
class MovedMeanwhile extends Error {}

async function writeRecord(engine: Engine, resource: Resource, caller: Caller, kind: WriteKind, id: number | null, input: Row): Promise<number> {
  const check = async (trx: Kysely<Database>, log: ChangeLog) => {
    const checked = await checkWrite(engine, resource, caller, kind, id, input, trx);
    logProjects(log, resource, checked.projects);
    return checked;
  };
  // `checkedApart`: the checks were read before the version row was taken (checkThenChange).
  const apply = async (trx: Kysely<Database>, { existing, record, written, skip }: CheckedWrite, checkedApart: boolean): Promise<number> => {
    // Another write may have taken the value since.
    if (checkedApart) {
      const taken = await uniqueProblems(trx, resource, record, id, skip);
      if (taken.length) throw new WriteRefused('invalid', taken);
    }
    if (!existing || id === null) {
      const created = await insertRecord(engine, trx, resource, record);
      await fillProjects(trx, resource, [created]);
      return created;
    }
    // Only the fields given are written: what another write changed meanwhile in other fields
    // stays. Checked apart, where the record still leads to the project it was checked in.
    const first = checkedApart ? projectPathOf(resource)?.[0] : undefined;
    if (!(await updateRecord(engine, trx, resource, id, written, first ? { [first]: existing[first] ?? null } : {}))) throw new MovedMeanwhile();
    await fillProjects(trx, resource, [id]);
    return id;
  };
  try {
    return await checkThenChange(engine, [resource.table], check, (trx, checked) => apply(trx, checked, engine.checksBeforeChange));
  } catch (error) {
    if (!(error instanceof MovedMeanwhile)) throw error;
  }
  // Moved (or deleted) between its checks and its change: checked again with the version row held.
  return changeData(engine, [resource.table], async (trx, log) => apply(trx, await check(trx, log), false));
}

/** Whether the caller may make the write, and what it would store; refusals throw WriteRefused. */
async function checkWrite(engine: Engine, resource: Resource, caller: Caller, kind: WriteKind, id: number | null, input: Row, trx: Kysely<Database>): Promise<CheckedWrite> {
  const existing = id === null ? null : await oneRecord(engine, resource, caller, id, trx);
  if (id !== null && !existing) throw new WriteRefused('not_found');
  const service = resource.serviceFields ?? {};
  const ignore = new Set(['id', ...Object.values(service)]);
  // PUT keeps the stored value of an optional field it leaves out (unread, as DRF leaves it); required ones must be given.
  const { record: cleaned, problems } = cleanRecord(resource, input, { partial: kind !== 'create', ignore, source: 'api' });
  if (kind === 'replace') problems.push(...missingRequired(resource, input, ignore));
  const written: Row = { ...cleaned };
  const stamp = nowCanonical();
  if (service.created && !existing) written[service.created] = stamp;
  if (service.modified) written[service.modified] = stamp;
  if (service.author && !existing) written[service.author] = caller.userId;
  const record: Row = { ...(existing ?? {}), ...written };
  if (problems.length === 0) problems.push(...checkRecord(resource, { ...record, ...(await nestedOf(engine, trx, resource, id)) }));
  // A value already refused is not looked up: it may be one the database cannot even compare.
  // Nor is a stored value the write leaves as it is: DRF checks the fields given, and a record's
  // own project is seen through the record itself.
  const unwritten = existing ? storedFields(resource).map(([name]) => name).filter((name) => !(name in cleaned)) : [];
  const skip = new Set([...(service.author ? [service.author] : []), ...problems.map((problem) => problem.field), ...unwritten]);
  problems.push(...(await referenceProblems(engine, trx, resource, caller, record, skip)));
  problems.push(...(await uniqueProblems(trx, resource, record, id, skip)));
  if (problems.length) throw new WriteRefused('invalid', problems);
  const projects = await projectsOfWrite(trx, resource, existing, record);
  if (!(await mayWrite(trx, resource, caller, kind, existing, record, projects))) throw new WriteRefused('forbidden');
  return { existing, record, written, projects, skip };
}

export async function deleteRecord(engine: Engine, resource: Resource, caller: Caller, id: number): Promise<void> {
  const nested = (resource.nested ?? []).map((collection) => collection.entity.table);
  const referring = referencesTo(resource.table).map(([entity]) => entity.table);
  await changeData(engine, [resource.table, ...nested, ...referring], async (trx, log) => {
    const existing = await oneRecord(engine, resource, caller, id, trx);
    if (!existing) throw new WriteRefused('not_found');
    const projects = await projectsOfWrite(trx, resource, existing, existing);
    if (!(await mayWrite(trx, resource, caller, 'delete', existing, existing, projects))) throw new WriteRefused('forbidden');
    logProjects(log, resource, projects);
    for (const collection of resource.nested ?? []) await trx.deleteFrom(collection.entity.table).where(collection.parent, '=', id).execute();
    await detachReferences(trx, resource.table, id);
    await trx.deleteFrom(resource.table).where('id', '=', id).execute();
  });
}

/** The projects a write takes a record from and to, for the counts kept per project (data-version.ts, ChangeLog). */
function logProjects(log: ChangeLog, resource: Resource, { before, after }: { before: number | null; after: number | null }): void {
  if (projectPathOf(resource)) log.projects(resource.table, [before, after]);
}

/**
 * What pointed to a deleted record: optional references are cleared (a transaction keeps its
 * history without the organisation); records that cannot exist without it (an organisation's
 * employments and partnerships) go with it.
 */
async function detachReferences(db: Kysely<Database>, table: string, id: number): Promise<void> {
  for (const [entity, name, field] of referencesTo(table)) {
    if (field.nullable) await db.updateTable(entity.table).set({ [name]: null }).where(name, '=', id).execute();
    else await db.deleteFrom(entity.table).where(name, '=', id).execute();
  }
}

/** The foreign keys that point to records of `table`, each with its entity. */
function referencesTo(table: string): [Entity, string, StoredField][] {
  return [...ENTITY_BY_TABLE.values()].flatMap((entity) => storedFields(entity)
    .filter(([name, field]) => field.references === table && name !== 'id')
    .map(([name, field]): [Entity, string, StoredField] => [entity, name, field]));
}
