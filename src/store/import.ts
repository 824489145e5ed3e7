/**
 * Import: records of a dataset (dataset.md) into the database, all or nothing. Every record is
 * validated against its declaration and its references; the first problem stops the import
 * with a message naming the file, index, id and field, and nothing is written.
 */
import type { Transaction } from 'kysely';
import { storedFields, type Entity, type NestedCollection, type Row } from '../resources/define.ts';
import { DATASET_FILES, TABLES } from '../resources/index.ts';
import reports, { SEED_REPORTS } from '../resources/reports.ts';
import { importText } from '../resources/messages.ts';
import { checkRecord, cleanRecord } from '../resources/validate.ts';
import { changeData } from './data-version.ts';
import { syncAllGeneratedIds } from './migrations.ts';
import type { Database, Engine } from './engine/index.ts';
import { IdSet } from './idset.ts';
import { createAllIndexes, dropAllIndexes, UNANALYZED } from './indexes.ts';
import { fillProjects, pathTables, projectLookup } from './visibility.ts';
import { BATCH_SIZE, carriesProject, fromColumns, insertRows } from './columns.ts';

export class ImportError extends Error {}

/** The stored form of each built-in report definition, as `remember` reads stored reports. */
const BUILT_IN_REPORTS = new Map(SEED_REPORTS.map((report) => [report.id, JSON.stringify(cleanRecord(reports, report).record)]));

export interface DatasetSource {
  /** Dataset file name without `.json` (budget_item, project, …). */
  file: string;
  /** How messages name it: `budget_item.json` for files. */
  label: string;
  records: AsyncIterable<unknown> | Iterable<unknown>;
  /**
   * How much of it there is, for progress: bytes of a file (`done` reads how many were read), or
   * records where they were counted beforehand (`done` is given the records imported).
   */
  size?: { total: number; unit: 'bytes' | 'records'; done(records: number): number };
}

export interface ImportOptions {
  /** Replace what the database holds; otherwise the dataset is added and a clashing id is an error. */
  replace?: boolean;
  /**
   * With `replace`: users, their employments and API keys stay (the dataset may not hold users or
   * employments); employments at organisations the new data lacks go, as when one is deleted.
   */
  keepUsers?: boolean;
  /** Told after every batch stored: the records of `file` imported so far (the caller decides what to show, and how often). */
  progress?: (file: string, records: number) => void;
}

/** What the import remembers across files: ids per table and values of unique fields. */
class Bookkeeping {
  readonly ids = new Map<string, IdSet>(TABLES.map((entity) => [entity.table, new IdSet()]));
  readonly unique = new Map<string, Map<string, number>>();
  /** Stored columns of records already in the database (reports), to accept identical ones. */
  readonly existing = new Map<number, string>();
  /** Built-in report definitions, untouched since the database was made, that the dataset's own replace. */
  readonly replacedBuiltIns: number[] = [];

  idsOf(table: string): IdSet {
    return this.ids.get(table) as IdSet;
  }

  uniqueValues(entity: Entity, field: string): Map<string, number> {
    const key = `${entity.table}.${field}`;
    let values = this.unique.get(key);
    if (!values) this.unique.set(key, (values = new Map()));
    return values;
  }
}

async function remember(trx: Transaction<Database>, engine: Engine, books: Bookkeeping): Promise<void> {
  for (const entity of TABLES) {
    const uniques = storedFields(entity).filter(([, field]) => field.unique);
    const columns = ['id', ...uniques.map(([name]) => name)];
    const rows = await trx.selectFrom(entity.table).select(columns).execute();
    for (const row of rows) {
      books.idsOf(entity.table).add(row.id as number);
      for (const [name, field] of uniques) {
        const value = row[name];
        if (typeof value === 'string' && value !== '') books.uniqueValues(entity, name).set(field.unique === 'ci' ? value.toLowerCase() : value, row.id as number);
      }
    }
  }
  const stored = await trx.selectFrom(reports.table).selectAll().execute();
  for (const row of stored) books.existing.set(row.id as number, JSON.stringify(fromColumns(reports, engine.dialect, row)));
}

/** What `keepUsers` keeps from the database a replacing import empties. */
const USER_TABLES = new Set(['user', 'employment', 'api_token']);



