/**
 * Dates and timestamps of the demo. Everything is relative to a fixed "today" so that a seed gives
 * the same dataset next year; days are integers (days since 1970-01-01) until they are written.
 */
import type { Rng } from './random.ts';

export const DAY_SECONDS = 86400;

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

function lastSunday(year: number, month: number): number {
  const last = dayOf(year, month + 1, 0);
  // Day 0 (1970-01-01) was a Thursday, so (day + 4) % 7 is 0 on Sundays.
  return last - ((last + 4) % 7);
}

// Summer time by the EU rule (in force since 1996, before any demo date): from the last Sunday of
// March to the last Sunday of October, 01:00 UTC. Tabled once per year: this runs per timestamp.
const FIRST_YEAR = 1970;
const LAST_YEAR = 2100;
const yearStarts: number[] = [];
const summerStarts: number[] = [];
const summerEnds: number[] = [];
for (let year = FIRST_YEAR; year <= LAST_YEAR + 1; year++) {
  yearStarts.push(dayOf(year, 1, 1) * DAY_SECONDS);
  summerStarts.push(lastSunday(year, 3) * DAY_SECONDS + 3600);
  summerEnds.push(lastSunday(year, 10) * DAY_SECONDS + 3600);
}

/** Minutes east of UTC in Europe/Stockholm, the service's default zone (decision D4). */
function stockholmOffset(seconds: number): number {
  let i = Math.min(LAST_YEAR - FIRST_YEAR, Math.max(0, Math.floor(seconds / 31556952)));
  while (i > 0 && seconds < yearStarts[i]) i--;
  while (i < LAST_YEAR - FIRST_YEAR && seconds >= yearStarts[i + 1]) i++;
  return seconds >= summerStarts[i] && seconds < summerEnds[i] ? 120 : 60;
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

/** A day in [from, to] that is not after today (records of the past). */
export function pastDay(rng: Rng, from: number, to: number): number {
  const last = Math.min(to, TODAY);
  const first = Math.min(from, last);
  return rng.between(first, last);
}
