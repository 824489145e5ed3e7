/**
 * Settings from the environment, with the defaults a newcomer needs (README, "Configuration").
 * Every value is checked before anything opens: a mistake is one line naming the variable.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { maskUrl } from './ops/redact.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from './store/engine/index.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections of the whole service, divided among its workers. */
  databasePoolSize: number;
  /** Processes that answer requests (node:cluster): by default one per CPU the process may use (defaultWorkers). */
  workers: number;
  timeZone: string;
  /** Whose X-Forwarded-* headers are believed: every hop's (true), none (false), or the proxies listed (addresses, CIDR blocks, `loopback`…). */
  trustProxy: boolean | string;
  /** Host names requests may address (links are built from them); null: any. */
  allowedHosts: string[] | null;
  logLevel: LogLevel;
  /** Pretty lines for a person at a terminal, JSON for everything else. */
  logFormat: 'json' | 'pretty';
  limits: Limits;
  /** Origins whose scripts may send signed-in requests and writes; any origin may read anonymously. */
  corsOrigins: string[];
  /** When set, GET /metrics is served on the API's port too, for `Authorization: Bearer <token>` only (asked for on METRICS_PORT too). */
  metricsToken: string | null;
  /** A listener of its own for GET /metrics (METRICS_PORT, METRICS_HOST); null: none. */
  metricsListener: { port: number; host: string } | null;
  /** Per-caller limits on expensive work and on wrong keys (http/callers.ts), per worker process. */
  callerLimits: CallerLimits;
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

/** No caller takes the service for itself (README, "Limits"); counted per worker process. */
export interface CallerLimits {
  /** A list page whose `limit` is at least this is a large page. */
  largePageSize: number;
  /** Large pages one caller may have being made at once (past it: 429); 0: no limit. */
  largePagesPerCaller: number;
  /** Wrong API keys per address and window past which keys not seen passing are refused (429); null: never. */
  tokenFailures: RateLimit | null;
}

export const DEFAULT_CALLER_LIMITS: CallerLimits = { largePageSize: 300, largePagesPerCaller: 6, tokenFailures: { max: 20, windowMs: 60_000 } };

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

/** `RATE_LIMIT` (and `TOKEN_FAILURE_LIMIT`): `N/second`, `N/minute` or `N/hour`; `off`: no limit; unset: `fallback`. */
function rateLimit(raw: string | undefined, name = 'RATE_LIMIT', fallback: RateLimit | null = null): RateLimit | null {
  const text = (raw ?? '').trim().toLowerCase();
  if (text === '') return fallback;
  if (text === 'off') return null;
  const match = /^(\d+)\s*\/\s*(second|minute|hour)$/.exec(text);
  if (!match || Number(match[1]) < 1) throw new ConfigError(`${name} must be like 600/minute (per second, minute or hour), or off; not '${raw}'`);
  return { max: Number(match[1]), windowMs: WINDOWS[match[2]] };
}

/** Proxy names proxy-addr (Fastify's trustProxy) knows. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `TRUST_PROXY`: `true` (every hop's X-Forwarded-* believed), off, or the proxies in front, by
 * address, CIDR block or range name (`loopback`, `10.0.0.0/8`, `uniquelocal`), separated by commas.
 */
function trustProxy(raw: string | undefined): boolean | string {
  const text = (raw ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(text)) return false;
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_RANGES.has(entry) && (family === 0 || !validBits || rest.length > 0)) {
      throw new ConfigError(`TRUST_PROXY must be true, off, or proxy addresses (10.0.0.5, 10.0.0.0/8, loopback, linklocal, uniquelocal) separated by commas; not '${entry}'`);
    }
  }
  return entries.join(',');
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

