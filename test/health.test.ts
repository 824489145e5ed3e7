/**
 * GET /healthz and /readyz (issue 13) on every store: alive and ready with exact bodies and
 * headers; not ready, with the reason, while a migration is missing or the database is away;
 * never answered from the response cache.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/http/app.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { schemaGate } from '../src/store/migrations.ts';
import { testStores, useServer } from './support/server.ts';

async function probe(base: string, path: string) {
  const answer = await fetch(`${base}${path}`, { headers: { 'x-request-id': 'probe-1' } });
  const headers = Object.fromEntries([...answer.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
  return { status: answer.status, headers, body: await answer.json() };
}

for (const store of testStores()) {
  describe(`health (${store.name})`, () => {
    const server = useServer(store);

    test('/healthz: the process answers', async () => {
      const answer = await probe(server.base, '/healthz');
      assert.deepEqual(answer.body, { status: 'ok' });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.headers, {
        'cache-control': 'no-store', 'content-type': 'application/json', vary: 'Accept', etag: answer.headers.etag, 'content-length': '15', 'x-request-id': 'probe-1',
        'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag, Location, Allow, Link, Retry-After, Content-Disposition, X-Total-Count, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
      });
      assert.match(answer.headers.etag, /^"[\w-]{27}"$/);
    });

    test('/readyz: ready while the database answers and its schema is current; 503 with the reason while a migration is missing', async () => {
      const ready = await probe(server.base, '/readyz');
      assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }]);
      assert.equal(ready.headers['cache-control'], 'no-store');
      await sql`delete from schema_migration where version = 4`.execute(server.engine.db);
      try {
        const missing = await probe(server.base, '/readyz');
        assert.deepEqual([missing.status, missing.body], [503, { status: 'unavailable', reason: 'migrations pending: 4' }]);
        assert.deepEqual([missing.headers['retry-after'], missing.headers['cache-control'], missing.headers['content-type']], ['1', 'no-store', 'application/json']);
      } finally {
        await sql`insert into schema_migration (version, name) values (4, 'indexes for the fields lists are often ordered or filtered by')`.execute(server.engine.db);
      }
      assert.deepEqual((await probe(server.base, '/readyz')).body, { status: 'ready' });
    });
  });
}

test('with the database away: alive, not ready, and the API answers 503', async () => {
  // Nothing listens on port 1: every connection is refused, as when PostgreSQL is down.
  const engine = openEngine('postgres://rsr@127.0.0.1:1/rsr');
  const app = buildApp({ engine, schemaReady: schemaGate(engine), timeZone: 'Europe/Stockholm', allowedHosts: ['api.example.org'] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    // Probes answer whatever Host they name (an orchestrator probes the address, not the name).
    assert.deepEqual([(await probe(base, '/healthz')).status, (await probe(base, '/healthz')).body], [200, { status: 'ok' }]);
    const readiness = await probe(base, '/readyz');
    assert.deepEqual([readiness.status, readiness.body, readiness.headers['retry-after']], [503, { status: 'unavailable', reason: 'database unavailable' }, '1']);
    // fetch will not name another Host: node:http does.
    const api = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http.get(`${base}/rest/v1/`, { headers: { host: 'api.example.org' } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: response.statusCode!, body }));
      }).on('error', reject);
    });
    assert.deepEqual([api.status, JSON.parse(api.body)], [503, { detail: 'Database unavailable' }]);
  } finally {
    await app.close();
    await engine.close();
  }
});
