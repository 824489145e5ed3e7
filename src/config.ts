/**
 * Settings from the environment, with the defaults a newcomer needs (README, "Configuration").
 * Every value is checked before anything opens: a mistake is one line naming the variable.
 */
import { availableParallelism } from 'node:os';
import { maskUrl } from './ops/redact.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from './store/engine/index.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections of the whole service, divided among its workers. */
  databasePoolSize: number;
  /** Processes that answer requests (node:cluster): one per CPU by default. */
  workers: number;
  timeZone: string;
  trustProxy: boolean;
  /** Host names requests may address (links are built from them); null: any. */
  allowedHosts: string[] | null;
  logLevel: LogLevel;
  /** Pretty lines for a person at a terminal, JSON for everything else. */
  logFormat: 'json' | 'pretty';
  limits: Limits;
  /** Origins whose scripts may send signed-in requests and writes; any origin may read anonymously. */
  corsOrigins: string[];
  /** When set, GET /metrics asks for `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** Requests per window per caller (token, or address when anonymous); null: no limit. */
  rateLimit: RateLimit | null;
  /** Report files are made on threads of their own (reports/pool.ts), per worker process. */
  reports: ReportLimits;
  /** How long a SIGTERM waits for requests in flight before the process exits anyway. */
  shutdownTimeoutMs: number;
}

/** Time limits and load shedding (README, "Limits"). */
export interface Limits {
  /** Receiving a whole request, body included (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** Receiving a request's headers (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** One database statement; a longer one is cancelled and answered 503. */
  statementTimeoutMs: number;
  /** Mean event-loop delay over a second beyond which requests are shed with 503; 0: never. */
  maxEventLoopDelayMs: number;
}

export interface RateLimit {
  max: number;
  windowMs: number;
}

/** The limits when nothing is set (the app's own defaults too: http/app.ts). */
export const DEFAULT_LIMITS: Limits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 65_000,
  statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS,
  maxEventLoopDelayMs: 200,
};

export interface ReportLimits {
  /** Threads making report files at once. */
  threads: number;
  /** Downloads one caller may have made or waiting at once (past it: 429). */
  perCaller: number;
  /** Downloads that may wait for a thread (past it: 503). */
  queue: number;
}

export const DEFAULT_REPORT_LIMITS: ReportLimits = { threads: 1, perCaller: 2, queue: 32 };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A setting that cannot be used: said in one line, and the command exits with status 2. */
export class ConfigError extends Error {}

type Env = NodeJS.ProcessEnv;

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not '${raw}'`);
  }
  return value;
}

/** Whole seconds from 1 to a day, as milliseconds. */
const seconds = (env: Env, name: string, fallbackMs: number) => integer(env, name, fallbackMs / 1000, 1, 86_400) * 1000;

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, not '${env[name]}'`);
  return raw as T;
}

function validTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new ConfigError(`TIME_ZONE '${zone}' is not a time zone`);
  }
}

/** `sqlite:PATH` or `postgres://…` (`postgresql://` too), with a port PostgreSQL could listen on. */
function databaseUrl(raw: string): string {
  if (/^sqlite:/.test(raw)) {
    if (raw.replace(/^sqlite:(\/\/)?/, '') === '') throw new ConfigError(`DATABASE_URL 'sqlite:' needs a file path (sqlite:./data/rsr.sqlite)`);
    return raw;
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    // Checked before URL reads it: URL refuses a port past 65535 as no URL at all.
    const port = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^/:?]*):(\d+)/.exec(raw)?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) throw new ConfigError(`DATABASE_URL has port ${port}: ports are 1 to 65535`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(`DATABASE_URL '${maskUrl(raw)}' is not a URL`);
    }
    if (url.hostname === '') throw new ConfigError(`DATABASE_URL '${maskUrl(raw)}' names no host`);
    return raw;
  }
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, not '${maskUrl(raw).slice(0, 40)}'`);
}

/** `CORS_ORIGINS`: full origins (`https://dash.example.org`) separated by commas. */
function corsOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin.replace(/\/$/, '')) throw new ConfigError(`CORS_ORIGINS: '${origin}' is not an origin such as https://dashboard.example.org`);
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

const WINDOWS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000 };

/** `RATE_LIMIT`: `N/second`, `N/minute` or `N/hour`; unset or `off`: no limit. */
function rateLimit(raw: string | undefined): RateLimit | null {
  const text = (raw ?? '').trim().toLowerCase();
  if (text === '' || text === 'off') return null;
  const match = /^(\d+)\s*\/\s*(second|minute|hour)$/.exec(text);
  if (!match || Number(match[1]) < 1) throw new ConfigError(`RATE_LIMIT must be like 600/minute (per second, minute or hour), or off; not '${raw}'`);
  return { max: Number(match[1]), windowMs: WINDOWS[match[2]] };
}

/** `ALLOWED_HOSTS`: host names separated by commas, `.example.org` for it and its subdomains; `*` or unset for any. */
function allowedHosts(raw: string | undefined): string[] | null {
  const hosts = (raw ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
  return hosts.length === 0 || hosts.includes('*') ? null : hosts;
}

function limits(env: Env): Limits {
  const chosen = {
    requestTimeoutMs: seconds(env, 'REQUEST_TIMEOUT', DEFAULT_LIMITS.requestTimeoutMs),
    headersTimeoutMs: seconds(env, 'HEADERS_TIMEOUT', DEFAULT_LIMITS.headersTimeoutMs),
    keepAliveTimeoutMs: seconds(env, 'KEEP_ALIVE_TIMEOUT', DEFAULT_LIMITS.keepAliveTimeoutMs),
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', DEFAULT_LIMITS.statementTimeoutMs, 1, 3_600_000),
    maxEventLoopDelayMs: integer(env, 'MAX_EVENT_LOOP_DELAY_MS', DEFAULT_LIMITS.maxEventLoopDelayMs, 0, 60_000),
  };
  // Node refuses a server whose headers may take longer than the whole request.
  if (chosen.headersTimeoutMs > chosen.requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT (${chosen.headersTimeoutMs / 1000}) cannot be longer than REQUEST_TIMEOUT (${chosen.requestTimeoutMs / 1000})`);
  return chosen;
}

const yes = (raw: string | undefined) => ['1', 'true', 'yes'].includes((raw ?? '').trim().toLowerCase());

export function loadConfig(env: Env = process.env, terminal = Boolean(process.stdout.isTTY)): Config {
  return {
    port: integer(env, 'PORT', 8000, 0, 65_535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: databaseUrl(env.DATABASE_URL || 'sqlite:./data/rsr.sqlite'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    workers: integer(env, 'WORKERS', availableParallelism(), 1, 256),
    timeZone: validTimeZone(env.TIME_ZONE || 'Europe/Stockholm'),
    trustProxy: yes(env.TRUST_PROXY),
    allowedHosts: allowedHosts(env.ALLOWED_HOSTS),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, terminal ? 'pretty' : 'json'),
    limits: limits(env),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    metricsToken: env.METRICS_TOKEN || null,
    rateLimit: rateLimit(env.RATE_LIMIT),
    reports: {
      threads: integer(env, 'REPORT_THREADS', DEFAULT_REPORT_LIMITS.threads, 1, 64),
      perCaller: integer(env, 'REPORTS_PER_CALLER', DEFAULT_REPORT_LIMITS.perCaller, 1, 1000),
      queue: integer(env, 'REPORT_QUEUE', DEFAULT_REPORT_LIMITS.queue, 0, 10_000),
    },
    shutdownTimeoutMs: seconds(env, 'SHUTDOWN_TIMEOUT', 25_000),
  };
}
