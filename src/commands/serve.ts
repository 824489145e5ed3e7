/**
 * `rsr-api serve`: the API on PORT, with its log, metrics and limits as configured, from WORKERS
 * processes (cluster.ts) or one; and a graceful end: on SIGTERM or SIGINT a server stops
 * accepting, finishes the requests in flight, closes the database and exits 0 (1 past
 * SHUTDOWN_TIMEOUT); a second signal exits at once.
 */
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { CompiledQuery } from 'kysely';
import type { Config } from '../config.ts';
import { buildApp } from '../http/app.ts';
import { listenForMetrics, type MetricsSource } from '../http/metrics-listener.ts';
import { trimAllocator } from '../ops/allocator.ts';
import { releaseHeapWhenIdle } from '../ops/heap-release.ts';
import { createLogger, type Logger } from '../ops/logger.ts';
import { Metrics } from '../ops/metrics.ts';
import { maskUrl } from '../ops/redact.ts';
import { openEngine, type Engine } from '../store/engine/index.ts';
import { schemaGate } from '../store/migrations.ts';
import { Reader } from '../store/reader.ts';
import { clusterNeighbours } from './cluster-sharing.ts';
import { createDemoUsers, loadDemo } from './demo.ts';
import { formatCount } from './messages.ts';

/** The engine as the server uses it: its statements timed for the metrics, its stray errors logged. */
function openForServing(config: Config, metrics: Metrics, logger: Logger, poolSize = config.databasePoolSize): Engine {
  return openEngine(config.databaseUrl, {
    poolSize,
    statementTimeoutMs: config.limits.statementTimeoutMs,
    onQuery: (seconds, failed) => metrics.querySeconds.observe({ outcome: failed ? 'error' : 'ok' }, seconds),
    onError: (error, what) => logger.error({ err: error }, what),
  });
}

