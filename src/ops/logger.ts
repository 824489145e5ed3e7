/**
 * The service's log (pino, as Fastify uses): one JSON object per line on stdout, or pretty lines
 * for a person at a terminal (pino-pretty, LOG_FORMAT=pretty). Secrets are blanked (redact.ts).
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from '../config.ts';
import { REDACTED_PATHS } from './redact.ts';

export type { Logger } from 'pino';

export type LogOptions = Pick<Config, 'logLevel' | 'logFormat'>;

/**
 * A request in one line at a terminal, with the worker that answered it when there are several:
 * `[worker 2] request GET /rest/v1/keyword/ 200 1.7 ms hit by anonymous`.
 */
const PRETTY = {
  translateTime: 'SYS:HH:MM:ss.l',
  messageFormat: '{if worker}[worker {worker}] {end}{msg}{if method} {method} {url} {status} {ms} ms{end}{if cache} {cache}{end}{if caller} by {caller}{end}',
  ignore: 'pid,hostname,worker,requestId,method,url,status,ms,cache,caller',
};

/** A logger writing to `destination` (tests capture lines) or stdout. */
export function createLogger(options: LogOptions, destination?: DestinationStream): Logger {
  const settings = {
    level: options.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // ISO 8601 time, for people and log tools alike (pino's default is epoch milliseconds).
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return pino(settings, destination);
  // In this thread, not a worker: a worker's flush at exit would wait forever on a terminal that
  // has gone away (SIGHUP), where a write here just fails.
  const pretty = options.logFormat === 'pretty' ? loadPretty() : undefined;
  if (pretty) return pino(settings, pretty({ ...PRETTY, sync: true }));
  // Written without waiting: lines logged while a write is under way go out together with the
  // next one (a request's line costs no system call of its own); pino flushes what is left at exit.
  return pino(settings, pino.destination({ dest: 1, sync: false }));
}

/**
 * pino-pretty, loaded only when asked for: the container image leaves it out
 * (scripts/prune-production.mjs), and there LOG_FORMAT=pretty falls back to JSON lines, saying so.
 */
function loadPretty(): typeof PinoPretty | undefined {
  try {
    return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  } catch {
    process.stderr.write('rsr-api: LOG_FORMAT=pretty needs the package pino-pretty, which is not installed: logging JSON lines\n');
    return undefined;
  }
}