export async function importRecords(engine: Engine, sources: readonly DatasetSource[], options: ImportOptions = {}): Promise<Map<string, number>> {
  const byFile = new Map(sources.map((source) => [source.file, source]));
  const kept = options.replace && options.keepUsers ? USER_TABLES : new Set<string>();
  const clashing = sources.filter((source) => kept.has(source.file)).map((source) => source.label);
  if (clashing.length) throw new ImportError(`${clashing.join(', ')}: --keep-users keeps the database's users and employments; the dataset may not hold them`);
  const counts = new Map<string, number>();
  await engine.bulkLoad((load) => changeData(engine, TABLES.map((entity) => entity.table), async (trx) => {
    // Tables that hold data keep their indexes: dropping one would lock out every reader meanwhile.
    const populated = await populatedTables(trx);
    const books = new Bookkeeping();
    const loaded = new Set<string>();
    if (options.replace) {
      for (const entity of [...TABLES].reverse()) {
        // Without a reports file the report definitions stay: every database has them.
        if ((entity === reports && !byFile.has('reports')) || kept.has(entity.table)) continue;
        await trx.deleteFrom(entity.table).execute();
      }
    }
    await remember(trx, engine, books);
    for (const { file, entity } of DATASET_FILES) {
      const source = byFile.get(file);
      if (!source) continue;
      const tables = [entity, ...(entity.nested ?? []).map((nested) => nested.entity)];
      const empty = tables.every((table) => books.idsOf(table.table).size === 0 && !populated.has(table.table));
      // A bulk load into an empty table builds its indexes afterwards, in one sorted pass each.
      if (empty) for (const table of tables) await dropAllIndexes(trx, engine.dialect, table);
      counts.set(file, await importFile(trx, engine, entity, source, books, options));
      for (const table of tables) loaded.add(table.table);
      if (empty) {
        await load.indexing(async () => {
          for (const table of tables) await createAllIndexes(trx, engine.dialect, table);
        });
      }
    }
    // Records whose path to their project went through records this import replaced.
    for (const entity of TABLES.filter((table) => carriesProject(table) && !loaded.has(table.table))) {
      if (pathTables(entity).some((table) => loaded.has(table))) await fillProjects(trx, entity);
    }
    if (kept.has('employment')) await trx.deleteFrom('employment').where('organisation', 'not in', trx.selectFrom('organisation').select('id')).execute();
    // The last step, once every file loaded: an import that fails moves no sequence (PostgreSQL
    // would not move one back), and no create can come between the commit and the move (writes
    // wait for the import's transaction). Never back: ids of records a replacement removed stay used.
    await syncAllGeneratedIds(engine, trx);
  }, { lockWaitMs: Infinity }));
  // Without statistics the planner guesses from empty tables and sorts whole lists for page 1, or
  // reads a range that holds most of a table through its index. Under the migrations' lock, which
  // waits for a serving process's write in progress (ANALYZE writes; SQLite would refuse it at once).
  await engine.exclusively((within) => engine.analyze(UNANALYZED, within));
  await engine.vacuum(TABLES.map((entity) => entity.table));
  return counts;
}

async function populatedTables(trx: Transaction<Database>): Promise<Set<string>> {
  const populated = new Set<string>();
  for (const entity of TABLES) {
    if (await trx.selectFrom(entity.table).select('id').limit(1).executeTakeFirst()) populated.add(entity.table);
  }
  return populated;
}

