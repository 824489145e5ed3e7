/**
 * The report downloads (spec/reports.md): for each path under /py-reports/, what it is about
 * (a project, an organisation or a program) and, per format, how it is made: a model computed
 * from the store, laid out by one renderer. PDF reports are laid out as a document
 * (document.ts) that is drawn as a PDF, or as an HTML page for a preview.
 */
import type { Readable } from 'node:stream';
import type { Row } from '../resources/define.ts';
import { dataQuality } from './data-quality.ts';
import type { ReportDocument } from './document.ts';
import { blocksWorkbook } from './excel/blocks.ts';
import { organisationExport } from './excel/organisation-export.ts';
import { programWorkbook } from './excel/program-table.ts';
import { resultsWorkbook } from './excel/results-table.ts';
import { updatesWorkbook } from './excel/updates-table.ts';
import { htmlPage } from './html/render.ts';
import { dataQualityDocument, projectsOverviewDocument } from './layout/organisation-reports.ts';
import { programOverviewDocument } from './layout/program-overview.ts';
import { resultsFrameworkDocument } from './layout/results-framework.ts';
import { pdfBytes } from './pdf/render.ts';
import { programOverview } from './program-overview.ts';
import { projectHeader } from './project-header.ts';
import { projectResults } from './project-results.ts';
import { budget, grades, partners } from './project-summary.ts';
import { updatesModel } from './project-updates.ts';
import { projectsOverview } from './projects-overview.ts';
import type { ReportContext } from './source.ts';
import { projectReportDocument } from './word/project-report.ts';

export type ReportFormat = 'pdf' | 'excel' | 'word';
export type ReportScope = 'project' | 'organisation' | 'program';

export const MEDIA_TYPES: Readonly<Record<ReportFormat, { type: string; extension: string }>> = {
  pdf: { type: 'application/pdf', extension: 'pdf' },
  excel: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  word: { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
};
export const HTML_TYPE = 'text/html; charset=utf-8';

type Make<T> = (target: Row, context: ReportContext) => Promise<T>;

export interface ReportDownload {
  scope: ReportScope;
  /** The last path segment, which also names the file. */
  path: string;
  /** Query parameters of the date range this report reads. */
  dates: [start: string, end: string];
  pdf?: Make<ReportDocument>;
  /** A buffer, or a stream for the exports too large to hold. */
  excel?: Make<Buffer | Readable>;
  word?: Make<Buffer>;
}

const PERIOD: ReportDownload['dates'] = ['period_start', 'period_end'];

/** The Word project report: results, partners, budget, grades and the updates, all in the requested range. */
async function projectReport(project: Row, context: ReportContext): Promise<Buffer> {
  const results = await projectResults(project, context);
  const [partnerList, budgetLines, updates] = await Promise.all([partners(project, context), budget(project, context), updatesModel(project, context)]);
  return projectReportDocument({ results, partners: partnerList, budget: budgetLines, grades: grades(results), updates, today: context.today });
}

async function resultsFramework(project: Row, context: ReportContext): Promise<ReportDocument> {
  const [header, results] = await Promise.all([projectHeader(project, context), projectResults(project, context)]);
  return resultsFrameworkDocument(header, results, context);
}

export const REPORT_DOWNLOADS: readonly ReportDownload[] = [
  { scope: 'project', path: 'results-indicators-overview', dates: PERIOD, pdf: resultsFramework },
  { scope: 'project', path: 'results-indicators-table', dates: PERIOD, excel: async (project, context) => resultsWorkbook(await projectResults(project, context)) },
  { scope: 'project', path: 'updates-table', dates: ['start_date', 'end_date'], excel: async (project, context) => updatesWorkbook(await updatesModel(project, context)) },
  { scope: 'project', path: 'kickstart-report', dates: PERIOD, word: projectReport },
  {
    scope: 'organisation',
    path: 'org-projects-overview',
    dates: PERIOD,
    pdf: async (organisation, context) => projectsOverviewDocument(await projectsOverview(organisation, context)),
    excel: async (organisation, context) => blocksWorkbook(projectsOverviewDocument(await projectsOverview(organisation, context)), 'Overview'),
  },
  {
    scope: 'organisation',
    path: 'data-quality-overview',
    dates: PERIOD,
    pdf: async (organisation, context) => dataQualityDocument(await dataQuality(organisation, context)),
    excel: async (organisation, context) => blocksWorkbook(dataQualityDocument(await dataQuality(organisation, context)), 'Summary'),
  },
  { scope: 'organisation', path: 'results-indicators-table', dates: PERIOD, excel: organisationExport },
  { scope: 'program', path: 'program-overview', dates: PERIOD, pdf: async (program, context) => programOverviewDocument(await programOverview(program, context)) },
  { scope: 'program', path: 'program-overview-table', dates: PERIOD, excel: async (program, context) => programWorkbook(await programOverview(program, context)) },
];

export const formatsOf = (report: ReportDownload): ReportFormat[] => (['pdf', 'excel', 'word'] as const).filter((format) => report[format] !== undefined);

/** The report in a format: its bytes (or stream) and media type; a PDF report as HTML when `preview`. */
export async function produce(report: ReportDownload, format: ReportFormat, target: Row, context: ReportContext, preview: boolean): Promise<{ body: Buffer | Readable; type: string }> {
  if (format === 'pdf') {
    const document = await report.pdf!(target, context);
    return preview ? { body: htmlPage(document), type: HTML_TYPE } : { body: await pdfBytes(document), type: MEDIA_TYPES.pdf.type };
  }
  const make = (format === 'excel' ? report.excel : report.word)!;
  return { body: await make(target, context), type: MEDIA_TYPES[format].type };
}
