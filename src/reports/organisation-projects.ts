/**
 * What the organisation reports share: the projects an organisation is a partner of that the
 * caller may see (store/visibility.ts decides, as for the lists), their locations, budgets and
 * updates, read in batches, and the status a project's dates give it.
 */
import type { Row } from '../resources/define.ts';
import { compareText } from '../text/sortkey.ts';
import { itemCurrency, toCents, totalsByCurrency } from './numbers.ts';
import { countryNames, groupBy, type ReportContext } from './source.ts';

export interface PartnerProject {
  project: Row;
  published: boolean;
  /** Country names of its locations, in location order, each once. */
  countries: string[];
  locations: number;
  /** Sum of its budget items per currency (an item without a currency is in the project's), by currency code. */
  budget: [currency: string, cents: bigint][];
  updates: Row[];
}

export type ProjectStatus = 'planned' | 'active' | 'completed';

/** By its actual dates: not started, started and not ended, ended (spec/reports.md, projects-overview). */
export function projectStatus(project: Row, today: string): ProjectStatus {
  if (project.date_start_actual === null || project.date_start_actual > today) return 'planned';
  return project.date_end_actual !== null && project.date_end_actual <= today ? 'completed' : 'active';
}

/** The projects the organisation is a partner of that the caller may see, by id. */
export async function partnerProjectRows(organisation: Row, context: ReportContext): Promise<Row[]> {
  const partnerships = await context.lookup.byColumn('partnership', 'organisation', [organisation.id]);
  const seen = await context.lookup.visible('project', [...new Set(partnerships.map((partnership) => partnership.project as number))]);
  return (await context.lookup.byColumn('project', 'id', [...seen])).sort((a, b) => a.id - b.id);
}

/** Projects with their countries and, where asked for, their budgets and updates (read in one batch). */
export async function describeProjects(projects: readonly Row[], context: ReportContext, parts: { budget: boolean; updates: boolean }): Promise<PartnerProject[]> {
  const { lookup } = context;
  const ids = projects.map((project) => project.id);
  const [locations, items, updates] = await Promise.all([
    lookup.byColumn('project_location', 'project', ids),
    parts.budget ? lookup.byColumn('budget_item', 'project', ids) : [],
    parts.updates ? lookup.byColumn('project_update', 'project', ids) : [],
  ]);
  const locationsOf = groupBy(locations, 'project');
  const itemsOf = groupBy(items, 'project');
  const updatesOf = groupBy(updates.sort((a, b) => a.id - b.id), 'project');
  return projects.map((project) => ({
    project,
    published: project.publishing_status === 'published',
    countries: countryNames(locationsOf.get(project.id) ?? []),
    locations: (locationsOf.get(project.id) ?? []).length,
    budget: totalsByCurrency((itemsOf.get(project.id) ?? []).map((item) => [itemCurrency(item, project), toCents(item.amount)])),
    updates: updatesOf.get(project.id) ?? [],
  }));
}

export async function partnerProjects(organisation: Row, context: ReportContext): Promise<PartnerProject[]> {
  return describeProjects(await partnerProjectRows(organisation, context), context, { budget: true, updates: true });
}

/** By first country (D7 text order; none last), then id. */
export function byCountry(a: PartnerProject, b: PartnerProject): number {
  const [x, y] = [a.countries[0], b.countries[0]];
  if (x !== y) return x === undefined ? 1 : y === undefined ? -1 : compareText(x, y) || 0;
  return a.project.id - b.project.id;
}
