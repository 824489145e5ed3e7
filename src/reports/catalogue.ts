/**
 * The report downloads (spec/reports.md): for each path under /py-reports/, what it is about
 * (a project, an organisation or a program) and, per format, how its file is made: a model
 * computed from the store, laid out by one renderer.
 */
import type { Row } from '../resources/define.ts';
import { resultsWorkbook } from './excel/results-table.ts';
import { updatesWorkbook } from './excel/updates-table.ts';
import { projectResults } from './project-results.ts';
import { budget, grades, partners } from './project-summary.ts';
import { updatesModel } from './project-updates.ts';
import { projectReportDocument } from './word/project-report.ts';
import type { ReportContext } from './source.ts';

export type ReportFormat = 'pdf' | 'excel' | 'word';
export type ReportScope = 'project' | 'organisation' | 'program';

export const MEDIA_TYPES: Readonly<Record<ReportFormat, { type: string; extension: string }>> = {
  pdf: { type: 'application/pdf', extension: 'pdf' },
  excel: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  word: { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
};

export interface ReportDownload {
  scope: ReportScope;
  /** The last path segment, which also names the file. */
  path: string;
  /** Query parameters of the date range this report reads. */
  dates: [start: string, end: string];
  formats: Partial<Record<ReportFormat, (target: Row, context: ReportContext) => Promise<Buffer>>>;
}

const PERIOD: ReportDownload['dates'] = ['period_start', 'period_end'];

/** The Word project report: results, partners, budget, grades and the updates, all in the requested range. */
async function projectReport(project: Row, context: ReportContext): Promise<Buffer> {
  const results = await projectResults(project, context);
  const [partnerList, budgetLines, updates] = await Promise.all([partners(project, context), budget(project, context), updatesModel(project, context)]);
  return projectReportDocument({ results, partners: partnerList, budget: budgetLines, grades: grades(results), updates, today: context.today });
}

export const REPORT_DOWNLOADS: readonly ReportDownload[] = [
  { scope: 'project', path: 'results-indicators-table', dates: PERIOD, formats: { excel: async (project, context) => resultsWorkbook(await projectResults(project, context)) } },
  { scope: 'project', path: 'kickstart-report', dates: PERIOD, formats: { word: projectReport } },
  { scope: 'project', path: 'updates-table', dates: ['start_date', 'end_date'], formats: { excel: async (project, context) => updatesWorkbook(await updatesModel(project, context)) } },
];
