/** XML and CSV bodies (http.md, Formats), as DRF's XMLRenderer and rest_framework_csv write them. */
import { stringify } from 'csv-stringify/sync';
import { XMLBuilder } from 'fast-xml-parser';
import { PLAIN_CSV, type CsvOptions } from '../query/csv-options.ts';

type Json = unknown;

const xml = new XMLBuilder({ suppressEmptyNode: false, processEntities: true });

/**
 * Characters XML 1.0 allows in a document; any other (C0 controls, lone surrogates, U+FFFE/F) is
 * replaced. A CR is written as it is, as DRF does: XML readers receive it as a line end (LF).
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const NAME_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_REST = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
// The ranges are XML 1.0's own (Name production): joiners and combining marks belong in them.
/* eslint-disable no-misleading-character-class */
const XML_NAME = new RegExp(`^[${NAME_START}][${NAME_REST}]*$`, 'u');
const NAME_START_CHAR = new RegExp(`^[${NAME_START}]$`, 'u');
const NAME_CHAR = new RegExp(`^[${NAME_REST}]$`, 'u');
/* eslint-enable no-misleading-character-class */

export const xmlSafe = (text: string) => text.replace(NOT_XML_CHAR, '\uFFFD');

/**
 * A key as an element name. Keys of JSON fields are the caller's (`{"<x>": 1}`, `{"#text": 1}`):
 * a character a name may not hold there is written `_xHHHH_`, as XmlConvert.EncodeName does, so
 * the document stays well-formed and the builder never reads a key as text, attribute or PI.
 */
function xmlName(key: string): string {
  if (XML_NAME.test(key)) return key;
  const encoded = [...key].map((char, index) => ((index === 0 ? NAME_START_CHAR : NAME_CHAR).test(char) ? char : `_x${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}_`));
  return encoded.join('') || '_';
}

/** DRF's XMLRenderer: one element per key, `list-item` per list entry, null empty, booleans True/False. */
function xmlShape(value: Json): unknown {
  if (Array.isArray(value)) return { 'list-item': value.map(xmlShape) };
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return xmlSafe(value);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [xmlName(key), xmlShape(item)]));
  return value;
}

/** The document `<?xml …?><root>…</root>`. */
export function xmlText(body: Record<string, Json>): string {
  return `<?xml version="1.0" encoding="utf-8"?><root>${xml.build(xmlShape(body))}</root>`;
}

/** rest_framework_csv's flattening: nested keys joined with dots, list entries by index. */
function flatten(value: Json, prefix: string, into: Map<string, unknown>): Map<string, unknown> {
  if (Array.isArray(value)) value.forEach((item, index) => flatten(item, `${prefix}.${index}`, into));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) flatten(item, prefix ? `${prefix}.${key}` : key, into);
  else into.set(prefix, value);
  return into;
}

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or CR first) starts
 * with `'` instead, as OWASP's CSV-injection advice has it; numbers are not text and stay as they are.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
export const neutraliseFormula = (value: string) => (FORMULA_START.test(value) ? `'${value}` : value);

/** Rows of flattened records, under the header `columns`; with the header line when `header`. */
function csvRows(rows: readonly Map<string, unknown>[], columns: string[], header: boolean, delimiter: CsvOptions['delimiter']): string {
  const table = rows.map((row) => Object.fromEntries(columns.map((column) => [column, row.get(column) ?? null])));
  return stringify(table, {
    header,
    columns,
    delimiter,
    record_delimiter: 'windows',
    // A lone LF or CR ends a row for every reader: such a cell is quoted like one with a comma.
    quoted_match: /[\r\n]/,
    cast: { boolean: (value) => (value ? 'True' : 'False'), string: neutraliseFormula },
  });
}

/** The sorted union of the flattened records' column names. */
const csvColumns = (rows: readonly Map<string, unknown>[]) => [...new Set(rows.flatMap((row) => [...row.keys()]))].sort();

/** What a CSV starts with: the byte order mark, when asked for. */
export const csvStart = (options: CsvOptions) => (options.bom ? '\uFEFF' : '');

/** One row per record; the header is the sorted union of the flattened column names; CRLF. */
export function csvText(records: readonly Json[], options: CsvOptions = PLAIN_CSV): string {
  const rows = records.map((record) => flatten(record, '', new Map()));
  return csvStart(options) + csvRows(rows, csvColumns(rows), true, options.delimiter);
}

export interface Rendering {
  /** The key whose list holds the records (`results`, `objects`), or null for one record. */
  listKey: string | null;
  /** Name of the CSV attachment, without `.csv`. */
  filename: string;
  /** How CSV is written (csv-options.ts); the original's way when not given. */
  csv?: CsvOptions;
}

/**
 * A list's text in parts, for one made a part at a time (respond.ts, representList): `head`, then
 * `part` of each run of records in order (from `start` to before `end`), then `tail` are, put
 * together, renderText's bytes.
 */
export interface TextParts {
  head: string;
  part(start: number, end: number): string;
  tail: string;
}

/** The parts of a list under `listKey`, the envelope's last member, as XML or CSV (CSV: the records only). */
export function textParts(format: 'xml' | 'csv', body: Record<string, Json>, listKey: string, csv: CsvOptions = PLAIN_CSV): TextParts {
  const records = body[listKey] as Json[];
  if (format === 'csv') {
    // The header names every record's columns: they are known before the first row is written.
    const rows = records.map((record) => flatten(record, '', new Map()));
    const columns = csvColumns(rows);
    return { head: csvStart(csv), part: (start, end) => csvRows(rows.slice(start, end), columns, start === 0, csv.delimiter), tail: '' };
  }
  // The envelope around a text no record is (the list is its last element: the last occurrence).
  const marker = `rsr-api-records-${Math.random().toString(36).slice(2)}`;
  const envelope = xmlText({ ...body, [listKey]: marker });
  const at = envelope.lastIndexOf(marker);
  return { head: envelope.slice(0, at), part: (start, end) => xml.build(xmlShape(records.slice(start, end))), tail: envelope.slice(at + marker.length) };
}

/** The text of an XML or CSV answer; CSV holds the records under `listKey` (or the one record). */
export function renderText(format: 'xml' | 'csv', body: Record<string, Json>, rendering: Rendering): string {
  if (format === 'xml') return xmlText(body);
  return csvText(rendering.listKey === null ? [body] : (body[rendering.listKey] as Json[]), rendering.csv);
}