/** Migrates once the database answers; with `--demo`, fills an empty database. What it holds, for the start-up line. */
export async function prepare(engine: Engine, schemaReady: () => Promise<void>, withDemo: boolean): Promise<string> {
  try {
    await schemaReady();
    const projects = async () => Number((await engine.db.selectFrom('project').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
    if (withDemo && (await projects()) === 0) {
      await loadDemo(engine, 1, 1, false);
      await createDemoUsers(engine, Boolean(process.stderr.isTTY));
    }
    // Projects, not all records: counting every table of a large database would delay start-up.
    return `${formatCount(await projects())} projects`;
  } catch (error) {
    if (!engine.isUnavailable(error)) throw error;
    return 'database unavailable: answering 503 until it is back';
  }
}

/** The service from this one process (WORKERS=1), or as one of the workers cluster.ts starts. */
export async function serve(config: Config, withDemo: boolean): Promise<void> {
  if (cluster.isWorker) return serveAsWorker(config);
  const logger = createLogger(config);
  const metrics = new Metrics();
  const engine = openForServing(config, metrics, logger);
  const schemaReady = schemaGate(engine);
  const contents = await prepare(engine, schemaReady, withDemo);
  await listen(config, logger, metrics, engine, schemaReady, (address) => `rsr-api listening on ${shownAddress(address)}/rest/v1/ (${engine.name} ${maskUrl(engine.location)}: ${contents})`);
}

/**
 * GET /metrics on a listener of its own (METRICS_PORT, METRICS_HOST), started before the API's
 * port opens: a port it cannot have stops the start. Returns what closes it.
 */
export async function serveMetrics(config: Config, logger: Logger, source: MetricsSource): Promise<() => Promise<void>> {
  if (!config.metricsListener) return async () => undefined;
  const listener = await listenForMetrics({ ...config.metricsListener, token: config.metricsToken, source, onError: (error) => logger.error({ err: error }, 'the metrics could not be gathered') });
  logger.info({ metrics: `${listener.url}/metrics` }, `metrics on ${listener.url}/metrics`);
  return () => listener.close();
}

/** What the primary sends a worker to have it finish its requests and exit. */
export const STOP = 'rsr-api:stop';

/** Where the API is, as a person would type it. */
export const shownAddress = (address: string): string => address.replace(/\/\/(127\.0\.0\.1|0\.0\.0\.0)\b/, '//localhost');

/**
 * One of the WORKERS processes: the primary has migrated (and loaded the demo); the worker's
 * share of the pool, and metrics that show every worker's figures.
 */
async function serveAsWorker(config: Config): Promise<void> {
  const logger = createLogger(config).child({ worker: cluster.worker?.id });
  const metrics = new Metrics();
  metrics.joinCluster();
  const engine = openForServing(config, metrics, logger, Math.max(1, Math.floor(config.databasePoolSize / config.workers)));
  const schemaReady = schemaGate(engine);
  await listen(config, logger, metrics, engine, schemaReady, (address) => `listening on ${shownAddress(address)}`);
}

async function listen(config: Config, logger: Logger, metrics: Metrics, engine: Engine, schemaReady: () => Promise<void>, listening: (address: string) => string): Promise<void> {
  const app = buildApp({
    engine, schemaReady, logger, metrics,
    // A worker shares the counts it makes per project and the matches it keeps with the service's others (cluster-sharing.ts).
    reader: new Reader(engine, { neighbours: cluster.isWorker ? clusterNeighbours() : undefined }),
    timeZone: config.timeZone,
    trustProxy: config.trustProxy,
    allowedHosts: config.allowedHosts,
    limits: config.limits,
    corsOrigins: config.corsOrigins,
    rateLimit: config.rateLimit,
    metricsToken: config.metricsToken,
    callerLimits: config.callerLimits,
    reports: { ...config.reports, databaseUrl: config.databaseUrl },
  });
  let stopReleasing = (): void => undefined;
  let stopMetrics = async (): Promise<void> => undefined;
  const graceful = closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      // A hang-up is a terminal gone away: nothing is left to finish requests for or to log to
      // (a graceful stop writing to the dead terminal spun at full CPU), so it ends the process at
      // once. A worker's signals are the primary's to answer (below).
      skip: cluster.isWorker ? ['SIGHUP', 'SIGINT', 'SIGTERM'] : ['SIGHUP'],
      logger: { error: (message: unknown) => logger.error(message) },
    },
    async ({ signal, err }) => {
      stopReleasing();
      await stopMetrics();
      if (err) logger.fatal({ err }, 'uncaught error: shutting down');
      else logger.info({ signal }, 'shutting down: finishing the requests in flight');
      await app.close();
      await engine.close();
      logger.info('stopped');
    },
  );
  if (cluster.isWorker) {
    // A signal (a terminal sends it to every process), the primary's word, or the primary gone:
    // whichever comes first starts the graceful end, the others change nothing. A second signal
    // is the primary's to act on: it stops every worker at once.
    let stopping = false;
    const stop = () => {
      if (!stopping) void graceful.close();
      stopping = true;
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('message', (message: { type?: unknown } | null) => message?.type === STOP && stop());
    process.on('disconnect', stop);
  }
  // Ready before the first request: the engine's threads for long reads (SQLite) start now, not
  // on a request that would wait for them (a third of a second when run from the sources).
  await engine.runLong(CompiledQuery.raw('select 1')).catch(() => undefined); // a database away is answered later, as 503
  // The metrics' own listener (METRICS_PORT): this process's; in a cluster, the primary's (cluster.ts).
  if (!cluster.isWorker && config.metricsListener) stopMetrics = await serveMetrics(config, logger, metrics);
  // Fastify's own start-up line, with where the API is and what it serves.
  await app.listen({ port: config.port, host: config.host, listenTextResolver: listening });
  // A burst of requests grows the heap far past what it holds: given back once they stop, and
  // what the C allocator then holds free with it.
  let requests = 0;
  app.server.on('request', () => (requests += 1));
  stopReleasing = releaseHeapWhenIdle(() => requests, undefined, () => void trimAllocator());
  // Every list's count is needed by its every page: counted per project now, beside the first
  // requests, rather than by one of them (kept across writes from then on). Every second worker
  // starts from the last list: two meet halfway, each keeping what the other counted.
  void schemaReady().then(() => app.services.reader.projectCounts.warm((cluster.worker?.id ?? 1) % 2 === 0), () => undefined);
}
