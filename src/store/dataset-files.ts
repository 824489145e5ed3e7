/**
 * Dataset directories (dataset.md): one JSON array per file. Reading streams each file record by
 * record, so memory stays bounded whatever the file's size; writing streams page by page.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { SERVICE } from '../resources/define.ts';
import { DATASET_FILES, IGNORED_DATASET_FILES, RESOURCE_BY_NAME } from '../resources/index.ts';
import { renderRecords, renderStored } from '../resources/render.ts';
import type { Engine } from './engine/index.ts';
import { ImportError, type DatasetSource } from './import.ts';
import { allRecords, Reader } from './reader.ts';

async function* recordsOf(path: string, label: string): AsyncGenerator<unknown> {
  const stream = createReadStream(path).pipe(StreamArray.withParser());
  try {
    for await (const item of stream as AsyncIterable<{ key: number; value: unknown }>) yield item.value;
  } catch (error) {
    throw new ImportError(`${label}: not a JSON array of records (${(error as Error).message})`);
  } finally {
    stream.destroy();
  }
}

/** The dataset files present in `dir`; an unknown file is an error (a typo would lose data). */
export function readDataset(dir: string): DatasetSource[] {
  if (!existsSync(dir)) throw new ImportError(`${dir}: no such directory`);
  const known = new Set([...DATASET_FILES.map((dataset) => dataset.file), ...IGNORED_DATASET_FILES]);
  const unknown = readdirSync(dir).filter((name) => name.endsWith('.json') && !known.has(name.slice(0, -5)));
  if (unknown.length) throw new ImportError(`${unknown.join(', ')}: not a file of the dataset format`);
  return DATASET_FILES.filter(({ file }) => existsSync(join(dir, `${file}.json`))).map(({ file }) => ({
    file,
    label: `${file}.json`,
    records: recordsOf(join(dir, `${file}.json`), `${file}.json`),
  }));
}

/** Writes every table as `<file>.json`, records in id order, as an administrator sees them. */
export async function exportDataset(engine: Engine, dir: string, timeZone: string): Promise<Map<string, number>> {
  mkdirSync(dir, { recursive: true });
  const lookup = new Reader(engine).lookup(SERVICE);
  const counts = new Map<string, number>();
  for (const { file, entity } of DATASET_FILES) {
    const resource = RESOURCE_BY_NAME.get(file);
    const out = createWriteStream(join(dir, `${file}.json`));
    let count = 0;
    const write = async (text: string) => {
      if (!out.write(text)) await once(out, 'drain');
    };
    await write('[');
    for await (const rows of allRecords(engine, entity)) {
      const records = resource
        ? await renderRecords(resource, rows, lookup, { caller: SERVICE, timeZone })
        : rows.map((row) => renderStored(entity, row, timeZone));
      for (const record of records) {
        await write(`${count === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`);
        count += 1;
      }
    }
    await write(count === 0 ? ']\n' : '\n]\n');
    out.end();
    await once(out, 'finish');
    counts.set(file, count);
  }
  return counts;
}
