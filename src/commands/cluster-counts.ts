/**
 * Counts per project (store/project-counts.ts) shared by the workers of one service: a histogram
 * one worker counted whole goes through the primary to every other, which keeps it where it holds
 * none of that list and filters. At scale 100 the first count of a new filter takes a worker
 * 100 ms to a second; without this each worker paid it again when the filter first came its way.
 * Node's cluster channel carries JSON, so the counts travel as base64 (a histogram of 60,000
 * projects: 640 kB, about 5 ms to encode, pass as JSON and decode, shared by the three processes).
 */
import cluster from 'node:cluster';
import type { Neighbours, SharedHistogram } from '../store/project-counts.ts';

const TOLD = 'rsr-api:project-counts';

interface Told {
  type: typeof TOLD;
  key: string;
  version: number;
  path: number;
  total: number;
  projects: string;
  counts: string;
}

const isTold = (message: unknown): message is Told => typeof message === 'object' && message !== null && (message as Told).type === TOLD;

const encoded = (array: Int32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');

/** Copied out of the decoded bytes: a small Buffer may sit at an offset an Int32Array cannot start at. */
function decoded(text: string): Int32Array {
  const bytes = Buffer.from(text, 'base64');
  const array = new Int32Array(bytes.byteLength >>> 2);
  new Uint8Array(array.buffer).set(bytes.subarray(0, array.byteLength));
  return array;
}

/** In the primary: passes each histogram a worker tells on to every other worker. */
export function relayCounts(): void {
  cluster.on('message', (from, message: unknown) => {
    if (!isTold(message)) return;
    for (const worker of Object.values(cluster.workers ?? {})) if (worker && worker !== from && worker.isConnected()) worker.send(message);
  });
}

/** In a worker: the others, through the primary. */
export function clusterNeighbours(): Neighbours {
  return {
    tell({ key, version, path, total, projects, counts }: SharedHistogram) {
      if (process.connected) process.send?.({ type: TOLD, key, version, path, total, projects: encoded(projects), counts: encoded(counts) } satisfies Told);
    },
    hear(take) {
      process.on('message', (message: unknown) => {
        if (!isTold(message)) return;
        const [projects, counts] = [decoded(message.projects), decoded(message.counts)];
        if (projects.length === counts.length) take({ key: message.key, version: message.version, path: message.path, total: message.total, projects, counts });
      });
    },
  };
}
