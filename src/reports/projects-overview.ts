/**
 * projects-overview (spec/reports.md): an organisation, statistics of the projects it is a
 * partner of, funding per currency, projects by status, start year and country, and the list of
 * its published projects. Laid out in layout/projects-overview.ts.
 */
import { codeName } from '../codelists/index.ts';
import type { Row } from '../resources/define.ts';
import { compareText } from '../text/sortkey.ts';
import { byCountry, partnerProjects, projectStatus, type PartnerProject, type ProjectStatus } from './organisation-projects.ts';
import { totalsByCurrency } from './numbers.ts';
import type { ReportContext } from './source.ts';

export interface OrganisationFacts {
  id: number;
  name: string;
  longName: string;
  city: string;
  country: string;
  url: string;
}

export interface ProjectsOverview {
  organisation: OrganisationFacts;
  statistics: { projects: number; published: number; unpublished: number; updates: number; users: number };
  funding: [currency: string, cents: bigint][];
  byStatus: [ProjectStatus, number][];
  byStartYear: [year: string, projects: number][];
  byCountry: { country: string; projects: number; updates: number }[];
  /** Published projects by first country, then id. */
  published: PartnerProject[];
  today: string;
}

export async function organisationFacts(organisation: Row, context: ReportContext): Promise<OrganisationFacts> {
  const locations = (await context.lookup.byColumn('organisation_location', 'location_target', [organisation.id])).sort((a, b) => a.id - b.id);
  const primary = locations.find((location) => location.id === organisation.primary_location) ?? locations[0];
  return {
    id: organisation.id,
    name: organisation.name,
    longName: organisation.long_name,
    city: primary?.city ?? '',
    country: codeName('country', primary?.iati_country),
    url: organisation.url ?? '',
  };
}

const counted = <K>(keys: readonly K[]): Map<K, number> => keys.reduce((counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1), new Map<K, number>());

export async function projectsOverview(organisation: Row, context: ReportContext): Promise<ProjectsOverview> {
  const [facts, projects, employments] = await Promise.all([
    organisationFacts(organisation, context),
    partnerProjects(organisation, context),
    context.lookup.byColumn('employment', 'organisation', [organisation.id]),
  ]);
  const published = projects.filter((line) => line.published);
  const statuses = counted(projects.map((line) => projectStatus(line.project, context.today)));
  const years = counted(published.map((line) => (line.project.date_start_planned ?? '').slice(0, 4) || 'not set'));
  const countries = new Map<string, { projects: number; updates: number }>();
  for (const line of published) {
    for (const country of line.countries) {
      const entry = countries.get(country) ?? { projects: 0, updates: 0 };
      entry.projects += 1;
      entry.updates += line.updates.length;
      countries.set(country, entry);
    }
  }
  return {
    organisation: facts,
    statistics: {
      projects: projects.length,
      published: published.length,
      unpublished: projects.length - published.length,
      updates: published.reduce((total, line) => total + line.updates.length, 0),
      users: new Set(employments.filter((employment) => employment.is_approved).map((employment) => employment.user)).size,
    },
    funding: totalsByCurrency(published.flatMap((line) => line.budget)),
    byStatus: (['planned', 'active', 'completed'] as const).map((status) => [status, statuses.get(status) ?? 0]),
    byStartYear: [...years].sort(([a], [b]) => (a === 'not set' ? 1 : b === 'not set' ? -1 : a < b ? -1 : 1)),
    byCountry: [...countries].map(([country, counts]) => ({ country, ...counts })).sort((a, b) => compareText(a.country, b.country)),
    published: published.sort(byCountry),
    today: context.today,
  };
}
