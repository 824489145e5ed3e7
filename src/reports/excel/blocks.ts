/**
 * A report document as a workbook, block by block down a sheet (the Excel forms of
 * projects-overview and data-quality): headings bold, table headers bold, shaded and wrapped,
 * money and counts as numbers, a table without rows one line (`None.`). A table that names a
 * sheet goes to that sheet, with the heading just before it; such a sheet is frozen under the
 * table's header, which every printed page repeats. Columns fit the tables' content (titles and
 * headings across the top do not widen them); every sheet prints landscape, as wide as the page.
 */
import type ExcelJS from 'exceljs';
import { emptyText, isAmounts, isBar, isMoney, rightAligned, type Block, type ReportDocument, type TableCell } from '../document.ts';
import { centsText } from '../numbers.ts';
import { FONT, newWorkbook, printable, sizeColumns, styleHeader, workbookBytes } from './workbook.ts';

const MONEY = '#,##0.00';

function value(cell: TableCell): ExcelJS.CellValue {
  if (cell === null || cell === '') return null;
  if (isMoney(cell)) return Number(cell.cents) / 100;
  // One amount is a number (its currency is in a column of its own); several, a text that names each currency.
  if (isAmounts(cell)) return cell.amounts.length === 1 ? Number(cell.amounts[0].cents) / 100 : cell.amounts.map((money) => `${money.currency ?? ''} ${centsText(money.cents, true)}`.trim()).join('; ');
  if (isBar(cell)) return cell.bar;
  return cell;
}

/** What was written on a sheet: the rows that size its columns, and its tables' header rows. */
interface SheetState {
  sized: Set<number>;
  headers: number[];
}

function write(sheet: ExcelJS.Worksheet, state: SheetState, block: Block): void {
  const bold = (values: ExcelJS.CellValue[]) => {
    sheet.addRow(values).font = { ...FONT, bold: true };
  };
  switch (block.kind) {
    case 'title':
      sheet.addRow([block.text]).font = { ...FONT, bold: true, size: 14 };
      if (block.subtitle) sheet.addRow([block.subtitle]);
      break;
    case 'heading':
      if (sheet.rowCount > 0) sheet.addRow([]);
      bold([block.text]);
      break;
    case 'paragraph':
      sheet.addRow([block.text]);
      break;
    case 'list':
      for (const item of block.items) sheet.addRow([item]);
      break;
    case 'facts':
      for (const [label, text] of block.rows) {
        const row = sheet.addRow([label, text]);
        row.getCell(1).font = { ...FONT, bold: true };
        state.sized.add(row.number);
      }
      break;
    case 'table': {
      if (block.rows.length === 0) {
        sheet.addRow([emptyText(block)]);
        break;
      }
      const header = sheet.addRow([...block.headers]);
      styleHeader(header);
      // A column of numbers has its title over the numbers.
      block.headers.forEach((_, index) => {
        if (rightAligned(block, index)) header.getCell(index + 1).alignment = { ...header.getCell(index + 1).alignment, horizontal: 'right' };
      });
      state.sized.add(header.number);
      state.headers.push(header.number);
      for (const row of block.rows) {
        const added = sheet.addRow(row.map(value));
        state.sized.add(added.number);
        row.forEach((cell, index) => {
          if (isMoney(cell) || (isAmounts(cell) && cell.amounts.length === 1)) added.getCell(index + 1).numFmt = MONEY;
          // Amounts in several currencies are a text, aligned with the numbers above and below.
          else if (isAmounts(cell)) added.getCell(index + 1).alignment = { horizontal: 'right' };
        });
      }
      break;
    }
  }
}

export async function blocksWorkbook(document: ReportDocument, firstSheet: string): Promise<Buffer> {
  const workbook = newWorkbook();
  const sheets = new Map<string, { sheet: ExcelJS.Worksheet; state: SheetState }>();
  const sheetNamed = (name: string) => sheets.get(name) ?? sheets.set(name, { sheet: workbook.addWorksheet(name), state: { sized: new Set(), headers: [] } }).get(name)!;
  const first = sheetNamed(firstSheet);
  document.blocks.forEach((block, index) => {
    const next = document.blocks[index + 1];
    if (block.kind === 'heading' && next?.kind === 'table' && next.sheet) return; // written on the table's sheet
    const previous = document.blocks[index - 1];
    const target = block.kind === 'table' && block.sheet ? sheetNamed(block.sheet) : first;
    if (target !== first && previous?.kind === 'heading') write(target.sheet, target.state, { ...previous, level: 1 });
    write(target.sheet, target.state, block);
  });
  for (const { sheet, state } of sheets.values()) {
    sizeColumns(sheet, (row) => state.sized.has(row));
    // A sheet of one table: frozen under its header, which each printed page repeats.
    printable(sheet, state.headers.length === 1 ? state.headers[0] : undefined);
  }
  return workbookBytes(workbook);
}
