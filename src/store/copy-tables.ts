/**
 * Every table of one database into another, rows as stored: what a backup of PostgreSQL writes
 * into its file, and what a restore loads from one (backup.ts). The rows come from a database of
 * this service, read in one snapshot, so they are not validated again as an import's are; the
 * copy is one transaction of the target: a restore that fails leaves the database as it was.
 */
import type { Transaction } from 'kysely';
import { TABLES } from '../resources/index.ts';
import reports, { SEED_REPORTS } from '../resources/reports.ts';
import { BATCH_SIZE, insertRows } from './columns.ts';
import { changeData } from './data-version.ts';
import type { Database, Engine } from './engine/index.ts';
import { createAllIndexes, dropAllIndexes, UNANALYZED } from './indexes.ts';
import { syncAllGeneratedIds } from './migrations.ts';
import { formatCount, type Progress } from './progress.ts';
import { allRecords } from './reader.ts';
import { projectLookup } from './visibility.ts';

/** A restore refused: the database holds data and was not to be replaced. */
export class NotEmpty extends Error {}

/** Records per table of `engine` (a snapshot: the counts are of the rows it will copy). */
export async function tableCounts(engine: Engine): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const entity of TABLES) {
    const row = await engine.db.selectFrom(entity.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    counts.set(entity.table, Number(row.n));
  }
  return counts;
}

/** Tables holding records, but for the built-in report definitions every database has. */
async function tablesWithData(trx: Transaction<Database>): Promise<string[]> {
  const held: string[] = [];
  for (const entity of TABLES) {
    let query = trx.selectFrom(entity.table).select('id').limit(1);
    if (entity === reports) query = query.where('id', 'not in', SEED_REPORTS.map((report) => report.id));
    if (await query.executeTakeFirst()) held.push(entity.table);
  }
  return held;
}

export interface CopyOptions {
  /** Replace what the target holds; otherwise a target holding data is refused (NotEmpty). */
  replace: boolean;
  progress?: Progress;
}

export interface Copied {
  /** Records per table. */
  counts: Map<string, number>;
  /** The target held data, which the copy replaced. */
  replaced: boolean;
}

/** Copies every table of `source` (a snapshot) into `target`. */
export async function copyTables(source: Engine, target: Engine, options: CopyOptions): Promise<Copied> {
  const totals = await tableCounts(source);
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
  const counts = new Map<string, number>();
  const tables = TABLES.map((entity) => entity.table);
  let replaced = false;
  await target.bulkLoad((load) => changeData(target, tables, async (trx) => {
    // Decided inside the transaction that writes: no write can come between the check and the copy.
    const held = await tablesWithData(trx);
    if (held.length && !options.replace) throw new NotEmpty(`${target.name} ${target.location} holds data (${held.slice(0, 4).join(', ')}${held.length > 4 ? ', …' : ''}); restore with --replace to replace all of it, users and API keys too`);
    replaced = held.length > 0;
    for (const entity of [...TABLES].reverse()) await trx.deleteFrom(entity.table).execute();
    let done = 0;
    for (const entity of TABLES) {
      // Tables that held data keep their indexes: dropping one would lock out every reader meanwhile.
      const fresh = !held.includes(entity.table);
      if (fresh) await dropAllIndexes(trx, target.dialect, entity);
      let rows = 0;
      // The project a record is several foreign keys away from is not stored in a dataset's form: found again.
      const project = projectLookup(trx, entity);
      for await (const batch of allRecords(source, entity, BATCH_SIZE)) {
        await insertRows(target, trx, entity, batch, project);
        rows += batch.length;
        done += batch.length;
        options.progress?.(done, total, `${entity.table}: ${formatCount(rows)} records`);
      }
      if (fresh) await load.indexing(() => createAllIndexes(trx, target.dialect, entity));
      counts.set(entity.table, rows);
    }
    await syncAllGeneratedIds(target, trx);
  }, { lockWaitMs: Infinity }));
  // As after an import: the planner's statistics of what was loaded (import.ts says why).
  await target.exclusively((within) => target.analyze(UNANALYZED, within));
  await target.vacuum(tables);
  return { counts, replaced };
}
