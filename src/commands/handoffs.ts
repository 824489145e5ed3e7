/**
 * Connections the primary has handed to a worker that has not taken them yet. node:cluster's
 * round robin accepts each connection in the primary and sends it to a worker, closing its own
 * copy when the worker says it took it. A worker that dies (SIGKILL, out of memory) between the
 * two never says so, and Node keeps the connection open in the primary for good: its client
 * waits for an answer that never comes, and the primary holds one descriptor more (issue 26,
 * test/worker-kill.test.ts: a request or two each time a worker is killed under load). Once the
 * worker has exited it can take none: the primary closes them, and their clients see the
 * connection reset, as do the others the dead worker held.
 *
 * This reads Node's internal messages to its workers (`{cmd: 'NODE_CLUSTER', act: 'newconn',
 * seq}` with the connection, answered by `{cmd: 'NODE_CLUSTER', ack: seq}`), as Node 20 sends
 * them; a Node that sent others would leave this with nothing to close, and the test above would
 * see a request wait for its timeout.
 */
import type { Worker } from 'node:cluster';

interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

interface Closable {
  close(): void;
}

const isCluster = (message: unknown): message is ClusterMessage => typeof message === 'object' && message !== null && (message as ClusterMessage).cmd === 'NODE_CLUSTER';

/** Watches the connections handed to `worker`; those it never took are closed when its channel closes (`closed` is told how many). */
export function closeUntakenConnections(worker: Worker, closed: (count: number) => void): void {
  const untaken = new Map<unknown, Closable>();
  const child = worker.process;
  const send = child.send.bind(child) as (...args: unknown[]) => boolean;
  child.send = ((...args: unknown[]) => {
    const [message, handle] = args;
    if (isCluster(message) && message.act === 'newconn' && handle && typeof (handle as Closable).close === 'function') untaken.set(message.seq, handle as Closable);
    return send(...args);
  }) as typeof child.send;
  child.on('internalMessage', (message: unknown) => {
    if (isCluster(message) && message.ack !== undefined) untaken.delete(message.ack);
  });
  // Not on 'disconnect': a connection still waiting for the dead worker to confirm it holds
  // the descriptor (NODE_HANDLE_ACK) holds the channel open, and that never fires. A connection
  // whose taking is told after the exit is closed twice, which changes nothing: the worker that
  // took it is gone with its copy.
  child.once('exit', () => {
    const count = untaken.size;
    for (const handle of untaken.values()) handle.close();
    untaken.clear();
    if (count > 0) closed(count);
  });
}
