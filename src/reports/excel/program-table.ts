/**
 * program-overview-table as Excel: one sheet per result type, a row per contribution to each
 * period (spec/reports.md). A percentage's aggregate is a mean, said in the cell's note.
 */
import { reportingPeriod } from '../numbers.ts';
import { aggregateText, type ProgramOverview } from '../program-overview.ts';
import { RESULT_TYPES } from '../project-results.ts';
import { cells, headerRow, newWorkbook, numeric, sizeColumns, workbookBytes } from './workbook.ts';

export const PROGRAM_HEADERS = [
  'Result title', 'Indicator title', 'Reporting period', 'Hierarchy level', 'Contributor title', 'Countries', 'Target value',
  'Aggregated actual value', 'Actual value', '% of contribution',
];

export async function programWorkbook(model: ProgramOverview): Promise<Buffer> {
  const workbook = newWorkbook();
  for (const type of Object.values(RESULT_TYPES)) {
    const results = model.results.filter((result) => result.type === type);
    if (results.length === 0) continue;
    const sheet = workbook.addWorksheet(type);
    headerRow(sheet, 1, PROGRAM_HEADERS);
    for (const result of results) {
      for (const indicator of result.indicators) {
        for (const period of indicator.periods) {
          for (const line of period.contributions) {
            const row = sheet.addRow(cells([result.title, indicator.title, reportingPeriod(period.start, period.end), line.level, line.title, line.countries.join(', '), numeric(period.target), numeric(period.aggregated), numeric(line.actual), line.share]));
            if (period.aggregation.kind === 'mean' && period.aggregated !== '') row.getCell(8).note = `Aggregated actual: ${aggregateText(period)}`;
          }
        }
      }
    }
    sizeColumns(sheet);
  }
  if (workbook.worksheets.length === 0) headerRow(workbook.addWorksheet('Output'), 1, PROGRAM_HEADERS);
  return workbookBytes(workbook);
}
