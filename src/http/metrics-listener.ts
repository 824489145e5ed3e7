/**
 * Metrics are the operator's (README, "Metrics"): never on the API's port by default. With
 * METRICS_PORT they are served by a listener of their own, bound to METRICS_HOST (127.0.0.1
 * unless set), which answers GET /metrics and nothing else; the process that listens is the one
 * that sees the whole service: the single process, or the primary of WORKERS, which gathers
 * every worker's figures (ops/cluster-metrics.ts). On the API's port /metrics exists only with
 * METRICS_TOKEN (observe.ts). METRICS_TOKEN, when set, is asked for on either.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Whether an Authorization header is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The answer to a request without the token (either port). */
export const METRICS_NEED_TOKEN = { detail: 'Metrics need the METRICS_TOKEN.' };
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';

/** Where the exposition comes from: the process's metrics, or in a primary every worker's. */
export interface MetricsSource {
  text(): Promise<string>;
  contentType: string;
}

export interface MetricsListenerOptions {
  port: number;
  host: string;
  token: string | null;
  source: MetricsSource;
  /** Told when the metrics could not be gathered (answered 503). */
  onError(error: unknown): void;
}

export interface MetricsListener {
  /** Where it listens, as a URL (`http://127.0.0.1:9464`). */
  url: string;
  close(): Promise<void>;
}

function answerJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  response.end(text);
}

async function answer(request: IncomingMessage, response: ServerResponse, options: MetricsListenerOptions): Promise<void> {
  const path = (request.url ?? '').split('?')[0];
  if (path !== '/metrics') return answerJson(response, 404, { detail: 'Not found.' });
  if (request.method !== 'GET' && request.method !== 'HEAD') return answerJson(response, 405, { detail: `Method "${request.method}" not allowed.` }, { allow: 'GET, HEAD' });
  if (options.token && !bearerMatches(request.headers.authorization, options.token)) return answerJson(response, 401, METRICS_NEED_TOKEN, { 'www-authenticate': METRICS_CHALLENGE });
  let text: string;
  try {
    text = await options.source.text();
  } catch (error) {
    options.onError(error);
    return answerJson(response, 503, { detail: 'The metrics could not be gathered; try again shortly.' }, { 'retry-after': '1' });
  }
  response.writeHead(200, { 'content-type': options.source.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : text);
}

/** Starts the listener; rejects when it cannot listen (the port taken), so that the service does not start half-watched. */
export async function listenForMetrics(options: MetricsListenerOptions): Promise<MetricsListener> {
  // Scrapers send small requests: short limits on receiving one; a connection kept between scrapes (every 15 to 60 s).
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (request, response) => {
    answer(request, response, options).catch((error: unknown) => {
      options.onError(error);
      if (!response.headersSent) answerJson(response, 500, { detail: 'A server error occurred.' });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
  };
}
