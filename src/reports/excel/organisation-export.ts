/**
 * organisation-results-export (spec/reports.md): one row per indicator period of every project
 * the organisation is a partner of, streamed. Projects are read a batch at a time, their rows
 * written and committed, and the next batch read only once the client has taken the bytes: the
 * memory a download holds is one batch, whatever the organisation's size. A client that goes
 * away stops the reading (context.signal).
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Row } from '../../resources/define.ts';
import { describeProjects, partnerProjectRows } from '../organisation-projects.ts';
import { projectsResults, type ProjectResults } from '../project-results.ts';
import type { ReportContext } from '../source.ts';
import { numeric, type Cell } from './workbook.ts';

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

async function write(projects: readonly Row[], context: ReportContext, out: PassThrough): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  workbook.creator = 'rsr-api';
  const sheet = workbook.addWorksheet('ProjectList', { views: [{ state: 'frozen', ySplit: 3 }] });
  sheet.columns = EXPORT_HEADERS.map((header) => ({ width: Math.max(12, header.length + 2) }));
  const title = sheet.addRow(['Organisation results and indicators']);
  title.font = { bold: true, size: 14 };
  title.commit();
  sheet.addRow([]).commit();
  const header = sheet.addRow(EXPORT_HEADERS);
  header.font = { bold: true };
  header.commit();
  for (let start = 0; start < projects.length; start += BATCH) {
    if (context.signal?.aborted) return;
    const batch = projects.slice(start, start + BATCH);
    const [models, described] = await Promise.all([projectsResults(batch, context), describeProjects(batch, context, { budget: false, updates: false })]);
    models.forEach((model, index) => {
      for (const values of rows(model, described[index].countries[0] ?? '')) sheet.addRow(values).commit();
    });
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
