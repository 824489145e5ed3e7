/** results-simple-table as Excel: one sheet per result type, one row per period (spec/reports.md). */
import type ExcelJS from 'exceljs';
import { RESULT_TYPES, type IndicatorLine, type PeriodLine, type ProjectResults, type ResultLine } from '../project-results.ts';
import { reportingPeriod } from '../numbers.ts';
import { cells as blanks, headerRow, newWorkbook, numeric, sizeColumns, workbookBytes, type Cell } from './workbook.ts';

export const RESULT_HEADERS = [
  'Project title', 'Result title', 'Result description', 'Indicator title', 'Indicator description', 'Baseline year',
  'Baseline value', 'Reporting period', 'Target value', 'Actual value', 'Actual comment',
];

function row(model: ProjectResults, result: ResultLine, indicator: IndicatorLine | null, period: PeriodLine | null): Cell[] {
  const cells: Cell[] = [
    model.project.title, result.title, result.description, indicator?.title ?? null, indicator?.description ?? null,
    indicator?.baselineYear ?? null, numeric(indicator?.baselineValue ?? null), period ? reportingPeriod(period.start, period.end) : null,
    numeric(period?.target ?? null), numeric(period?.actual ?? null), period?.actualComment ?? null,
  ];
  // Actual values by disaggregation are not part of the dataset format: the value column stays empty.
  for (const value of model.disaggregations) cells.push(null, numeric(period?.targets.get(value.id) ?? null));
  return blanks(cells);
}

function resultRows(model: ProjectResults, result: ResultLine): Cell[][] {
  if (result.indicators.length === 0) return [row(model, result, null, null)];
  return result.indicators.flatMap((indicator) =>
    indicator.periods.length ? indicator.periods.map((period) => row(model, result, indicator, period)) : [row(model, result, indicator, null)]);
}

export async function resultsWorkbook(model: ProjectResults): Promise<Buffer> {
  const workbook = newWorkbook();
  const headers = [...RESULT_HEADERS, ...model.disaggregations.flatMap((value) => [`${value.dimension}: ${value.value} — value`, `${value.dimension}: ${value.value} — target`])];
  for (const type of Object.values(RESULT_TYPES)) {
    const results = model.results.filter((result) => result.type === type);
    if (results.length === 0) continue;
    const sheet: ExcelJS.Worksheet = workbook.addWorksheet(type);
    headerRow(sheet, 1, headers);
    sheet.addRows(results.flatMap((result) => resultRows(model, result)));
    sizeColumns(sheet);
  }
  // A project without results still gets a workbook a spreadsheet opens: one Output sheet with its headers.
  if (workbook.worksheets.length === 0) headerRow(workbook.addWorksheet('Output'), 1, headers);
  return workbookBytes(workbook);
}
