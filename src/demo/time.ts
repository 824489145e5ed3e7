/**
 * Dates and timestamps of the demo. Everything is relative to a fixed "today" so that a seed gives
 * the same dataset next year; days are integers (days since 1970-01-01) until they are written.
 */

const DAY_SECONDS = 86400;

/** Days since 1970-01-01 of a calendar date. */
export function dayOf(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / 86400000;
}

/** The demo's "today": data is entered up to here, plans run beyond it. */
export const TODAY = dayOf(2024, 6, 28);

// Formatting dates is the hot path of the generator; a table of the few thousand days in use is
// much faster than Date#toISOString per value.
const FIRST_CACHED = dayOf(1990, 1, 1);
const LAST_CACHED = dayOf(2040, 12, 31);
let dateTexts: string[] | undefined;

/** 'YYYY-MM-DD' of a day number. */
export function dateText(day: number): string {
  if (day < FIRST_CACHED || day > LAST_CACHED) return new Date(day * 86400000).toISOString().slice(0, 10);
  if (dateTexts === undefined) {
    dateTexts = [];
    for (let d = FIRST_CACHED; d <= LAST_CACHED; d++) dateTexts.push(new Date(d * 86400000).toISOString().slice(0, 10));
  }
  return dateTexts[day - FIRST_CACHED];
}

export function yearOf(day: number): number {
  return Number(dateText(day).slice(0, 4));
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

/** Start and end (UTC seconds) of summer time in a year, by the EU rule: last Sundays of March and October, 01:00 UTC. */
const summerTimes = new Map<number, [number, number]>();

function lastSunday(year: number, month: number): number {
  const last = dayOf(year, month + 1, 0);
  // Day 0 (1970-01-01) was a Thursday, so (day + 4) % 7 is 0 on Sundays.
  return last - ((last + 4) % 7);
}

/** Minutes east of UTC in Europe/Stockholm, the service's default zone (decision D4). */
function stockholmOffset(seconds: number): number {
  const year = new Date(seconds * 1000).getUTCFullYear();
  let summer = summerTimes.get(year);
  if (summer === undefined) {
    summer = [lastSunday(year, 3) * DAY_SECONDS + 3600, lastSunday(year, 10) * DAY_SECONDS + 3600];
    summerTimes.set(year, summer);
  }
  return seconds >= summer[0] && seconds < summer[1] ? 120 : 60;
}

/**
 * ISO 8601 in Stockholm time with microseconds, e.g. '2019-03-04T10:21:07.123456+01:00'
 * (microseconds are left out when they are zero, as the service writes them).
 */
export function timestampText(seconds: number, micros: number): string {
  const offset = stockholmOffset(seconds);
  const local = seconds + offset * 60;
  const day = Math.floor(local / DAY_SECONDS);
  const second = local - day * DAY_SECONDS;
  const clock = `${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}`;
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`;
  return `${dateText(day)}T${clock}${fraction}+${TWO_DIGITS[offset / 60]}:00`;
}

/** UTC seconds of a moment on `day` during office hours (07:00–18:59 UTC), picked by `fraction` in [0, 1). */
export function officeMoment(day: number, fraction: number): number {
  return day * DAY_SECONDS + 7 * 3600 + Math.floor(fraction * 12 * 3600);
}

export { DAY_SECONDS };
