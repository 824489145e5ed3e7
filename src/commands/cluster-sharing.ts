/**
 * What one worker read at a cost, shared with the service's others through the primary, which
 * passes each message on to every other worker:
 *   counts per project (store/project-counts.ts): at scale 100 the first count of a new filter
 *     takes a worker 100 ms to a second; without this each worker paid it again when the filter
 *     first came its way;
 *   kept matches (store/pages/kept-matches.ts): the ids a two-letter search matches, a scan of up
 *     to a million records (0.2 s idle, 1–1.5 s under the mixed load at scale 100), read once per
 *     service instead of once per worker.
 * Each is as exact in the other worker as here: its versions are the database's. The cluster's
 * channel is set to V8's serialization (cluster.ts), so both travel as the typed arrays they are:
 * a histogram of 60,000 projects is 480 kB of bytes, where as JSON it was 640 kB of base64 text.
 */
import cluster from 'node:cluster';
import type { SharedMatches } from '../store/pages/kept-matches.ts';
import type { Neighbours, SharedHistogram } from '../store/project-counts.ts';

const COUNTS = 'rsr-api:project-counts';
const MATCHES = 'rsr-api:kept-matches';

type Message = { type: string } & Record<string, unknown>;

const isShared = (message: unknown): message is Message => typeof message === 'object' && message !== null && [COUNTS, MATCHES].includes((message as Message).type);

/** In the primary: passes each thing a worker shares on to every other. */
export function relayShared(): void {
  cluster.on('message', (from, message: unknown) => {
    if (!isShared(message)) return;
    for (const worker of Object.values(cluster.workers ?? {})) if (worker && worker !== from && worker.isConnected()) worker.send(message);
  });
}

/**
 * One kind of message between the workers. `valid`: whether a message heard holds what it must
 * (one in JSON, from a channel not set to V8's serialization, would bring plain objects).
 */
function channel<T extends object>(type: string, valid: (message: Message) => boolean): Neighbours<T> {
  return {
    tell(shared: T) {
      if (process.connected) process.send?.({ ...shared, type });
    },
    hear(take) {
      process.on('message', (message: unknown) => {
        if (!isShared(message) || message.type !== type || !valid(message)) return;
        const { type: _, ...shared } = message;
        take(shared as T);
      });
    },
  };
}

/** In a worker: the others, through the primary. */
export function clusterNeighbours(): { counts: Neighbours<SharedHistogram>; matches: Neighbours<SharedMatches> } {
  return {
    counts: channel(COUNTS, ({ projects, counts }) => projects instanceof Int32Array && counts instanceof Int32Array && projects.length === counts.length),
    matches: channel(MATCHES, ({ keys, bits }) => keys instanceof Int32Array && bits instanceof Uint32Array),
  };
}
