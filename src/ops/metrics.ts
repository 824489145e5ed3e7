/**
 * What GET /metrics shows, in Prometheus' text format (prom-client): requests and their latency
 * per route and status, the caches, the database pool and its queries, report durations, and
 * the process (event-loop lag, memory, CPU). Knows nothing of HTTP: the server feeds it.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { allocatorTrims } from './allocator.ts';
import { clusterMetrics } from './cluster-metrics.ts';

/** Latency buckets in seconds, from a cached answer (< 1 ms) to a large report. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Process metrics are process-wide: collected once, shown by every registry (tests build many apps). */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'rsr_api_' });
    const trimmed = (read: (figures: ReturnType<typeof allocatorTrims>) => number) =>
      function (this: Counter) {
        this.reset();
        this.inc(read(allocatorTrims()));
      };
    new Counter({ name: 'rsr_api_allocator_trims_total', help: 'Times the C allocator was asked to give back the memory it held free: once a report thread ended, or once idle after a burst of requests that grew the heap.', registers: [processRegistry], collect: trimmed((figures) => figures.count) });
    new Counter({ name: 'rsr_api_allocator_trimmed_bytes_total', help: 'About the resident memory those trims gave back to the system, in bytes (the process\'s before each trim less after it, other threads running meanwhile).', registers: [processRegistry], collect: trimmed((figures) => figures.bytes) });
  }
  return processRegistry;
}

/** Figures read when scraped rather than counted as they happen. */
export interface Gauges {
  responseCache(): { hits: number; misses: number; entries: number; bytes: number };
  countCache(): { hits: number; misses: number; entries: number };
  /** Deep pages' lists found in memory (hit) or made (miss), and the ids held for them. */
  deepPages(): { hits: number; misses: number; ids: number };
  /** PostgreSQL's pool; null on SQLite. */
  pool(): { total: number; idle: number; waiting: number } | null;
  /** Report downloads being made on the report threads, and waiting for one; null without threads. */
  reports(): { running: number; waiting: number } | null;
  /** Every cache of the registry (store/caches.ts): its description and figures now. */
  caches(): CacheShown[];
}

/** A cache as the registry describes it (store/caches.ts), its figures read when scraped. */
export interface CacheShown {
  name: string;
  holds: string;
  key: string;
  bound: string;
  stale: string;
  figures(): { entries: number; hits: number; misses: number; weight: number };
}

export class Metrics {
  private readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'rsr_api_http_requests_total', help: 'Requests answered, per method, route and status.', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  private readonly requestSeconds = new Histogram({ name: 'rsr_api_http_request_duration_seconds', help: 'Time from request to answer, per method, route and status.', labelNames: ['method', 'route', 'status'], buckets: SECONDS, registers: [this.registry] });
  readonly querySeconds = new Histogram({ name: 'rsr_api_db_query_duration_seconds', help: 'Database statements run for answers, by outcome.', labelNames: ['outcome'], buckets: SECONDS, registers: [this.registry] });
  readonly reportSeconds = new Histogram({ name: 'rsr_api_report_duration_seconds', help: 'Time to make a report download, per report and format.', labelNames: ['report', 'format'], buckets: SECONDS, registers: [this.registry] });
  readonly shed = new Counter({ name: 'rsr_api_shed_requests_total', help: 'Requests refused with 503 because the event loop lagged.', registers: [this.registry] });
  readonly throttled = new Counter({ name: 'rsr_api_rate_limited_requests_total', help: 'Requests refused with 429 by the rate limit.', registers: [this.registry] });
  readonly callerLimited = new Counter({
    name: 'rsr_api_caller_limited_requests_total', labelNames: ['limit'], registers: [this.registry],
    help: 'Requests refused with 429 by a per-caller limit: large list pages at once (large_pages), report downloads at once (reports), keys from an address past its wrong keys (token_failures).',
  });
  private gauges: Gauges | null = null;
  /**
   * Each method, route and status's own counter and histogram, found by one string: prom-client
   * would otherwise hash the labels of every answer. Bounded: routes are the declared patterns
   * (or `unmatched`), methods those Node parses.
   */
  private readonly series = new Map<string, { count: { inc(): void }; time: { observe(value: number): void } }>();
  /** In a worker of a cluster: every worker's metrics, gathered by the primary. */
  private gathered: (() => Promise<string>) | null = null;

  constructor() {
    this.cacheMetrics();
  }

