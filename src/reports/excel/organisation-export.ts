/**
 * organisation-results-export (spec/reports.md): one row per indicator period of every project
 * the organisation is a partner of, streamed. Projects are read a batch at a time, their rows
 * written and committed, and the next batch read only once the client has taken the bytes: the
 * memory a download holds is one batch, whatever the organisation's size. A client that goes
 * away stops the reading (context.signal).
 *
 * Columns are as wide as their header and the first batch's content ask, up to a cap: the widths
 * of a streamed sheet are written before its rows, so later rows cannot widen them. The header
 * row is wrapped, frozen and repeated on every printed page; the sheet prints landscape, fitted
 * to the page's width.
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Row } from '../../resources/define.ts';
import { describeProjects, partnerProjectRows } from '../organisation-projects.ts';
import { projectsResults, type ProjectResults } from '../project-results.ts';
import type { ReportContext } from '../source.ts';
import { columnWidth, FONT, numeric, pageSetup, PRINT_FOOTER, styleHeader, textWidth, type Cell } from './workbook.ts';

export const EXPORT_HEADERS = [
  'Project name', 'Subtitle', 'Date start planned', 'Date end planned', 'Result title', 'Result type', 'Indicator title', 'Measure',
  'Ascending', 'Baseline year', 'Baseline value', 'Period start', 'Period end', 'Target value', 'Actual value', 'Actual comment',
  'Country', 'Project id', 'Result id', 'Indicator id', 'Period id',
];
const BATCH = 50;

function rows(model: ProjectResults, country: string): Cell[][] {
  const { project } = model;
  return model.results.flatMap((result) =>
    result.indicators.flatMap((indicator) =>
      indicator.periods.map((period) => [
        project.title, project.subtitle, project.date_start_planned, project.date_end_planned, result.title, result.type, indicator.title,
        indicator.measure, indicator.ascending === null ? null : indicator.ascending ? 'Yes' : 'No', indicator.baselineYear,
        numeric(indicator.baselineValue), period.start, period.end, numeric(period.target), numeric(period.actual), period.actualComment,
        country, project.id, result.id, indicator.id, period.id,
      ].map((value) => (value === '' ? null : value)))));
}

/** Rows of the header, and of the sheet's title above it. */
const HEADER_ROW = 3;

/** Column widths for the header and some rows: each as wide as its longest text, within the cap. */
function widths(sample: readonly Cell[][]): number[] {
  return EXPORT_HEADERS.map((header, column) => {
    const content = sample.reduce((widest, row) => Math.max(widest, textWidth(row[column] === null ? '' : String(row[column]))), 0);
    return columnWidth(content, textWidth(header));
  });
}

async function batchRows(batch: readonly Row[], context: ReportContext): Promise<Cell[][]> {
  const [models, described] = await Promise.all([projectsResults(batch, context), describeProjects(batch, context, { budget: false, updates: false })]);
  return models.flatMap((model, index) => rows(model, described[index].countries[0] ?? ''));
}

async function write(projects: readonly Row[], context: ReportContext, out: PassThrough): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  workbook.creator = 'rsr-api';
  const sheet = workbook.addWorksheet('ProjectList', {
    views: [{ state: 'frozen', ySplit: HEADER_ROW }],
    pageSetup: pageSetup(HEADER_ROW),
    headerFooter: { oddFooter: PRINT_FOOTER },
  });
  // The first batch is read before anything is written: its rows size the columns.
  let batch = context.signal?.aborted ? [] : await batchRows(projects.slice(0, BATCH), context);
  sheet.columns = widths(batch).map((width) => ({ width }));
  const title = sheet.addRow(['Organisation results and indicators']);
  title.font = { ...FONT, bold: true, size: 14 };
  title.commit();
  sheet.addRow([]).commit();
  const header = sheet.addRow(EXPORT_HEADERS);
  styleHeader(header);
  header.commit();
  for (let start = 0; start < projects.length; start += BATCH) {
    if (context.signal?.aborted) return;
    if (start > 0) batch = await batchRows(projects.slice(start, start + BATCH), context);
    for (const values of batch) sheet.addRow(values).commit();
    // Reads from SQLite return without a turn of the event loop; the zip is compressed off it.
    // Yield, so that what was written is compressed and sent before the next batch is read.
    await new Promise((resolve) => setImmediate(resolve));
    if (out.writableNeedDrain) await once(out, 'drain', { signal: context.signal });
  }
  sheet.commit();
  await workbook.commit();
}

/** The file as a stream; which projects it lists is read first, so that a failure there is an answer, not a broken file. */
export async function organisationExport(organisation: Row, context: ReportContext): Promise<Readable> {
  const projects = await partnerProjectRows(organisation, context);
  const out = new PassThrough();
  write(projects, context, out).catch((error: Error) => out.destroy(error));
  return out;
}
