/**
 * `npm run soak`: the soak of bench/soak-run.ts from the command line, its figures written to
 * bench/results/soak.json and summed up on stdout; exits 1 when a check fails.
 *
 *   SOAK_MINUTES=30          minutes of load          SOAK_WARM_UP_MINUTES   before memory is measured (a sixth, at most 5)
 *   SOAK_SCALE=1             demo scale               SOAK_STORE=sqlite      or postgres (on SOAK_POSTGRES_URL or TEST_POSTGRES_URL)
 *   SOAK_RATE=200            the mix's requests/s (0: unlimited), over SOAK_CONNECTIONS=16
 *   SOAK_SAMPLE_SECONDS=5    SOAK_REPORTS_EVERY=60 (s from one round of downloads to the next)   SOAK_IMPORT_EVERY=15 (s between imports)
 *   SOAK_MAX_SLOPE=20        MiB per hour a worker's RSS may grow after the warm-up
 *   SOAK_RESULT              where the figures go (bench/results/soak.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_SOAK, soak, summary } from './soak-run.ts';

const env = process.env;
const numberOf = (name: string, fallback: number) => (env[name] === undefined || env[name] === '' ? fallback : Number(env[name]));
const minutes = numberOf('SOAK_MINUTES', DEFAULT_SOAK.minutes);
const postgres = env.SOAK_STORE === 'postgres';
const postgresUrl = env.SOAK_POSTGRES_URL ?? env.TEST_POSTGRES_URL ?? null;
if (postgres && !postgresUrl) throw new Error('SOAK_STORE=postgres needs SOAK_POSTGRES_URL or TEST_POSTGRES_URL');

const report = await soak({
  minutes,
  warmUpMinutes: numberOf('SOAK_WARM_UP_MINUTES', Math.min(DEFAULT_SOAK.warmUpMinutes, minutes / 6)),
  scale: numberOf('SOAK_SCALE', DEFAULT_SOAK.scale),
  postgresUrl: postgres ? postgresUrl : null,
  rate: numberOf('SOAK_RATE', DEFAULT_SOAK.rate),
  connections: numberOf('SOAK_CONNECTIONS', DEFAULT_SOAK.connections),
  sampleSeconds: numberOf('SOAK_SAMPLE_SECONDS', DEFAULT_SOAK.sampleSeconds),
  reportsEverySeconds: numberOf('SOAK_REPORTS_EVERY', DEFAULT_SOAK.reportsEverySeconds),
  importEverySeconds: numberOf('SOAK_IMPORT_EVERY', DEFAULT_SOAK.importEverySeconds),
  maxSlopeMiBPerHour: numberOf('SOAK_MAX_SLOPE', DEFAULT_SOAK.maxSlopeMiBPerHour),
});
const file = env.SOAK_RESULT ?? join(new URL('..', import.meta.url).pathname, 'bench/results/soak.json');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(summary(report));
console.log(`figures: ${file}`);
if (report.checks.some((check) => !check.ok)) process.exitCode = 1;
