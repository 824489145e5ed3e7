/**
 * projects-overview and data-quality laid out (spec/reports.md): the same blocks for PDF, HTML
 * and Excel. Columns are sized from their content by each renderer; a section without rows says
 * "None.".
 */
import type { Amounts, Block, ReportDocument, TableCell } from '../document.ts';
import type { DataQuality } from '../data-quality.ts';
import type { PartnerProject } from '../organisation-projects.ts';
import { projectStatus } from '../organisation-projects.ts';
import type { ProjectsOverview } from '../projects-overview.ts';

const STATUS_NAMES = { planned: 'Planned (not started)', active: 'Active (started, not ended)', completed: 'Completed (ended)' } as const;

const joinedCountries = (line: PartnerProject) => line.countries.join(', ');

/**
 * Budget and currency cells: the budget as amounts with their currencies (one line each where a
 * project has several; none is zero in the project's currency), and the currencies again for the
 * spreadsheet's Currency column (the printed table leaves that column out).
 */
function budgetCells(line: PartnerProject): [Amounts, TableCell] {
  const entries = line.budget;
  if (entries.length === 0) return [{ amounts: [{ cents: 0n, currency: line.project.currency || undefined }] }, line.project.currency];
  return [{ amounts: entries.map(([currency, cents]) => ({ cents, currency })) }, entries.map(([currency]) => currency).join(', ')];
}

export function projectsOverviewDocument(model: ProjectsOverview): ReportDocument {
  const { organisation: org, statistics } = model;
  const blocks: Block[] = [
    { kind: 'title', text: org.name, subtitle: org.longName },
    { kind: 'facts', rows: [['Location', [org.city, org.country].filter(Boolean).join(', ') || 'not set'], ['Website', org.url || 'not set']] },
    { kind: 'heading', text: 'Statistics', level: 1 },
    {
      kind: 'table',
      headers: ['Statistic', 'Count'],
      rows: [['Projects (as a partner)', statistics.projects], ['Published projects', statistics.published], ['Unpublished projects', statistics.unpublished], ['Updates of published projects', statistics.updates], ['Users', statistics.users]],
    },
    { kind: 'heading', text: 'Published project funding', level: 1 },
    { kind: 'table', headers: ['Currency', 'Budget'], rows: model.funding.map(([currency, cents]) => [currency, { cents }]) },
    { kind: 'heading', text: 'Projects by status', level: 1 },
    { kind: 'table', headers: ['Status', 'Projects'], rows: model.byStatus.map(([status, count]) => [STATUS_NAMES[status], count]) },
    { kind: 'heading', text: 'Published projects by start year', level: 1 },
    // A year is a name here, not a quantity: it reads left, as the statuses and countries do.
    { kind: 'table', headers: ['Planned start year', 'Projects'], columns: [{ align: 'left' }], rows: model.byStartYear },
    { kind: 'heading', text: 'Published project statistics by country', level: 1 },
    { kind: 'table', headers: ['Country', 'Projects', 'Updates'], rows: model.byCountry.map((line) => [line.country, line.projects, line.updates]) },
    { kind: 'heading', text: 'Published project overview', level: 1 },
    {
      kind: 'table',
      headers: ['Countries', 'Title', 'Subtitle', 'Id', 'Status', 'Budget', 'Currency', 'Planned start', 'Planned end', 'Updates'],
      // Printed, each amount names its currency: the Currency column is the spreadsheet's (where amounts are numbers).
      columns: [undefined, undefined, undefined, undefined, undefined, undefined, { sheetOnly: true }],
      rows: model.published.map((line) => {
        const { project } = line;
        return [joinedCountries(line), project.title, project.subtitle, project.id, projectStatus(project, model.today), ...budgetCells(line), project.date_start_planned, project.date_end_planned, line.updates.length];
      }),
    },
  ];
  return { title: `Projects overview: ${org.name}`, today: model.today, blocks };
}

export function dataQualityDocument(model: DataQuality): ReportDocument {
  const blocks: Block[] = [
    { kind: 'title', text: `Data quality report for ${model.organisation.name}`, subtitle: `${model.published} published projects, ${model.today}` },
    { kind: 'table', headers: ['Check', 'Projects'], rows: model.lists.map((list) => [list.title, list.projects.length]), sheet: 'Summary' },
  ];
  for (const list of model.lists) {
    blocks.push({ kind: 'heading', text: `${list.title} (${list.projects.length})`, level: 1 });
    blocks.push({
      kind: 'table',
      headers: ['Id', 'Title', 'Planned start', 'Planned end', 'Country'],
      // The four lists line up: one set of column widths for all.
      family: 'quality-list',
      rows: list.projects.map((line) => [line.project.id, line.project.title, line.project.date_start_planned, line.project.date_end_planned, joinedCountries(line)]),
      sheet: list.sheet,
    });
  }
  return { title: `Data quality: ${model.organisation.name}`, today: model.today, blocks };
}
