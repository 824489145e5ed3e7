/** What every Excel report shares: a workbook written by exceljs, bold frozen headers, columns sized to their text. */
import ExcelJS from 'exceljs';

export type Cell = string | number | Date | null;

export function newWorkbook(): ExcelJS.Workbook {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'rsr-api';
  return workbook;
}

/** A bold header row at `row`, frozen above the data. */
export function headerRow(sheet: ExcelJS.Worksheet, row: number, titles: readonly string[]): void {
  const header = sheet.getRow(row);
  header.values = [...titles];
  header.font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: row }];
}

/** Columns as wide as their longest text (within reason). */
export function sizeColumns(sheet: ExcelJS.Worksheet): void {
  sheet.columns.forEach((column) => {
    let widest = 8;
    column.eachCell?.({ includeEmpty: false }, (cell) => {
      widest = Math.max(widest, Math.min(60, String(cell.value ?? '').length + 2));
    });
    column.width = widest;
  });
}

/** A row's cells, an empty text as an empty cell. */
export const cells = (values: readonly Cell[]): Cell[] => values.map((value) => (value === '' ? null : value));

/** A number where the text is one (Excel sums it), else the text. */
export const numeric = (text: string | null): Cell => (text !== null && text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text ?? null));

export async function workbookBytes(workbook: ExcelJS.Workbook): Promise<Buffer> {
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
