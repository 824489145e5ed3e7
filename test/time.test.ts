/** Timestamps are written in TIME_ZONE with the offset in force at that instant, across its changes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderTimestamp } from '../src/text/time.ts';

test('offsets change at the instant the zone changes them, also within a remembered hour', () => {
  const cases: [string, string, string][] = [
    // Stockholm moves to summer time at 01:00 UTC on 29 March 2026, and back at 01:00 UTC on 25 October.
    ['2026-03-29T00:59:59.000000Z', 'Europe/Stockholm', '2026-03-29T01:59:59+01:00'],
    ['2026-03-29T01:00:00.000000Z', 'Europe/Stockholm', '2026-03-29T03:00:00+02:00'],
    ['2026-03-29T01:30:00.250000Z', 'Europe/Stockholm', '2026-03-29T03:30:00.250000+02:00'],
    ['2026-10-25T00:59:59.000000Z', 'Europe/Stockholm', '2026-10-25T02:59:59+02:00'],
    ['2026-10-25T01:00:00.000000Z', 'Europe/Stockholm', '2026-10-25T02:00:00+01:00'],
    // Kathmandu went from +05:30 to +05:45 at 18:30 UTC, in the middle of an hour.
    ['1985-12-31T18:00:00.000000Z', 'Asia/Kathmandu', '1985-12-31T23:30:00+05:30'],
    ['1985-12-31T18:29:59.000000Z', 'Asia/Kathmandu', '1985-12-31T23:59:59+05:30'],
    ['1985-12-31T18:30:00.000000Z', 'Asia/Kathmandu', '1986-01-01T00:15:00+05:45'],
    ['1985-12-31T18:59:59.000000Z', 'Asia/Kathmandu', '1986-01-01T00:44:59+05:45'],
    ['2026-11-23T12:00:00.000000Z', 'UTC', '2026-11-23T12:00:00Z'],
    // Offsets west of UTC and before 1970 (days counted back from the epoch), summer and winter.
    ['1965-06-01T12:00:00.000000Z', 'America/St_Johns', '1965-06-01T09:30:00-02:30'],
    ['1965-01-01T12:00:00.000000Z', 'America/St_Johns', '1965-01-01T08:30:00-03:30'],
    ['1969-12-31T23:30:00.000000Z', 'Europe/Stockholm', '1970-01-01T00:30:00+01:00'],
  ];
  // Twice: the second pass answers from the remembered hours.
  for (const pass of [1, 2]) {
    for (const [stored, zone, shown] of cases) assert.equal(renderTimestamp(stored, zone), shown, `${stored} in ${zone}, pass ${pass}`);
  }
});

// A zone without changes in those years: an hour with a change is asked each time (the test above).
test('every hour of sixteen years of timestamps is remembered: read again, none asks Intl for its offset', () => {
  const hourMs = 3_600_000;
  const first = Date.UTC(2008, 6, 1);
  const stamps = Array.from({ length: 16 * 365 * 24 }, (_, hour) => `${new Date(first + hour * hourMs + 1_234_000).toISOString().slice(0, 19)}.000000Z`);
  const format = Intl.DateTimeFormat.prototype.formatToParts;
  let asked = 0;
  Intl.DateTimeFormat.prototype.formatToParts = function (this: Intl.DateTimeFormat, ...args) {
    asked += 1;
    return format.apply(this, args);
  };
  try {
    const shown = stamps.map((stamp) => renderTimestamp(stamp, 'Asia/Kolkata'));
    assert.ok(asked >= stamps.length, `the first reading asked for each hour (${asked})`);
    asked = 0;
    assert.deepEqual(stamps.map((stamp) => renderTimestamp(stamp, 'Asia/Kolkata')), shown);
    assert.equal(asked, 0);
  } finally {
    Intl.DateTimeFormat.prototype.formatToParts = format;
  }
});
