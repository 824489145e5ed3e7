/**
 * data-quality (spec/reports.md): of an organisation's published projects, those whose planned
 * end has passed without an actual end, those without an update in the last three months, those
 * whose budget is zero or missing, and those without a location.
 */
import type { Row } from '../resources/define.ts';
import { renderTimestamp } from '../text/time.ts';
import { byCountry, partnerProjects, type PartnerProject } from './organisation-projects.ts';
import type { ReportContext } from './source.ts';

export interface QualityList {
  title: string;
  /** The Excel sheet it gets (at most 31 characters). */
  sheet: string;
  projects: PartnerProject[];
}

export interface DataQuality {
  organisation: { id: number; name: string };
  published: number;
  lists: QualityList[];
  today: string;
}

/** `YYYY-MM-DD` three calendar months before `today` (the last day of a shorter month where needed). */
export function monthsBefore(today: string, months: number): string {
  const [year, month, day] = today.split('-').map(Number);
  const target = new Date(Date.UTC(year, month - 1 - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.toISOString().slice(0, 10);
}

export async function dataQuality(organisation: Row, context: ReportContext): Promise<DataQuality> {
  const published = (await partnerProjects(organisation, context)).filter((line) => line.published).sort(byCountry);
  const since = monthsBefore(context.today, 3);
  const recent = (line: PartnerProject) => line.updates.some((update) => update.created_at !== null && renderTimestamp(update.created_at, context.timeZone).slice(0, 10) >= since);
  const lists: QualityList[] = [
    { title: 'Planned end date passed, not ended', sheet: 'Ended late', projects: published.filter(({ project }) => project.date_end_planned !== null && project.date_end_planned < context.today && project.date_end_actual === null) },
    { title: 'No update in the last 3 months', sheet: 'No recent updates', projects: published.filter((line) => !recent(line)) },
    { title: 'Needing funding (budget zero or none)', sheet: 'Needing funding', projects: published.filter((line) => line.budget.every(([, cents]) => cents === 0n)) },
    { title: 'No location', sheet: 'No location', projects: published.filter((line) => line.locations === 0) },
  ];
  return { organisation: { id: organisation.id, name: organisation.name }, published: published.length, lists, today: context.today };
}
