/**
 * Drives one running server with the mixed scenario's reads (or one path, fresh), for profiling:
 * `node --import tsx bench/drive.ts BASE [seconds] [path]` (`SEED`: another sequence of requests; `WRITES=0.05` with `EDITOR_KEY`: that share of writes;
 * `LOADER=wrk`: the mix sent by wrk, bench/wrk-mix.ts; `RATE`: autocannon's requests per second in all).
 */
import autocannon from 'autocannon';
import { mixedData, mixedRequests } from './mixed.ts';
import { wrkMixed } from './wrk-mix.ts';

const [base, seconds = '10', path] = process.argv.slice(2);
if (process.env.LOADER === 'wrk' && !path) {
  const result = await wrkMixed(base, await mixedData(base, process.env.EDITOR_KEY ?? ''), Number(process.env.WRITES ?? 0), Number(process.env.SEED ?? 14), Number(seconds), Number(process.env.CONNECTIONS ?? 32));
  console.log(`${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms, errors ${result.errors}, 5xx ${result.serverErrors}, writes ${result.writes} (wrk)`);
  process.exit(0);
}
let sequence = 0;
const requests = path
  ? [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: `${path}${path.includes('?') ? '&' : '?'}_=${(sequence += 1)}` }) }]
  : mixedRequests(await mixedData(base, process.env.EDITOR_KEY ?? ''), Number(process.env.WRITES ?? 0), Number(process.env.SEED ?? 14));
// RATE: requests per second in all, below what the server can answer: its CPU time per request is then its own, not the machine's share.
const result = await autocannon({ url: base, connections: Number(process.env.CONNECTIONS ?? 32), duration: Number(seconds), requests, ...(process.env.RATE ? { overallRate: Number(process.env.RATE) } : {}) });
console.log(`${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors + result.timeouts}, statuses ${JSON.stringify((result as unknown as { statusCodeStats: unknown }).statusCodeStats)}`);
