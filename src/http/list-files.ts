/**
 * A whole list as a file for spreadsheets (whole-lists.ts), written a batch of records at a time
 * as they are read: CSV (with the `bom` and `delimiter` the caller asked for) or an Excel workbook
 * (exceljs's streaming writer). One column per field, in the API's field order whatever the data
 * holds (the API's own CSV names the flattened keys of the records on the page instead); a nested
 * value (a list of sectors, an organisation's locations) is its JSON text in one cell.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { PassThrough, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { CsvOptions } from '../query/csv-options.ts';
import type { Resource, Row } from '../resources/define.ts';
import { csvStart, neutraliseFormula, xmlSafe } from './renderers.ts';

export const LIST_FILE_TYPES = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
export type ListFileFormat = keyof typeof LIST_FILE_TYPES;

/** The records of a list, a batch at a time, as the API renders them. */
export type Records = AsyncIterable<Row[]>;

/** A sheet holds at most 1,048,576 rows, its header one of them: the records go on in another sheet. */
const SHEET_ROWS = 1_048_575;
/** Excel refuses a longer cell (it "repairs" the file): longer texts are cut there. */
const CELL_CHARACTERS = 32_767;
/** A sheet's name has at most 31 characters. */
const SHEET_NAME = 31;

const columnsOf = (resource: Resource) => Object.keys(resource.fields);

/** A value as a cell's text: booleans as the API's CSV writes them, nested values as JSON. */
function text(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'object') return JSON.stringify(value);
  return value as string | number;
}

/** The list as CSV, a batch of records to a part. */
export async function* csvParts(resource: Resource, records: Records, options: CsvOptions): AsyncGenerator<Buffer> {
  const columns = columnsOf(resource);
  const write = (rows: unknown[][], header: boolean) =>
    stringify(rows, { header, columns, delimiter: options.delimiter, record_delimiter: 'windows', quoted_match: /[\r\n]/, cast: { string: neutraliseFormula } });
  yield Buffer.from(csvStart(options) + write([], true));
  for await (const batch of records) yield Buffer.from(write(batch.map((record) => columns.map((name) => text(record[name]))), false));
}

/** Bytes of a sheet's XML written and not yet compressed, past which reading waits. */
const ZIP_BACKLOG = 4 * 2 ** 20;

/**
 * What exceljs's streaming writer holds of a sheet's XML before the zip has compressed it: its
 * sheet stream ignores backpressure (every write returns true), so a million rows would sit
 * whole in memory before the deflater (450 MiB more at scale 100). Read from its internals
 * (`stream`: a StreamBuf of 64 KiB buffers, piped to the zip's entry): exceljs 4.4, archiver 5.
 */
function zipBacklog(sheet: ExcelJS.Worksheet): number {
  const stream = (sheet as unknown as { stream?: { buffers: unknown[]; bufSize: number; pipes: ZipEntry[] } }).stream;
  if (!stream) return 0;
  return stream.buffers.length * stream.bufSize + stream.pipes.reduce((sum, entry) => sum + (entry._writableState?.length ?? 0) + (entry._readableState?.length ?? 0), 0);
}

/** The zip entry a sheet is piped to: a PassThrough of readable-stream 2, which has no `writableLength`. */
interface ZipEntry {
  _writableState?: { length: number };
  _readableState?: { length: number };
}

type CellKind = 'number' | 'date' | 'boolean' | 'text';

/** What kind of cell each column is, from the field's declaration: numbers and dates a spreadsheet can sum and sort. */
function cellKinds(resource: Resource): CellKind[] {
  return Object.values(resource.fields).map((field) => {
    if (field.kind !== 'stored') return 'text';
    if (field.type === 'int' || field.type === 'decimal') return 'number';
    if (field.type === 'date') return 'date';
    return field.type === 'bool' ? 'boolean' : 'text';
  });
}

function cell(kind: CellKind, value: unknown): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  if (kind === 'number' && typeof value === 'number') return value;
  if (kind === 'boolean' && typeof value === 'boolean') return value;
  if (kind === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(`${value}T00:00:00Z`);
  const shown = text(value);
  // A document part of the workbook: characters XML cannot hold are replaced, as in XML answers.
  return typeof shown === 'string' ? xmlSafe(shown).slice(0, CELL_CHARACTERS) : shown;
}

/** The list as an Excel workbook, its header frozen; the stream ends with an error if reading fails midway, and reading ends when `signal` aborts. */
export function xlsxStream(resource: Resource, records: Records, signal: AbortSignal): Readable {
  const out = new PassThrough();
  writeWorkbook(resource, records, out, signal).catch((error: Error) => out.destroy(error));
  return out;
}

async function writeWorkbook(resource: Resource, records: Records, out: PassThrough, signal: AbortSignal): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  workbook.creator = 'rsr-api';
  const columns = columnsOf(resource);
  const kinds = cellKinds(resource);
  let sheet: ExcelJS.Worksheet | null = null;
  let sheets = 0;
  let rows = 0;
  const newSheet = () => {
    sheet?.commit();
    sheets += 1;
    const name = sheets === 1 ? resource.name.slice(0, SHEET_NAME) : `${resource.name.slice(0, SHEET_NAME - 5)} (${sheets})`;
    const made = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    made.columns = columns.map((header, index) => ({ header, key: header, width: Math.max(10, Math.min(header.length + 2, 40)), style: kinds[index] === 'date' ? { numFmt: 'yyyy-mm-dd' } : {} }));
    made.getRow(1).font = { bold: true };
    rows = 0;
    return made;
  };
  sheet = newSheet();
  for await (const batch of records) {
    for (const record of batch) {
      if (rows === SHEET_ROWS) sheet = newSheet();
      sheet.addRow(columns.map((name, index) => cell(kinds[index], record[name]))).commit();
      rows += 1;
    }
    // No more read while the zip has not compressed what was written (its deflating runs off the
    // event loop, slower than rows are made), nor while the client has not taken what was sent;
    // a client gone (`signal`) ends the reading, and the cursor with it.
    while (zipBacklog(sheet) > ZIP_BACKLOG) await sleep(5, undefined, { signal });
    if (out.writableNeedDrain) await once(out, 'drain', { signal });
    signal.throwIfAborted();
  }
  sheet.commit();
  await workbook.commit();
}
