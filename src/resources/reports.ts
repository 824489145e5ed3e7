import { Type } from '@sinclair/typebox';
import { derived, id, json, text, type StoredField, resource } from './define.ts';

/** reports.md / resources.md: the three download formats a report may offer. */
const FORMATS: Record<string, { display_name: string; icon: string }> = {
  pdf: { display_name: 'PDF', icon: 'file-pdf-o' },
  excel: { display_name: 'Excel', icon: 'file-excel-o' },
  word: { display_name: 'Word', icon: 'file-word-o' },
};

const FORMAT = Type.Object({ name: Type.String(), display_name: Type.String(), icon: Type.String() });

/** Stored as the list of format names; written and shown as objects (or accepted as names). */
const formats: StoredField = {
  ...json(Type.Array(FORMAT), { default: [] }),
  parse(value) {
    if (!Array.isArray(value)) return { error: 'Expected a list of formats.' };
    const names = value.map((item) => (typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : item));
    const unknown = names.find((name) => typeof name !== 'string' || !(name in FORMATS));
    if (unknown !== undefined) return { error: `'${String(unknown)}' is not a report format.` };
    return { value: names };
  },
  render: (row) => (row.formats as string[]).map((name) => ({ name, ...FORMATS[name] })),
};

/** The `{placeholder}` names of a url template, sorted (seed 2.11). */
export function placeholders(url: string): string[] {
  return [...new Set([...url.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]))].sort();
}

const reports = resource({
  name: 'reports',
  table: 'report',
  title: 'Reports',
  verboseName: 'report',
  description: 'Viewset providing Result data.',
  // "as the seed lists them" (seed 2.11); reports added later follow, by id.
  pinnedOrder: [4, 6, 29, 28, 16, 3, 13, 1, 2],
  visibility: { kind: 'organisations' },
  fields: {
    id: id(),
    name: text({ required: true, blank: false, maxLength: 100, unique: true }),
    title: text({ required: true, blank: false, maxLength: 200 }),
    description: text(),
    url: text({ required: true, blank: false, maxLength: 200 }),
    parameters: derived(Type.Array(Type.String()), (row) => placeholders(row.url)),
    formats,
    organisations: json(Type.Array(Type.Integer()), { default: [] }),
  },
});
export default reports;

const download = (path: string, query: string) => `/py-reports/${path}/?format={format}${query}`;
const PERIOD = '&download=true&period_start={period_start}&period_end={period_end}';

/** The nine definitions the seed shows; every new database starts with them (resources.md). */
export const SEED_REPORTS = [
  { id: 4, name: 'data-quality', title: 'Data quality overview', description: "Published projects of an organisation that need attention: planned end date passed, not updated for three months, needing funding, without a photo.", url: download('organisation/{organisation}/data-quality-overview', ''), formats: ['pdf', 'excel'] },
  { id: 6, name: 'organisation-results-export', title: 'Results and indicators export', description: 'One row per indicator period of every project of the organisation.', url: download('organisation/{organisation}/results-indicators-table', ''), formats: ['excel'] },
  { id: 29, name: 'program-overview', title: 'Program overview', description: 'Aggregated results of a program and the contribution of each of its projects.', url: download('program/{program}/program-overview', PERIOD), formats: ['pdf'] },
  { id: 28, name: 'program-overview-table', title: 'Program overview table', description: 'Aggregated results of a program and its contributing projects, as a table.', url: download('program/{program}/program-overview-table', PERIOD), formats: ['excel'] },
  { id: 16, name: 'Project-report-word', title: 'Project report', description: 'Project summary, partners, budget, results summary and updates, as a Word document.', url: download('project/{project}/kickstart-report', PERIOD), formats: ['word'] },
  { id: 3, name: 'projects-overview', title: 'Projects overview', description: "Overview of an organisation's projects: totals, funding, status, countries and a table of published projects.", url: download('organisation/{organisation}/org-projects-overview', ''), formats: ['pdf', 'excel'] },
  { id: 13, name: 'project-updates-simple-table', title: 'Project updates table', description: 'The updates of a project within a date range.', url: download('project/{project}/updates-table', '&download=true&start_date={start_date}&end_date={end_date}'), formats: ['excel'] },
  { id: 1, name: 'results-framework', title: 'Results and indicators overview', description: 'Per result and indicator: baseline, targets, actual values and progress of each period.', url: download('project/{project}/results-indicators-overview', `${PERIOD}&comment={comment}`), formats: ['pdf'] },
  { id: 2, name: 'results-simple-table', title: 'Results and indicators table', description: 'Results, indicators and periods of a project, one sheet per result type.', url: download('project/{project}/results-indicators-table', '&download=true'), formats: ['excel'] },
].map((report) => ({ ...report, organisations: [] as number[] }));
