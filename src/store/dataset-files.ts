/**
 * Dataset directories (dataset.md): one JSON array per file. Reading streams each file record by
 * record, so memory stays bounded whatever the file's size; writing streams page by page, every
 * file from one snapshot of the database (snapshot.ts).
 *
 * API keys are not part of a dataset: an export is for sharing, and even a key's hash lets whoever
 * holds it try keys offline. Users and employments are (who may do what); a backup (backup.ts)
 * carries the keys too.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, statSync, type ReadStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { SERVICE, type Entity, type Lookup } from '../resources/define.ts';
import { DATASET_FILES, IGNORED_DATASET_FILES, RESOURCE_BY_NAME } from '../resources/index.ts';
import { renderRecords, renderStored } from '../resources/render.ts';
import type { Engine } from './engine/index.ts';
import { ImportError, type DatasetSource } from './import.ts';
import { formatCount, type Progress } from './progress.ts';
import { allRecords, Reader } from './reader.ts';
import { withSnapshot } from './snapshot.ts';

async function* recordsOf(stream: ReadStream, label: string): AsyncGenerator<unknown> {
  const records = stream.pipe(StreamArray.withParser());
  try {
    for await (const item of records as AsyncIterable<{ key: number; value: unknown }>) yield item.value;
  } catch (error) {
    throw new ImportError(`${label}: not a JSON array of records (${(error as Error).message})`);
  } finally {
    records.destroy();
    stream.destroy();
  }
}

/** One file of a dataset; its progress is the bytes read of it. */
function fileSource(dir: string, file: string): DatasetSource {
  const path = join(dir, `${file}.json`);
  const label = `${file}.json`;
  // Opened on first read (the records' generator runs only when the import reaches the file).
  let stream: ReadStream | null = null;
  const open = () => (stream ??= createReadStream(path));
  return {
    file,
    label,
    records: { [Symbol.asyncIterator]: () => recordsOf(open(), label) },
    size: { total: statSync(path).size, unit: 'bytes', done: () => stream?.bytesRead ?? 0 },
  };
}

/** The dataset files present in `dir`; an unknown file is an error (a typo would lose data). */
export function readDataset(dir: string): DatasetSource[] {
  if (!existsSync(dir)) throw new ImportError(`${dir}: no such directory`);
  const known = new Set([...DATASET_FILES.map((dataset) => dataset.file), ...IGNORED_DATASET_FILES]);
  const unknown = readdirSync(dir).filter((name) => name.endsWith('.json') && !known.has(name.slice(0, -5)));
  if (unknown.length) throw new ImportError(`${unknown.join(', ')}: not a file of the dataset format`);
  return DATASET_FILES.filter(({ file }) => existsSync(join(dir, `${file}.json`))).map(({ file }) => fileSource(dir, file));
}

/** Records per table of the snapshot, counted first so that progress has a total. */
async function recordCounts(snapshot: Engine): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { entity } of DATASET_FILES) {
    const row = await snapshot.db.selectFrom(entity.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    counts.set(entity.table, Number(row.n));
  }
  return counts;
}

/**
 * Writes every table as `<file>.json`, records in id order, as an administrator sees them: all
 * read from one snapshot of the database, so that the files agree with each other while the
 * service goes on writing.
 */
export async function exportDataset(engine: Engine, dir: string, timeZone: string, progress?: Progress): Promise<Map<string, number>> {
  mkdirSync(dir, { recursive: true });
  return withSnapshot(engine, async (snapshot) => {
    const totals = progress ? await recordCounts(snapshot) : new Map<string, number>();
    const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
    const lookup = new Reader(snapshot).lookup(SERVICE);
    const counts = new Map<string, number>();
    let done = 0;
    for (const { file, entity } of DATASET_FILES) {
      const count = await writeFile(snapshot, join(dir, `${file}.json`), file, entity, lookup, timeZone, (records) => {
        progress?.(done + records, total, `${file}.json: ${formatCount(records)} records`);
      });
      done += count;
      counts.set(file, count);
    }
    return counts;
  });
}

/** One table as one file; the number of records written. */
async function writeFile(
  snapshot: Engine, path: string, file: string, entity: Entity, lookup: Lookup, timeZone: string, written: (records: number) => void,
): Promise<number> {
  const resource = RESOURCE_BY_NAME.get(file);
  const out = createWriteStream(path);
  let count = 0;
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('[');
  for await (const rows of allRecords(snapshot, entity)) {
    const records = resource
      ? await renderRecords(resource, rows, lookup, { caller: SERVICE, timeZone })
      : rows.map((row) => renderStored(entity, row, timeZone));
    for (const record of records) {
      await write(`${count === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`);
      count += 1;
    }
    written(count);
  }
  await write(count === 0 ? ']\n' : '\n]\n');
  out.end();
  await once(out, 'finish');
  return count;
}
