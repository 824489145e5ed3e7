/** project-updates-simple-table (spec/reports.md): a project's updates with event dates in range, newest first. */
import type { Row } from '../resources/define.ts';
import { renderTimestamp } from '../text/time.ts';
import { within, type DateRange } from './params.ts';
import { compareDates, type ReportContext } from './source.ts';

export interface UpdateLine {
  id: number;
  title: string;
  text: string;
  createdAt: string | null;
  eventDate: string | null;
  firstName: string;
  lastName: string;
  url: string;
}

export interface UpdatesModel {
  project: { id: number; title: string };
  range: DateRange;
  updates: UpdateLine[];
}

/** Newest event first; updates without an event date last; then by id. */
function newestFirst(a: Row, b: Row): number {
  if (a.event_date === null || b.event_date === null) return compareDates(a.event_date, b.event_date) || a.id - b.id;
  return compareDates(b.event_date, a.event_date) || a.id - b.id;
}

export async function updatesModel(project: Row, context: ReportContext): Promise<UpdatesModel> {
  const updates = (await context.lookup.byColumn('project_update', 'project', [project.id]))
    .filter((update) => within(context.range, update.event_date))
    .sort(newestFirst);
  const users = new Map((await context.lookup.byColumn('user', 'id', updates.map((update) => update.user))).map((user) => [user.id, user]));
  return {
    project: { id: project.id, title: project.title },
    range: context.range,
    updates: updates.map((update) => ({
      id: update.id,
      title: update.title,
      text: update.text,
      createdAt: update.created_at === null ? null : renderTimestamp(update.created_at, context.timeZone),
      eventDate: update.event_date,
      firstName: users.get(update.user)?.first_name ?? '',
      lastName: users.get(update.user)?.last_name ?? '',
      url: `/en/project/${project.id}/update/${update.id}/`,
    })),
  };
}
