/**
 * What an operator sees (issue 13), on every store: a JSON log line per request with its id (the
 * caller's or a new one, on cached answers too), no secret in any line, 5xx and pool errors with
 * their stack, probes not logged at info; and GET /metrics, parsed, with its counters moving.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { allocatorTrims, glibc, trimAllocator } from '../src/ops/allocator.ts';
import { createLogger } from '../src/ops/logger.ts';
import { createToken } from '../src/store/users.ts';
import { runCli, startCliServer } from './support/cli.ts';
import { parseExposition, sampleValue as value, type Family } from './support/prometheus.ts';
import { FIXTURE, request, testStores, useServer } from './support/server.ts';

/** A logger whose lines the test reads, as a log collector would: one JSON object per line. */
function capturedLog() {
  const lines: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, encoding, done) {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
      done();
    },
  });
  const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, stream);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- log entries are checked field by field
  return { logger, lines, entries: (): any[] => lines.map((line) => JSON.parse(line)) };
}

/** Lines are written once the answer is sent: wait a moment for the last one. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Metrics are the operator's: on the API's port only with METRICS_TOKEN, and for it only. */
const METRICS_TOKEN = 'm3trics';
const METRICS = { authorization: `Bearer ${METRICS_TOKEN}` };

/** Where `rsr-api serve` says its metrics listener (METRICS_PORT) is. */
const metricsUrl = (output: string) => /"metrics":"(http:\/\/[^"]+)"/.exec(output)?.[1] ?? '';

