/** What a report model reads through: the store's batched lookups, as the caller may see them. */
import { codeName } from '../codelists/index.ts';
import type { Caller, Lookup, Row } from '../resources/define.ts';
import type { DateRange } from './params.ts';

export interface ReportContext {
  lookup: Lookup;
  caller: Caller;
  timeZone: string;
  /** Today in the service's time zone, `YYYY-MM-DD`. */
  today: string;
  /** The period (or update) dates the request keeps. */
  range: DateRange;
  /** Whether comments are shown (`comment=true`). */
  comments: boolean;
  /** Aborted when the client goes away: a long report stops reading. */
  signal?: AbortSignal;
}

/** `a` before `b` by `order` (null last), then id: results and indicators (spec/reports.md, Order). */
export function byOrder(a: Row, b: Row): number {
  if (a.order !== b.order) return a.order === null ? 1 : b.order === null ? -1 : a.order - b.order;
  return a.id - b.id;
}

/** Dates (`YYYY-MM-DD`) earliest first, a missing date last. */
export function compareDates(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null || b === null) return a === null ? 1 : -1;
  return a < b ? -1 : 1;
}

/** Groups rows by one of their columns, keeping each group in the rows' order. */
export function groupBy<T extends Record<string, unknown>>(rows: readonly T[], key: keyof T): Map<unknown, T[]> {
  const groups = new Map<unknown, T[]>();
  for (const row of rows) {
    const group = groups.get(row[key]);
    if (group) group.push(row);
    else groups.set(row[key], [row]);
  }
  return groups;
}

/** The names of the countries of a project's locations, in location order, each once. */
export function countryNames(locations: readonly Row[]): string[] {
  return [...new Set([...locations].sort((a, b) => a.id - b.id).filter((location) => location.country).map((location) => codeName('country', location.country)))];
}
