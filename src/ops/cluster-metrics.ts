/**
 * Metrics of a service that runs as several worker processes (node:cluster): any worker may be
 * the one scraped, so it asks the primary, which gathers every worker's figures with prom-client's
 * AggregatorRegistry (counters and histograms summed) and hands the exposition back. The metrics'
 * own listener (METRICS_PORT) is the primary's: it answers with the same exposition directly.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';

const ASK = 'rsr-api:metrics?';
const ANSWER = 'rsr-api:metrics';
/** prom-client waits five seconds for every worker: a little longer here. */
const WAIT_MS = 6000;

interface Message {
  type?: unknown;
  id?: string;
  text?: string;
  error?: string;
}

/** What the primary itself counts, shown beside the workers' figures. */
export interface PrimaryMetrics {
  /** A worker ended unexpectedly and another was started in its place. */
  workerReplaced(): void;
  /** The whole service's exposition, as a worker is answered it (for the primary's own metrics listener). */
  text(): Promise<string>;
  contentType: string;
}

/** In the primary: answers workers that ask for the whole service's metrics, the primary's own added. */
export function gatherClusterMetrics(): PrimaryMetrics {
  const aggregator = new AggregatorRegistry();
  // The primary's own figures: a worker's would be lost with the worker they count.
  const own = new Registry();
  const restarts = new Counter({ name: 'rsr_api_worker_restarts_total', help: 'Workers that ended unexpectedly and were replaced by a new one (counted by the primary process).', registers: [own] });
  const whole = () => Promise.all([aggregator.clusterMetrics(), own.metrics()]).then(([workers, primary]) => `${workers}\n${primary}`);
  cluster.on('message', (worker, message: Message) => {
    if (message?.type !== ASK) return;
    const reply = (answer: Omit<Message, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    whole().then((text) => reply({ text }), (error: unknown) => reply({ error: String(error) }));
  });
  return { workerReplaced: () => restarts.inc(), text: whole, contentType: own.contentType };
}

/** In a worker: shows these registries to the primary; the function returns every worker's metrics. */
export function clusterMetrics(registries: Registry[]): () => Promise<string> {
  AggregatorRegistry.setRegistries(registries);
  // Made in a worker, it answers the primary's requests for this worker's figures.
  new AggregatorRegistry();
  return () => new Promise((resolve, reject) => {
    const id = randomUUID();
    const timer = setTimeout(() => finish(new Error('the primary process did not answer with the metrics in time')), WAIT_MS);
    const listener = (message: Message) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      finish(message.error === undefined ? null : new Error(message.error), message.text);
    };
    function finish(error: Error | null, text?: string) {
      clearTimeout(timer);
      process.off('message', listener);
      if (error) reject(error);
      else resolve(text ?? '');
    }
    process.on('message', listener);
    process.send?.({ type: ASK, id });
  });
}
