/** What the title block of a project report shows: the project, its partners and its locations. */
import { codeName } from '../codelists/index.ts';
import type { Row } from '../resources/define.ts';
import { partners, type Partner } from './project-summary.ts';
import type { ReportContext } from './source.ts';

export interface Place {
  name: string;
  country: string;
}

export interface ProjectHeader {
  project: Row;
  partners: Partner[];
  /** In id order; a location without a name is named by its country. */
  locations: Place[];
}

export async function projectHeader(project: Row, context: ReportContext): Promise<ProjectHeader> {
  const [partnerList, locations] = await Promise.all([partners(project, context), context.lookup.byColumn('project_location', 'project', [project.id])]);
  return {
    project,
    partners: partnerList,
    locations: locations.sort((a, b) => a.id - b.id).map((location) => ({ name: location.name as string, country: codeName('country', location.country) })),
  };
}
