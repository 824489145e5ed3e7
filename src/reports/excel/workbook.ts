/**
 * What every Excel report shares: a workbook written by exceljs; header rows bold, shaded,
 * wrapped and frozen; columns as wide as their content up to a cap (a longer text wraps); and a
 * print setup, so that a wide sheet prints across the page in landscape, fitted to the page's
 * width, with its header row repeated on every page and page numbers in the footer.
 */
import ExcelJS from 'exceljs';

export type Cell = string | number | Date | null;

/** The widest a column gets, in characters; a longer text wraps in it. */
export const WIDTH_CAP = 50;
/** The narrowest column, in characters. */
const WIDTH_MIN = 8;
const HEADER_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EEF4' } };
/** The workbook's font (Excel's default), named wherever a cell's font is set: a font without a name is drawn in another family. */
export const FONT = { name: 'Calibri', family: 2, size: 11 } as const;
/** The height of a line of text at that size, in points. */
const LINE_HEIGHT = 15;

export function newWorkbook(): ExcelJS.Workbook {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'rsr-api';
  return workbook;
}

/** How a sheet prints: landscape, as wide as the page (as many pages down as it takes), the header row on every page. */
export function pageSetup(headerRow?: number): Partial<ExcelJS.PageSetup> {
  return {
    paperSize: 9, // A4
    orientation: 'landscape',
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    margins: { left: 0.5, right: 0.5, top: 0.6, bottom: 0.6, header: 0.3, footer: 0.3 },
    ...(headerRow ? { printTitlesRow: `${headerRow}:${headerRow}` } : {}),
  };
}

/** The footer of a printed page: where it comes from and its number. */
export const PRINT_FOOTER = '&L&8rsr-api report&R&8Page &P of &N';

/** A sheet printed as pageSetup() says, with page numbers; frozen under its header row when it has one. */
export function printable(sheet: ExcelJS.Worksheet, headerRow?: number): void {
  sheet.pageSetup = { ...sheet.pageSetup, ...pageSetup(headerRow) };
  sheet.headerFooter = { ...sheet.headerFooter, oddFooter: PRINT_FOOTER };
  if (headerRow) sheet.views = [{ state: 'frozen', ySplit: headerRow }];
}

/** A header row's look: bold, shaded, its titles wrapped (a title longer than its column takes two lines). */
export function styleHeader(row: ExcelJS.Row): void {
  row.font = { ...FONT, bold: true };
  row.eachCell((cell) => {
    cell.alignment = { wrapText: true, vertical: 'top' };
    cell.fill = HEADER_FILL;
  });
}

/** A bold header row at `row`, frozen above the data and printed on every page. */
export function headerRow(sheet: ExcelJS.Worksheet, row: number, titles: readonly string[]): void {
  const header = sheet.getRow(row);
  header.values = [...titles];
  styleHeader(header);
  printable(sheet, row);
}

/** East Asian wide characters take two columns' width. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** How many characters wide a text is, line by line: its longest line. */
export function textWidth(text: string): number {
  let widest = 0;
  for (const line of text.split('\n')) {
    let width = 0;
    for (const character of line) width += WIDE.test(character) ? 2 : 1;
    widest = Math.max(widest, width);
  }
  return widest;
}

/** A column width for content and a header this many characters wide: room for both, up to the cap. */
export const columnWidth = (content: number, header = 0): number => Math.min(WIDTH_CAP, Math.max(WIDTH_MIN, content + 2, header + 2));

/** A cell's value as a spreadsheet shows it (numbers with the separators of their format). */
function shown(cell: ExcelJS.Cell): string {
  const { value } = cell;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return cell.numFmt?.includes('#,##0') ? value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }) : String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object' && 'richText' in value) return value.richText.map((run) => run.text).join('');
  return String(value);
}

/**
 * A word's width in Excel's unit (the width of a digit of the default font): Calibri's letters
 * are mostly narrower than its digits, a few wider. Close enough to tell how many lines a text
 * wraps into; a little wide rather than narrow, so that a row is not cut short.
 */
function drawnWidth(word: string): number {
  let width = 0;
  for (const character of word) {
    if (WIDE.test(character)) width += 2;
    else if (/[fijlrtI.,;:'!|()[\]]/.test(character)) width += 0.6;
    else if (/[mwMW@%]/.test(character)) width += 1.5;
    else if (/[A-Z]/.test(character)) width += 1.15;
    else width += 0.95;
  }
  return width;
}

/** How many lines a text takes in a column `width` digits wide, wrapped at spaces. */
export function wrappedLines(text: string, width: number): number {
  const space = 0.5;
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let line = 0;
    lines += 1;
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const length = drawnWidth(word);
      if (line > 0 && line + space + length > width) {
        lines += 1 + Math.floor(length / width);
        line = length % width;
      } else line += (line > 0 ? space : 0) + length;
    }
  }
  return lines;
}

/**
 * Columns as wide as their longest text (the header's included), within WIDTH_MIN and WIDTH_CAP;
 * a text wider than its column wraps, its row as tall as its lines (a spreadsheet does not always
 * grow a row by itself) and its cells aligned to the top. Only the rows `sized` says (default all)
 * count: a title or heading across the top of a sheet does not widen column A.
 */
export function sizeColumns(sheet: ExcelJS.Worksheet, sized: (row: number) => boolean = () => true): void {
  const widths: number[] = [];
  sheet.eachRow((row, number) => {
    if (!sized(number)) return;
    row.eachCell((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, textWidth(shown(cell)));
    });
  });
  for (let column = 1; column <= sheet.columnCount; column += 1) sheet.getColumn(column).width = columnWidth(widths[column] ?? 0);
  sheet.eachRow((row, number) => {
    if (!sized(number)) return;
    let lines = 1;
    row.eachCell((cell, column) => {
      const text = shown(cell);
      // A character of room either side, as Excel draws a cell.
      const room = (sheet.getColumn(column).width ?? WIDTH_MIN) - 1;
      if (textWidth(text) > room || text.includes('\n')) {
        cell.alignment = { ...cell.alignment, wrapText: true, vertical: 'top' };
        lines = Math.max(lines, wrappedLines(text, room));
      }
    });
    if (lines > 1) {
      row.height = lines * LINE_HEIGHT;
      row.eachCell((cell) => (cell.alignment = { ...cell.alignment, vertical: 'top' }));
    }
  });
}

/** A row's cells, an empty text as an empty cell. */
export const cells = (values: readonly Cell[]): Cell[] => values.map((value) => (value === '' ? null : value));

/** A number where the text is one (Excel sums it), else the text. */
export const numeric = (text: string | null): Cell => (text !== null && text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text ?? null));

export async function workbookBytes(workbook: ExcelJS.Workbook): Promise<Buffer> {
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