/** `METRICS_PORT` (0: any free port, said in the log) on `METRICS_HOST` (127.0.0.1); unset: no listener of its own. */
function metricsListener(env: Env): { port: number; host: string } | null {
  if ((env.METRICS_PORT ?? '').trim() === '') return null;
  const port = integer(env, 'METRICS_PORT', 0, 0, 65_535);
  if (port !== 0 && String(port) === (env.PORT ?? '8000').trim()) throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): metrics are served apart from the API`);
  return { port, host: env.METRICS_HOST || '127.0.0.1' };
}

/** CPUs that cgroup v2's `cpu.max` allows ("150000 100000": 1.5; "max 100000": no limit, null). */
export function cpuMaxLimit(text: string): number | null {
  const [quota, period = '100000'] = text.trim().split(/\s+/);
  const cpus = Number(quota) / Number(period);
  return quota !== 'max' && cpus > 0 && Number.isFinite(cpus) ? cpus : null;
}

/** CPUs that cgroup v1's `cpu.cfs_quota_us` ("-1": no limit, null) and `cpu.cfs_period_us` allow. */
export function cfsQuotaLimit(quota: string, period: string): number | null {
  const cpus = Number(quota.trim()) / Number(period.trim());
  return cpus > 0 && Number.isFinite(cpus) ? cpus : null;
}

const readOrNull = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** `dir` joined with the cgroup `path` and each of its parents, the deepest first: `/a/b` gives dir/a/b, dir/a, dir. */
const upwards = (dir: string, path: string) => path.split('/').filter(Boolean).map((_, i, parts) => `${dir}/${parts.slice(0, parts.length - i).join('/')}`).concat(dir);

/**
 * The CPU time this process's cgroups allow, in CPUs (the smallest limit of its cgroup and their
 * parents), as /proc/self/cgroup places it: cgroup v2's `cpu.max` under /sys/fs/cgroup, or v1's
 * `cpu.cfs_quota_us` under the cpu controller's mount. In a container the cgroup's own folder is
 * the mount's root, also read. Null: no limit (or no cgroups, as off Linux).
 */
export function cgroupCpuLimit(read: (path: string) => string | null = readOrNull): number | null {
  const limits: number[] = [];
  for (const line of (read('/proc/self/cgroup') ?? '').split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(\/.*)$/.exec(line.trim()) ?? [];
    if (path === undefined) continue;
    if (controllers === '') {
      for (const dir of upwards('/sys/fs/cgroup', path)) {
        const text = read(`${dir}/cpu.max`);
        if (text !== null) limits.push(cpuMaxLimit(text) ?? Infinity);
      }
    } else if (controllers.split(',').includes('cpu')) {
      for (const mount of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct']) {
        for (const dir of upwards(mount, path)) {
          const quota = read(`${dir}/cpu.cfs_quota_us`);
          const period = read(`${dir}/cpu.cfs_period_us`);
          if (quota !== null && period !== null) limits.push(cfsQuotaLimit(quota, period) ?? Infinity);
        }
      }
    }
  }
  const least = Math.min(...limits);
  return Number.isFinite(least) ? least : null;
}

/**
 * WORKERS when unset: as many as the CPUs the process may really use. A cgroup CPU limit (a
 * container's `--cpus`, Kubernetes' CPU limit, systemd's CPUQuota=) counts in whole CPUs, at least
 * one; without one, Node's availableParallelism() (the CPUs it may run on).
 */
export function defaultWorkers(cpus = availableParallelism(), limit = cgroupCpuLimit()): number {
  return limit === null ? cpus : Math.max(1, Math.min(cpus, Math.floor(limit)));
}

export function loadConfig(env: Env = process.env, terminal = Boolean(process.stdout.isTTY)): Config {
  return {
    port: integer(env, 'PORT', 8000, 0, 65_535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: databaseUrl(env.DATABASE_URL || 'sqlite:./data/rsr.sqlite'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    workers: integer(env, 'WORKERS', defaultWorkers(), 1, 256),
    timeZone: validTimeZone(env.TIME_ZONE || 'Europe/Stockholm'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    allowedHosts: allowedHosts(env.ALLOWED_HOSTS),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, terminal ? 'pretty' : 'json'),
    limits: limits(env),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    metricsToken: env.METRICS_TOKEN || null,
    metricsListener: metricsListener(env),
    rateLimit: rateLimit(env.RATE_LIMIT),
    callerLimits: {
      largePageSize: integer(env, 'LARGE_PAGE_SIZE', DEFAULT_CALLER_LIMITS.largePageSize, 1, 1000),
      largePagesPerCaller: integer(env, 'LARGE_PAGES_PER_CALLER', DEFAULT_CALLER_LIMITS.largePagesPerCaller, 0, 10_000),
      tokenFailures: rateLimit(env.TOKEN_FAILURE_LIMIT, 'TOKEN_FAILURE_LIMIT', DEFAULT_CALLER_LIMITS.tokenFailures),
    },
    reports: {
      threads: integer(env, 'REPORT_THREADS', DEFAULT_REPORT_LIMITS.threads, 1, 64),
      perCaller: integer(env, 'REPORTS_PER_CALLER', DEFAULT_REPORT_LIMITS.perCaller, 1, 1000),
      queue: integer(env, 'REPORT_QUEUE', DEFAULT_REPORT_LIMITS.queue, 0, 10_000),
    },
    shutdownTimeoutMs: seconds(env, 'SHUTDOWN_TIMEOUT', 25_000),
  };
}