for (const store of testStores()) {
  describe(`logs (${store.name})`, () => {
    const log = capturedLog();
    const server = useServer(store, undefined, { logger: log.logger, metricsToken: METRICS_TOKEN });

    test('one JSON line per request, with the request id the answer carries; a sane X-Request-Id is kept, cached answers included', async () => {
      log.lines.length = 0;
      const first = await request(server.base, '/rest/v1/keyword/?log=1', { headers: { 'x-request-id': 'trace-abc.123' } });
      const second = await request(server.base, '/rest/v1/keyword/?log=1');
      const hostile = await request(server.base, '/rest/v1/keyword/?log=1', { headers: { 'x-request-id': 'x'.repeat(200) } });
      await settle();
      assert.equal(first.headers.get('x-request-id'), 'trace-abc.123');
      assert.match(second.headers.get('x-request-id') ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Too long to be an id: replaced, not echoed.
      assert.match(hostile.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const entries = log.entries();
      assert.equal(entries.length, 3, log.lines.join('\n'));
      const shown = entries.map(({ level, msg, requestId, method, url, status, cache, caller }) => ({ level, msg, requestId, method, url, status, cache, caller }));
      assert.deepEqual(shown, [
        { level: 30, msg: 'request', requestId: 'trace-abc.123', method: 'GET', url: '/rest/v1/keyword/?log=1', status: 200, cache: 'miss', caller: 'anonymous' },
        // Made again the second time, and kept then (response-cache.ts: URLs asked for once are not kept).
        { level: 30, msg: 'request', requestId: second.headers.get('x-request-id'), method: 'GET', url: '/rest/v1/keyword/?log=1', status: 200, cache: 'miss', caller: 'anonymous' },
        { level: 30, msg: 'request', requestId: hostile.headers.get('x-request-id'), method: 'GET', url: '/rest/v1/keyword/?log=1', status: 200, cache: 'hit', caller: 'anonymous' },
      ]);
      for (const entry of entries) {
        assert.equal(typeof entry.ms, 'number');
        assert.match(entry.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    });

    test('no token, password or key reaches the log: not from headers, not from the URL', async () => {
      log.lines.length = 0;
      const key = await createToken(server.engine, 'ana@example.org');
      await request(server.base, '/rest/v1/keyword/?token=s3cret-token&password=hunter2&api_key=k3y&keyword=water', { headers: { authorization: `Token ${key}` } });
      await request(server.base, '/rest/v1/keyword/', { headers: { authorization: 'Token 0123456789abcdef0123456789abcdef01234567' } });
      await request(server.base, '/rest/v1/link/', { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ project: 999999, url: 'https://example.org', password: 'hunter2' }) });
      await settle();
      const text = log.lines.join('\n');
      assert.equal(log.lines.length, 3, text);
      for (const secret of [key, 's3cret-token', 'hunter2', 'k3y', '0123456789abcdef0123456789abcdef01234567']) assert.ok(!text.includes(secret), `${secret} in ${text}`);
      const [signedIn, badKey] = log.entries();
      assert.deepEqual([signedIn.url, signedIn.caller, signedIn.status], ['/rest/v1/keyword/?token=***&password=***&api_key=***&keyword=water', 1, 200]);
      assert.deepEqual([badKey.caller, badKey.status], ['anonymous', 403]);
    });

    test('a 500 is logged at error with its stack; the caller sees the catalogue body only', async () => {
      log.lines.length = 0;
      // A table gone behind the service's back: a fault of ours, not of the caller.
      await sql`drop table humanitarian_scope`.execute(server.engine.db);
      const answer = await request(server.base, '/rest/v1/humanitarian_scope/');
      await settle();
      assert.deepEqual([answer.status, answer.body], [500, { detail: 'A server error occurred.' }]);
      const [failure, line] = log.entries();
      assert.equal(failure.level, 50);
      assert.equal(failure.msg, 'request failed');
      assert.equal(failure.requestId, answer.headers.get('x-request-id'));
      assert.match(failure.err.stack, /humanitarian_scope/);
      assert.match(failure.err.stack, /\n\s+at /);
      assert.deepEqual([line.msg, line.status], ['request', 500]);
    });

    test('probes and metrics are not logged at info', async () => {
      log.lines.length = 0;
      for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal((await request(server.base, path, { headers: METRICS })).status, 200);
      await settle();
      assert.deepEqual(log.lines, []);
    });
  });

  describe(`metrics (${store.name})`, () => {
    const server = useServer(store, undefined, { metricsToken: METRICS_TOKEN });

    const scrape = async (): Promise<Map<string, Family>> => {
      const answer = await request(server.base, '/metrics', { headers: METRICS });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      return parseExposition(answer.text);
    };

    test('requests per route and status, latency histograms, caches, queries and the process, moving as requests are answered', async () => {
      const before = await scrape();
      const route = { method: 'GET', route: '/rest/v1/budget_item/', status: '200' };
      // Made twice (kept the second time), then answered from the cache.
      for (let index = 0; index < 3; index += 1) await request(server.base, '/rest/v1/budget_item/?metrics=1');
      await request(server.base, '/rest/v1/budget_item/?metrics=2');
      assert.equal((await request(server.base, '/rest/v1/budget_item/999999/')).status, 404);
      const after = await scrape();
      assert.equal(value(after, 'rsr_api_http_requests_total', route) - value(before, 'rsr_api_http_requests_total', route), 4);
      assert.equal(value(after, 'rsr_api_http_requests_total', { route: '/rest/v1/budget_item/:segment/', status: '404' }) - value(before, 'rsr_api_http_requests_total', { route: '/rest/v1/budget_item/:segment/', status: '404' }), 1);
      assert.equal(value(after, 'rsr_api_http_request_duration_seconds_count', route) - value(before, 'rsr_api_http_request_duration_seconds_count', route), 4);
      assert.equal(value(after, 'rsr_api_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }) - value(before, 'rsr_api_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }), 4);
      assert.equal(after.get('rsr_api_http_request_duration_seconds')?.type, 'histogram');
      assert.equal(value(after, 'rsr_api_response_cache_requests_total', { result: 'hit' }) - value(before, 'rsr_api_response_cache_requests_total', { result: 'hit' }), 1);
      // ?metrics=1 twice, ?metrics=2, and the record not found.
      assert.equal(value(after, 'rsr_api_response_cache_requests_total', { result: 'miss' }) - value(before, 'rsr_api_response_cache_requests_total', { result: 'miss' }), 4);
      assert.ok(value(after, 'rsr_api_response_cache_bytes') > value(before, 'rsr_api_response_cache_bytes'));
      assert.ok(value(after, 'rsr_api_response_cache_entries') >= 1);
      // ?metrics=2 counts the same list again: found in the count cache.
      assert.ok(value(after, 'rsr_api_count_cache_requests_total', { result: 'hit' }) > value(before, 'rsr_api_count_cache_requests_total', { result: 'hit' }));
      assert.ok(value(after, 'rsr_api_count_cache_requests_total', { result: 'miss' }) > value(before, 'rsr_api_count_cache_requests_total', { result: 'miss' }));
      assert.ok(after.has('rsr_api_nodejs_eventloop_lag_seconds'));
      assert.ok(after.has('rsr_api_process_resident_memory_bytes'));
      // The C allocator's trims (this process's, the server's): a trim made here is counted.
      await trimAllocator();
      const trimmed = await scrape();
      assert.equal(value(trimmed, 'rsr_api_allocator_trims_total'), allocatorTrims().count);
      assert.equal(value(trimmed, 'rsr_api_allocator_trimmed_bytes_total'), allocatorTrims().bytes);
      if (glibc()) assert.ok(value(trimmed, 'rsr_api_allocator_trims_total') > value(after, 'rsr_api_allocator_trims_total'));
      const pool = after.get('rsr_api_db_pool_connections');
      if (store.name === 'postgres') assert.deepEqual(pool?.samples.map((sample) => sample.labels.state).sort(), ['idle', 'total', 'waiting']);
      else assert.equal(pool?.samples.length, 0);
    });

    test('every cache of the registry: what it holds, its key, bound and staleness, entries, weight and lookups', async () => {
      await request(server.base, '/rest/v1/budget_item/?registry=1');
      await request(server.base, '/rest/v1/budget_item/?registry=2');
      const families = await scrape();
      const names = ['responses', 'counts', 'project_counts', 'visible_projects', 'seek_marks', 'list_starts', 'list_values_ends', 'table_orders', 'list_matches', 'list_orders', 'page_statements', 'short_walks', 'offered_matches', 'kept_matches', 'small_tables', 'related_statements', 'changed_projects', 'statements', 'key_statistics'];
      const info = families.get('rsr_api_cache_info')!.samples;
      assert.deepEqual(info.map((sample) => sample.labels.cache), names);
      for (const sample of info) {
        assert.equal(sample.value, 1);
        for (const label of ['holds', 'key', 'bound', 'stale']) assert.ok(sample.labels[label].length > 3, `${sample.labels.cache} ${label}`);
      }
      assert.deepEqual(families.get('rsr_api_cache_entries')!.samples.map((sample) => sample.labels.cache), names);
      // The second URL counts the same list: a hit of a count cache, as the older metric says too.
      const hits = (cache: string) => value(families, 'rsr_api_cache_lookups_total', { cache, result: 'hit' });
      assert.equal(hits('counts') + hits('project_counts'), value(families, 'rsr_api_count_cache_requests_total', { result: 'hit' }));
      assert.ok(hits('project_counts') >= 1, 'budget items are counted per project');
      assert.ok(value(families, 'rsr_api_cache_entries', { cache: 'statements' }) >= 1);
      if (store.name === 'sqlite') assert.ok(hits('statements') >= 1, 'the main connection found a statement it had prepared');
      assert.equal(value(families, 'rsr_api_cache_weight', { cache: 'responses' }), value(families, 'rsr_api_response_cache_bytes'));
    });

    test('as served by `rsr-api serve`: database statements timed, report durations per report and format, the pool watched', async () => {
      const database = await store.create();
      try {
        assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: database.url })).code, 0);
        const key = (await runCli(['token', 'create', '--email', 'ana@example.org'], { DATABASE_URL: database.url })).stdout.trim();
        // Metrics on a listener of their own (any free port here), not on the API's.
        const served = await startCliServer([], { DATABASE_URL: database.url, LOG_LEVEL: 'info', METRICS_PORT: '0' });
        try {
          const report = await request(served.base, '/py-reports/project/1/results-indicators-table/?format=excel', { headers: { authorization: `Token ${key}` } });
          assert.equal(report.status, 200);
          assert.equal((await request(served.base, '/metrics')).status, 404);
          assert.match(metricsUrl(served.output()), /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
          const families: Map<string, Family> = parseExposition((await request(metricsUrl(served.output()), '')).text);
          assert.equal(value(families, 'rsr_api_report_duration_seconds_count', { report: 'results-indicators-table', format: 'excel' }), 1);
          // Made on a report thread (the CLI's server has them), which is free again.
          assert.deepEqual([value(families, 'rsr_api_report_downloads', { state: 'running' }), value(families, 'rsr_api_report_downloads', { state: 'waiting' })], [0, 0]);
          assert.ok(value(families, 'rsr_api_db_query_duration_seconds_count', { outcome: 'ok' }) >= 3);
          if (store.name === 'postgres') {
            assert.ok(value(families, 'rsr_api_db_pool_connections', { state: 'total' }) >= 1);
            // The server drops the pool's idle connections (a restart, a failover): logged with the stack.
            const admin = new pg.Client({ connectionString: database.url });
            await admin.connect();
            await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'idle' and query not ilike 'listen%'`);
            await admin.end();
            await new Promise((resolve) => setTimeout(resolve, 300));
            const failures = served.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'an idle database connection failed');
            assert.ok(failures.length >= 1, served.output());
            assert.equal(failures[0].level, 50);
            assert.match(failures[0].err.stack, /terminat/);
            assert.equal((await request(served.base, '/rest/v1/keyword/?after=terminate')).status, 200);
          }
        } finally {
          await served.stop();
        }
      } finally {
        await database.drop();
      }
    });
  });
}

describe('metrics behind METRICS_TOKEN', () => {
  const [store] = testStores();
  const server = useServer(store, undefined, { metricsToken: METRICS_TOKEN });
  const unset = useServer(store);

  test('401 without the token, or with another; 200 with it', async () => {
    const none = await request(server.base, '/metrics');
    assert.deepEqual([none.status, none.body, none.headers.get('www-authenticate')], [401, { detail: 'Metrics need the METRICS_TOKEN.' }, 'Bearer realm="metrics"']);
    assert.equal((await request(server.base, '/metrics', { headers: { authorization: 'Bearer m3trics-not' } })).status, 401);
    // A `Token` is an API key to the API's own authentication: not one, so 403 as anywhere.
    assert.equal((await request(server.base, '/metrics', { headers: { authorization: 'Token m3trics' } })).status, 403);
    const allowed = await request(server.base, '/metrics', { headers: METRICS });
    assert.equal(allowed.status, 200);
    assert.match(allowed.text, /^# HELP rsr_api_http_requests_total /m);
  });

  test('without METRICS_TOKEN, /metrics is not served on the API\'s port at all', async () => {
    for (const headers of [{}, METRICS]) {
      const answer = await request(unset.base, '/metrics', { headers });
      assert.deepEqual([answer.status, answer.body], [404, { detail: 'Not found.' }]);
    }
  });
});

describe('metrics on a listener of their own (METRICS_PORT)', () => {
  const [store] = testStores();

  test('bound to 127.0.0.1 by default, /metrics only; METRICS_TOKEN asked for there too; the API\'s port serves them for the token only', async () => {
    const database = await store.create();
    try {
      assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: database.url })).code, 0);
      const served = await startCliServer([], { DATABASE_URL: database.url, METRICS_PORT: '0', METRICS_TOKEN });
      try {
        const url = metricsUrl(served.output());
        const base = url.replace(/\/metrics$/, '');
        assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.notEqual(base, served.base);
        const none = await request(base, '/metrics');
        assert.deepEqual([none.status, none.body, none.headers.get('www-authenticate')], [401, { detail: 'Metrics need the METRICS_TOKEN.' }, 'Bearer realm="metrics"']);
        assert.equal((await request(base, '/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 401);
        await request(served.base, '/rest/v1/keyword/');
        const scraped = await request(base, '/metrics', { headers: METRICS });
        assert.equal(scraped.status, 200);
        assert.equal(scraped.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
        assert.equal(value(parseExposition(scraped.text), 'rsr_api_http_requests_total', { route: '/rest/v1/keyword/', status: '200' }), 1);
        // Nothing else is served there: not the API, not a probe.
        for (const path of ['/rest/v1/', '/healthz', '/metrics/x']) assert.deepEqual((await request(base, path, { headers: METRICS })).status, 404, path);
        assert.equal((await request(base, '/metrics', { method: 'POST', headers: METRICS })).status, 405);
        // With the token set, the API's port serves them too, for the token only.
        assert.equal((await request(served.base, '/metrics')).status, 401);
        assert.equal((await request(served.base, '/metrics', { headers: METRICS })).status, 200);
      } finally {
        await served.stop();
      }
    } finally {
      await database.drop();
    }
  });

  test('a METRICS_PORT that is taken stops the start, as PORT would', async () => {
    const database = await store.create();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runCli(['serve'], { DATABASE_URL: database.url, PORT: '0', WORKERS: '1', METRICS_PORT: String((taken.address() as net.AddressInfo).port) });
      assert.equal(result.code, 1);
      assert.match(result.stderr + result.stdout, /EADDRINUSE/);
    } finally {
      taken.close();
      await database.drop();
    }
  });
});
