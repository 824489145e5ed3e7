/** project-updates-simple-table as Excel: sheet `UpdatesTable` (spec/reports.md). */
import type { UpdatesModel } from '../project-updates.ts';
import { cells, FONT, headerRow, newWorkbook, sizeColumns, workbookBytes } from './workbook.ts';

export const UPDATE_HEADERS = ['Update title', 'Update text', 'Created at', 'Event date', 'First name', 'Last name', 'URL'];

export async function updatesWorkbook(model: UpdatesModel): Promise<Buffer> {
  const workbook = newWorkbook();
  const sheet = workbook.addWorksheet('UpdatesTable');
  sheet.getCell('A1').value = 'Project Updates Review';
  sheet.getCell('A1').font = { ...FONT, bold: true };
  sheet.mergeCells('A1:B1');
  sheet.getRow(2).values = ['Project title', model.project.title];
  sheet.getRow(3).values = ['Project #', model.project.id];
  headerRow(sheet, 5, UPDATE_HEADERS);
  model.updates.forEach((update, index) => {
    sheet.getRow(6 + index).values = cells([update.title, update.text, update.createdAt, update.eventDate, update.firstName, update.lastName, update.url]);
  });
  sizeColumns(sheet);
  return workbookBytes(workbook);
}