async function importFile(
  trx: Transaction<Database>, engine: Engine, entity: Entity, source: DatasetSource,
  books: Bookkeeping, options: ImportOptions,
): Promise<number> {
  const batch: Row[] = [];
  const children = new Map<NestedCollection, Row[]>((entity.nested ?? []).map((nested) => [nested, []]));
  const selfReferences: { index: number; id: unknown; field: string; value: number }[] = [];
  // Written with each record: its parent, and the records on the parent's path, are in already.
  const project = projectLookup(trx, entity);
  let index = -1;
  const fail = (message: string, id?: unknown): never => {
    throw new ImportError(`${source.label}[${index}]${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: ${message}`);
  };

  /** The record to store, or null when there is nothing to import (an identical seed report). */
  const accept = (input: unknown): Row | null => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('is not a JSON object');
    const raw = input as Row;
    const id = raw.id;
    const { record, problems } = cleanRecord(entity, raw);
    problems.push(...(problems.length ? [] : checkRecord(entity, { ...raw, ...record })));
    if (problems.length) fail(`${problems[0].field} ${importText(problems[0])}`, id);
    const builtIn = entity === reports && books.existing.has(record.id) && books.existing.get(record.id) === BUILT_IN_REPORTS.get(record.id);
    if (entity === reports && books.existing.has(record.id) && !builtIn) {
      if (books.existing.get(record.id) === JSON.stringify(record)) return null;
      fail('id is already used, by a different report in the database (import with --replace to replace it)', id);
    }
    // Every new database holds the built-in definitions: a dataset's own version of one is no clash.
    if (builtIn) books.replacedBuiltIns.push(record.id);
    else if (!books.idsOf(entity.table).add(record.id)) {
      fail('id is already used, by an earlier record or in the database (import with --replace to replace its data)', id);
    }
    for (const [nested, rows] of children) rows.push(...nestedRecords(entity, nested, raw, books, fail));
    for (const [name, field] of storedFields(entity)) {
      const value = record[name];
      if (!field.references || value === null) continue;
      // A project's parent may come later in the same file: checked at its end.
      if (field.references === entity.table) selfReferences.push({ index, id, field: name, value });
      else if (!books.idsOf(field.references).has(value)) fail(`${name} ${importText({ field: name, code: 'does_not_exist', value })}`, id);
    }
    checkUnique(entity, record, books, fail);
    return record;
  };

  const flush = async () => {
    if (books.replacedBuiltIns.length) await trx.deleteFrom(reports.table).where('id', 'in', books.replacedBuiltIns.splice(0)).execute();
    await insertRows(engine, trx, entity, batch, project);
    batch.length = 0;
    for (const [nested, rows] of children) {
      await insertRows(engine, trx, nested.entity, rows);
      rows.length = 0;
    }
  };

  for await (const chunk of inChunks(source.records, BATCH_SIZE)) {
    for (const input of chunk) {
      index += 1;
      const record = accept(input);
      if (record) batch.push(record);
    }
    await flush();
    options.progress?.(source.file, index + 1);
  }
  for (const reference of selfReferences) {
    if (!books.idsOf(entity.table).has(reference.value)) {
      index = reference.index;
      fail(`${reference.field} ${reference.value} does not exist`, reference.id);
    }
  }
  return index + 1;
}

/**
 * Records in arrays of `size`: a generator's records are taken synchronously, a chunk at a time,
 * instead of one awaited step per record; a file's stream is awaited as it arrives.
 */
async function* inChunks(records: AsyncIterable<unknown> | Iterable<unknown>, size: number): AsyncGenerator<unknown[]> {
  let chunk: unknown[] = [];
  if (Symbol.iterator in records) {
    for (const record of records) {
      chunk.push(record);
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
    }
  } else {
    for await (const record of records) {
      chunk.push(record);
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
    }
  }
  if (chunk.length) yield chunk;
}

function checkUnique(entity: Entity, record: Row, books: Bookkeeping, fail: (message: string, id?: unknown) => never): void {
  for (const [name, field] of storedFields(entity)) {
    const value = record[name];
    if (!field.unique || typeof value !== 'string' || value === '') continue;
    const values = books.uniqueValues(entity, name);
    const key = field.unique === 'ci' ? value.toLowerCase() : value;
    const owner = values.get(key);
    if (owner !== undefined && owner !== record.id) fail(`${name} ${importText({ field: name, code: 'unique', value, owner })}`, record.id);
    values.set(key, record.id);
  }
}

/** Child records written inside a parent (organisation.locations), validated like any record. */
function nestedRecords(
  parent: Entity, nested: NestedCollection, raw: Row, books: Bookkeeping, fail: (message: string, id?: unknown) => never,
): Row[] {
  const items = raw[nested.field] ?? [];
  if (!Array.isArray(items)) fail(`${nested.field} is not a list`, raw.id);
  return (items as unknown[]).map((item, position) => {
    const where = `${nested.field}[${position}]`;
    if (typeof item !== 'object' || item === null) fail(`${where} is not an object`, raw.id);
    const { record, problems } = cleanRecord(nested.entity, item as Row);
    if (problems.length) fail(`${where}.${problems[0].field} ${importText(problems[0])}`, raw.id);
    if (record[nested.parent] !== raw.id) fail(`${where}.${nested.parent} ${record[nested.parent]} is not the ${parent.table}'s id`, raw.id);
    if (!books.idsOf(nested.entity.table).add(record.id)) fail(`${where}.id ${record.id} is already used`, raw.id);
    return record;
  });
}
