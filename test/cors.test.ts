/**
 * Cross-origin requests (issue 13, README "Cross-origin requests"), on every store: any origin
 * reads anonymously; the origins of CORS_ORIGINS get preflights for tokens and writes; `Vary:
 * Origin` wherever the answer depends on the Origin, on cached answers exactly as on fresh ones.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createToken } from '../src/store/users.ts';
import { rawRequest, testStores, useServer } from './support/server.ts';

const DASHBOARD = 'https://dashboard.example.org';
const EXPOSED = 'ETag, Location, Allow, Link, Retry-After, Content-Disposition, X-Total-Count, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary'];

/** The CORS headers of an answer (and its Vary), as a browser reads them. */
function corsOf(answer: { headers: Headers }): Record<string, string> {
  return Object.fromEntries(CORS_HEADERS.filter((name) => answer.headers.get(name) !== null).map((name) => [name, answer.headers.get(name) as string]));
}

const preflight = (origin: string, method: string, headers: string) => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});

for (const store of testStores()) {
  describe(`CORS by default (${store.name})`, () => {
    const server = useServer(store);

    test('any origin may read anonymously: Allow-Origin *, the useful headers exposed, Vary unchanged (the seed\'s `Accept`)', async () => {
      const fresh = await rawRequest(server.base, '/rest/v1/keyword/?cors=1', { headers: { origin: 'https://anywhere.example' } });
      await rawRequest(server.base, '/rest/v1/keyword/?cors=1'); // made again, and kept
      const cached = await rawRequest(server.base, '/rest/v1/keyword/?cors=1', { headers: { origin: 'https://elsewhere.example' } });
      const expected = { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED, vary: 'Accept' };
      assert.deepEqual([fresh.status, corsOf(fresh)], [200, expected]);
      assert.deepEqual([cached.status, corsOf(cached)], [200, expected]);
    });

    test('no preflight is granted: a token or a write from a script on another origin is refused by the browser', async () => {
      const answer = await rawRequest(server.base, '/rest/v1/link/', preflight('https://anywhere.example', 'POST', 'authorization, content-type'));
      // DRF's description of the endpoint, with nothing that allows the method or the headers asked for.
      assert.equal(answer.status, 200);
      assert.deepEqual(corsOf(answer), { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED, vary: 'Accept' });
    });
  });

  describe(`CORS with CORS_ORIGINS (${store.name})`, () => {
    const server = useServer(store, undefined, { corsOrigins: [DASHBOARD] });

    test('a listed origin\'s preflight: 204 with its origin, the methods, the headers a signed-in script sends, no credentials', async () => {
      const answer = await rawRequest(server.base, '/rest/v1/link/1/', preflight(DASHBOARD, 'PATCH', 'authorization, content-type'));
      assert.equal(answer.status, 204);
      assert.equal(answer.text, '');
      assert.deepEqual(corsOf(answer), {
        'access-control-allow-origin': DASHBOARD,
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
        'access-control-allow-headers': 'Authorization, Content-Type, Accept, If-None-Match, X-Request-Id',
        'access-control-max-age': '600',
        'access-control-expose-headers': EXPOSED,
        vary: 'Origin',
      });
    });

    test('an unlisted origin\'s preflight is not granted; a plain OPTIONS stays DRF\'s description', async () => {
      const other = await rawRequest(server.base, '/rest/v1/link/', preflight('https://evil.example', 'POST', 'authorization'));
      assert.equal(other.status, 200);
      assert.equal(other.headers.get('access-control-allow-methods'), null);
      assert.equal(other.headers.get('access-control-allow-origin'), '*');
      const plain = await rawRequest(server.base, '/rest/v1/link/', { method: 'OPTIONS', headers: { origin: DASHBOARD } });
      assert.equal(plain.status, 200);
      assert.equal(plain.body.name, 'Link List');
      assert.equal(plain.headers.get('access-control-allow-origin'), DASHBOARD);
    });

    test('answers say `Vary: Origin`, fresh and cached alike, and name the listed origin or *', async () => {
      const path = '/rest/v1/keyword/?cors=2';
      const fromDashboard = await rawRequest(server.base, path, { headers: { origin: DASHBOARD } });
      const again = await rawRequest(server.base, path, { headers: { origin: DASHBOARD } });
      const fromElsewhere = await rawRequest(server.base, path, { headers: { origin: 'https://elsewhere.example' } });
      const withoutOrigin = await rawRequest(server.base, path);
      const gzip = await rawRequest(server.base, '/rest/v1/organisation/', { headers: { origin: DASHBOARD, 'accept-encoding': 'gzip' } });
      assert.deepEqual(corsOf(fromDashboard), { 'access-control-allow-origin': DASHBOARD, 'access-control-expose-headers': EXPOSED, vary: 'Accept, Origin' });
      assert.deepEqual(corsOf(again), corsOf(fromDashboard));
      assert.deepEqual(corsOf(fromElsewhere), { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED, vary: 'Accept, Origin' });
      assert.deepEqual(corsOf(withoutOrigin), corsOf(fromElsewhere));
      assert.equal(gzip.headers.get('vary'), 'Accept, Accept-Encoding, Origin');
      assert.equal(again.text, fromDashboard.text);
      // A 304 and an error vary the same way.
      const unchanged = await rawRequest(server.base, path, { headers: { origin: DASHBOARD, 'if-none-match': fromDashboard.headers.get('etag') as string } });
      assert.deepEqual([unchanged.status, unchanged.headers.get('vary')], [304, 'Accept, Origin']);
      const missing = await rawRequest(server.base, '/rest/v1/keyword/999999/', { headers: { origin: DASHBOARD } });
      assert.deepEqual([missing.status, missing.headers.get('vary'), missing.headers.get('access-control-allow-origin')], [404, 'Accept, Origin', DASHBOARD]);
    });

    test('a signed-in write from the listed origin is answered with its origin', async () => {
      const key = await createToken(server.engine, 'ana@example.org');
      const created = await rawRequest(server.base, '/rest/v1/link/', {
        method: 'POST',
        headers: { origin: DASHBOARD, authorization: `Token ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project: 1, url: 'https://example.org/cors' }),
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('access-control-allow-origin'), DASHBOARD);
      assert.equal(created.headers.get('vary'), 'Accept, Origin');
    });
  });
}
