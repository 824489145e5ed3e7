/**
 * `serve` with WORKERS > 1: a primary process that migrates (and loads the demo) once, then
 * starts the workers (node:cluster), which share the port and each answer requests as a single
 * server would (serve.ts). The data versions live in the database, so writes, counts and cached
 * answers stay exact across workers as across instances; what a worker counts per project, the
 * primary passes on to the others (cluster-sharing.ts). A worker that dies is replaced; on
 * SIGTERM or SIGINT every worker finishes its requests in flight and the primary exits when all
 * have (0, or 1 when one of them did not end well); a second signal stops them at once.
 */
import cluster, { type Address, type Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import { createLogger } from '../ops/logger.ts';
import { allocatorEnvironment } from '../ops/allocator.ts';
import { relayShared } from './cluster-sharing.ts';
import { gatherClusterMetrics } from '../ops/cluster-metrics.ts';
import { maskUrl } from '../ops/redact.ts';
import { openEngine } from '../store/engine/index.ts';
import { schemaGate } from '../store/migrations.ts';
import { closeUntakenConnections } from './handoffs.ts';
import { prepare, serveMetrics, shownAddress, STOP } from './serve.ts';

const workers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

/** A worker, with the C allocator's settings (ops/allocator.ts). */
const fork = () => cluster.fork(allocatorEnvironment());

const urlOf = (address: Address) => `http://${address.addressType === 6 ? `[${address.address}]` : address.address}:${address.port}`;

export async function superviseWorkers(config: Config, withDemo: boolean): Promise<void> {
  const logger = createLogger(config);
  const engine = openEngine(config.databaseUrl, { poolSize: 1, onError: (error, what) => logger.error({ err: error }, what) });
  let contents: string;
  try {
    contents = await prepare(engine, schemaGate(engine), withDemo);
  } finally {
    await engine.close();
  }
  const primaryMetrics = gatherClusterMetrics();
  // V8's serialization on the workers' channels: the counts and matches they share are typed arrays (cluster-sharing.ts).
  cluster.setupPrimary({ serialization: 'advanced' });
  relayShared();
  // METRICS_PORT is the primary's: it sees every worker, whichever are running (serve.ts, serveMetrics).
  await serveMetrics(config, logger, primaryMetrics);

  const listening = new Set<number>();
  let announced = false;
  let stopping = false;
  let failed = false;

  cluster.on('listening', (worker, address) => {
    listening.add(worker.id);
    if (announced || listening.size < config.workers) return;
    announced = true;
    logger.info(`rsr-api listening on ${shownAddress(urlOf(address))}/rest/v1/ (${engine.name} ${maskUrl(engine.location)}: ${contents}; ${config.workers} workers)`);
  });

  // Connections handed to a worker that dies before taking them would wait for good (handoffs.ts).
  cluster.on('fork', (worker) => closeUntakenConnections(worker, (count) => logger.warn({ worker: worker.id, connections: count }, 'connections handed to the ended worker before it took them: closed')));

  cluster.on('exit', (worker, code, signal) => {
    const hadListened = listening.delete(worker.id);
    if (stopping) {
      if (code !== 0) failed = true;
      if (workers().length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (!hadListened) {
      // It could not start (the port is taken, the database refused it): another would fail alike.
      logger.fatal({ worker: worker.id, code, signal }, 'a worker ended before it could listen: stopping');
      failed = true;
      stop();
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'a worker ended: starting another');
    primaryMetrics.workerReplaced();
    fork();
  });

  function stop(signal?: NodeJS.Signals): void {
    if (stopping) {
      logger.warn({ signal }, 'second signal: stopping the workers at once');
      for (const worker of workers()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    if (signal) logger.info({ signal }, 'shutting down: the workers finish the requests in flight');
    for (const worker of workers()) if (worker.isConnected()) worker.send({ type: STOP });
    if (workers().length === 0) process.exit(failed ? 1 : 0);
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let index = 0; index < config.workers; index += 1) fork();
}
