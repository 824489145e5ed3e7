/**
 * The mixed scenario driven by wrk (Debian's package) instead of autocannon: a load generator in C
 * shares the machine's cores with the server less (at the mix's thousand answers a second the two
 * measured alike; at the cached page's tens of thousands autocannon was the limit), and wrk gives
 * the slowest answer. The requests are the same sequence (mixed.ts, a seed), written to a file
 * that bench/mixed.lua replays in order; enough of them that none is sent twice.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mixedRequest, randomSource, type MixedData } from './mixed.ts';

/** More requests a second than two workers answer, so that the file is never replayed. */
const REQUESTS_PER_SECOND_AT_MOST = 8_000;

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers of status 4xx or 5xx, and connections that failed or timed out. */
  errors: number;
  serverErrors: number;
  /** Writes among the requests sent. */
  writes: number;
}

/** The mix's requests of `seed`, each a line: method, path, authorization, body (tab-separated). */
function requestLines(data: MixedData, writeShare: number, seed: number, count: number): { lines: string[]; writes: boolean[] } {
  const random = randomSource(seed);
  const lines: string[] = [];
  const writes: boolean[] = [];
  for (let sequence = 1; sequence <= count; sequence += 1) {
    const { write, request } = mixedRequest(data, random, writeShare, sequence);
    writes.push(write);
    const authorization = (request.headers as Record<string, string>).authorization ?? '';
    lines.push(`${request.method}\t${request.path}\t${authorization}\t${(request.body as string | undefined) ?? ''}`);
  }
  return { lines, writes };
}

/** Runs the mix against `base` for `seconds` over `connections` connections (wrk, one thread). */
export async function wrkMixed(base: string, data: MixedData, writeShare: number, seed: number, seconds: number, connections: number): Promise<WrkResult> {
  const directory = mkdtempSync(join(tmpdir(), 'rsr-api-mix-'));
  try {
    const { lines, writes } = requestLines(data, writeShare, seed, seconds * REQUESTS_PER_SECOND_AT_MOST);
    const file = join(directory, 'requests.tsv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const script = new URL('mixed.lua', import.meta.url).pathname;
    const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, base, '--', file], { maxBuffer: 1 << 20 });
    const figures = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, number>;
    if (figures.sent >= lines.length) throw new Error('wrk sent every request of the file: raise REQUESTS_PER_SECOND_AT_MOST');
    return {
      requestsPerSecond: Math.round(figures.requests / figures.seconds),
      p50Ms: Math.round(figures.p50Us / 100) / 10,
      p99Ms: Math.round(figures.p99Us / 100) / 10,
      maxMs: Math.round(figures.maxUs / 100) / 10,
      errors: figures.non2xx + figures.socketErrors + figures.timeouts,
      serverErrors: figures.serverErrors,
      writes: writes.slice(0, figures.sent).filter(Boolean).length,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
