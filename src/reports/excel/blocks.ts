/**
 * A report document as a workbook, block by block down a sheet (the Excel forms of
 * projects-overview and data-quality): headings and table headers bold, money and counts as
 * numbers. A table that names a sheet goes to that sheet, with the heading just before it.
 */
import type ExcelJS from 'exceljs';
import { isBar, isMoney, type Block, type ReportDocument, type TableCell } from '../document.ts';
import { newWorkbook, sizeColumns, workbookBytes } from './workbook.ts';

function value(cell: TableCell): ExcelJS.CellValue {
  if (cell === null || cell === '') return null;
  if (isMoney(cell)) return Number(cell.cents) / 100;
  if (isBar(cell)) return cell.bar;
  return cell;
}

function write(sheet: ExcelJS.Worksheet, block: Block): void {
  const bold = (values: ExcelJS.CellValue[]) => {
    sheet.addRow(values).font = { bold: true };
  };
  switch (block.kind) {
    case 'title':
      sheet.addRow([block.text]).font = { bold: true, size: 14 };
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
      for (const [label, text] of block.rows) sheet.addRow([label, text]).getCell(1).font = { bold: true };
      break;
    case 'table':
      bold([...block.headers]);
      for (const row of block.rows) {
        const added = sheet.addRow(row.map(value));
        row.forEach((cell, index) => {
          if (isMoney(cell)) added.getCell(index + 1).numFmt = '#,##0.00';
        });
      }
      break;
  }
}

export async function blocksWorkbook(document: ReportDocument, firstSheet: string): Promise<Buffer> {
  const workbook = newWorkbook();
  const sheets = new Map<string, ExcelJS.Worksheet>();
  const sheetNamed = (name: string) => sheets.get(name) ?? sheets.set(name, workbook.addWorksheet(name)).get(name)!;
  const first = sheetNamed(firstSheet);
  document.blocks.forEach((block, index) => {
    const next = document.blocks[index + 1];
    if (block.kind === 'heading' && next?.kind === 'table' && next.sheet) return; // written on the table's sheet
    const previous = document.blocks[index - 1];
    const sheet = block.kind === 'table' && block.sheet ? sheetNamed(block.sheet) : first;
    if (sheet !== first && previous?.kind === 'heading') write(sheet, { ...previous, level: 1 });
    write(sheet, block);
  });
  for (const sheet of sheets.values()) sizeColumns(sheet);
  return workbookBytes(workbook);
}