  /** A request answered: counted, and its time kept, under its method, route and status. */
  answered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method, route, status };
      series = { count: this.requests.labels(labels), time: this.requestSeconds.labels(labels) };
      this.series.set(key, series);
    }
    series.count.inc();
    series.time.observe(seconds);
  }

  /** Tells the metrics where to read the caches and the pool from. */
  watch(gauges: Gauges): void {
    this.gauges = gauges;
  }

  /** A counter whose value is read when scraped: it moves by what `read` gained since. */
  private counterOf(name: string, help: string, read: (gauges: Gauges) => Record<string, number> | null): void {
    const current = () => (this.gauges ? read(this.gauges) : null);
    const seen: Record<string, number> = {};
    new Counter({
      name, help, labelNames: ['result'], registers: [this.registry],
      collect() {
        const now = current();
        for (const [result, value] of Object.entries(now ?? {})) {
          this.inc({ result }, Math.max(0, value - (seen[result] ?? 0)));
          seen[result] = value;
        }
      },
    });
  }

  /** A gauge read when scraped, with one label for its parts (or none). */
  private gaugeOf(name: string, help: string, label: string | null, read: (gauges: Gauges) => Record<string, number> | number | null): void {
    const current = () => (this.gauges ? read(this.gauges) : null);
    new Gauge({
      name, help, labelNames: label ? [label] : [], registers: [this.registry],
      collect() {
        const now = current();
        if (typeof now === 'number') this.set(now);
        else for (const [part, value] of Object.entries(now ?? {})) this.set({ [label as string]: part }, value);
      },
    });
  }

  private cacheMetrics(): void {
    this.counterOf('rsr_api_response_cache_requests_total', 'Cacheable requests answered from the response cache (hit) or made afresh (miss).', (gauges) => {
      const { hits, misses } = gauges.responseCache();
      return { hit: hits, miss: misses };
    });
    this.gaugeOf('rsr_api_response_cache_bytes', 'Bytes of answers held by the response cache, compressed copies included.', null, (gauges) => gauges.responseCache().bytes);
    this.gaugeOf('rsr_api_response_cache_entries', 'Answers held by the response cache.', null, (gauges) => gauges.responseCache().entries);
    this.counterOf('rsr_api_count_cache_requests_total', 'List counts found current in the count cache (hit) or counted afresh (miss).', (gauges) => {
      const { hits, misses } = gauges.countCache();
      return { hit: hits, miss: misses };
    });
    this.gaugeOf('rsr_api_count_cache_entries', 'Counts held by the count cache.', null, (gauges) => gauges.countCache().entries);
    this.counterOf('rsr_api_deep_page_lists_total', 'Deep pages read from a list of ids kept in memory (hit) or from one made for them (miss).', (gauges) => {
      const { hits, misses } = gauges.deepPages();
      return { hit: hits, miss: misses };
    });
    this.gaugeOf('rsr_api_deep_page_ids', 'Ids held in memory for deep pages (tables\' orders and lists).', null, (gauges) => gauges.deepPages().ids);
    this.gaugeOf('rsr_api_report_downloads', 'Report downloads being made on the report threads (running) and waiting for one (waiting).', 'state', (gauges) => gauges.reports());
    this.cacheRegistry();
    this.gaugeOf('rsr_api_db_pool_connections', 'PostgreSQL pool connections: open, idle, and requests waiting for one.', 'state', (gauges) => gauges.pool());
  }

  /** Every cache of the registry: what it is (an info gauge of 1), entries, weight, lookups. */
  private cacheRegistry(): void {
    const caches = () => this.gauges?.caches() ?? [];
    const perCache = (read: (cache: CacheShown) => number) => () => Object.fromEntries(caches().map((cache) => [cache.name, read(cache)]));
    new Gauge({
      name: 'rsr_api_cache_info', help: 'The caches (store/caches.ts): what an entry holds, its key, the bound, what makes it stale.', labelNames: ['cache', 'holds', 'key', 'bound', 'stale'], registers: [this.registry], aggregator: 'first',
      collect() {
        for (const { name, holds, key, bound, stale } of caches()) this.set({ cache: name, holds, key, bound, stale }, 1);
      },
    });
    this.gaugeOf('rsr_api_cache_entries', 'Entries each cache holds.', 'cache', perCache((cache) => cache.figures().entries));
    this.gaugeOf('rsr_api_cache_weight', 'What the entries of each cache weigh, in the unit its bound names (0: unweighed).', 'cache', perCache((cache) => cache.figures().weight));
    new Counter({
      name: 'rsr_api_cache_lookups_total', help: 'Lookups of each cache that found a current entry (hit) or made one (miss).', labelNames: ['cache', 'result'], registers: [this.registry],
      collect() {
        this.reset();
        for (const cache of caches()) {
          const { hits, misses } = cache.figures();
          this.inc({ cache: cache.name, result: 'hit' }, hits);
          this.inc({ cache: cache.name, result: 'miss' }, misses);
        }
      },
    });
  }

  readonly contentType = this.registry.contentType;

  /** This process is one worker of several: from now on the exposition is the whole service's. */
  joinCluster(): void {
    this.gathered = clusterMetrics([this.registry, processMetrics()]);
  }

  /** The exposition: this server's metrics and the process's (every worker's, in a cluster). */
  async text(): Promise<string> {
    return this.gathered ? this.gathered() : Registry.merge([this.registry, processMetrics()]).metrics();
  }
}
