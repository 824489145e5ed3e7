/**
 * The soak of `npm run soak` (bench/soak-run.ts, issue 26) at a short setting: a minute and a
 * quarter of the mixed scenario with writes on a two-worker server, report downloads and imports
 * beside it, with the same checks as the thirty-minute run: no 5xx, nothing stale, no descriptor
 * or database connection kept, and each worker's memory after the warm-up.
 *
 * The memory check differs here. Twenty seconds after the start the caches are still filling
 * (answers, lists' ids, counts: up to 32 MiB each) and one garbage collection moves a worker's RSS
 * by tens of MiB, so a slope fitted over a minute is mostly that (500–5,500 MiB/hour on a
 * flat-running service, more on a busy CI machine): not asserted at this length. What is: each
 * worker once idle at the end (after its heap is given back) holds at most 128 MiB more than once
 * idle at the start. The thirty-minute run holds the slope to 20 MiB/hour (BENCHMARKS.md, "Hours
 * without drift").
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { soak, summary } from '../bench/soak-run.ts';

const SHORT = {
  minutes: 1.25, warmUpMinutes: 1 / 3, rate: 150, reportsEverySeconds: 15, importEverySeconds: 5, sampleSeconds: 2,
  // Fitted and reported, not asserted at this length (see above): the idle check below is.
  maxSlopeMiBPerHour: Number.POSITIVE_INFINITY,
};
/** What a worker idle at the end may hold more than idle at the start. */
const IDLE_GROWTH_MIB = 128;

// SQLite only at this length: PostgreSQL's pool keeps up to its size of idle connections (and their
// descriptors) until their idle timeout, which a minute's run cannot tell from connections kept
// for good; `SOAK_STORE=postgres npm run soak` checks PostgreSQL over its full length.
const stores: [string, string | null][] = [['sqlite', null]];

for (const [name, postgresUrl] of stores) {
  describe(`the soak, short (${name})`, () => {
    test('no 5xx, nothing stale, no descriptor or connection kept, memory without gross growth', async (t) => {
      const lines: string[] = [];
      const report = await soak({ ...SHORT, postgresUrl, log: (line) => lines.push(line) });
      for (const line of summary(report).split('\n')) t.diagnostic(line);
      for (const check of report.checks) assert.ok(check.ok, `${check.name}: ${check.detail}`);
      for (const worker of report.memory) {
        assert.ok(worker.rssMiB.end <= worker.rssMiB.start + IDLE_GROWTH_MIB, `worker ${worker.worker}: ${worker.rssMiB.start} MiB idle at the start, ${worker.rssMiB.end} idle at the end`);
      }
      assert.ok(report.load.requests > SHORT.rate * SHORT.minutes * 60 * 0.8, `the mix ran: ${report.load.requests} requests`);
      assert.ok(report.downloads.rounds >= 2 && report.imports.runs >= 3, `downloads ${report.downloads.rounds}, imports ${report.imports.runs}`);
    });
  });
}
