/** Headers, methods, redirects, formats and errors as http.md states them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../src/http/app.ts';
import { createToken } from '../src/store/users.ts';
import { rawRequest, request, testStores, useServer } from './support/server.ts';

const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

for (const store of testStores()) {
  describe(`http (${store.name})`, () => {
    const server = useServer(store);
    let key: string | undefined;
    const adminKey = async () => (key ??= await createToken(server.engine, 'ana@example.org'));

    test('a list answers 200 with application/json, Allow and Vary: Accept', async () => {
      const answer = await request(server.base, '/rest/v1/keyword/');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/json');
      assert.equal(answer.headers.get('allow'), LIST_ALLOW);
      assert.equal(answer.headers.get('vary'), 'Accept');
      assert.equal(
        answer.text,
        '{"count":3,"next":null,"previous":null,"results":[{"id":2,"label":"agriculture","logo":"https://rsr.example.org/media/agri.png"},{"id":3,"label":"Énergie","logo":null},{"id":1,"label":"Water","logo":null}]}',
      );
    });

    test('format=json, format=api, Accept: text/html and the .json suffix all give the same JSON', async () => {
      const plain = await request(server.base, '/rest/v1/keyword/');
      for (const path of ['/rest/v1/keyword/?format=json', '/rest/v1/keyword/?format=api', '/rest/v1/keyword.json', '/rest/v1/keyword.json/?format=yaml']) {
        const answer = await request(server.base, path);
        assert.equal(answer.status, 200, path);
        assert.deepEqual(answer.body.results, plain.body.results, path);
        assert.equal(answer.headers.get('content-type'), 'application/json');
      }
      const browser = await request(server.base, '/rest/v1/keyword/', { headers: { accept: 'text/html,*/*;q=0.8' } });
      assert.equal(browser.text, plain.text);
    });

    test('an unknown format is 404, without route headers', async () => {
      for (const path of ['/rest/v1/keyword/?format=yaml', '/rest/v1/keyword.yaml', '/rest/v1/keyword/1.yaml/', '/rest/v1/keyword/1/?format=pdf']) {
        const answer = await request(server.base, path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.text, '{"detail":"Not found."}');
        assert.equal(answer.headers.get('allow'), null);
        assert.equal(answer.headers.get('vary'), 'Accept');
      }
    });

    test('one record, plain and with the .json suffix', async () => {
      const answer = await request(server.base, '/rest/v1/keyword/3/');
      assert.equal(answer.text, '{"id":3,"label":"Énergie","logo":null}');
      assert.equal(answer.headers.get('allow'), DETAIL_ALLOW);
      assert.equal((await request(server.base, '/rest/v1/keyword/3.json')).text, answer.text);
      assert.equal((await request(server.base, '/rest/v1/keyword/3.json/')).text, answer.text);
    });

    test('ids that are not ids are 404 without route headers; unknown ids 404 with them', async () => {
      for (const id of ['abc', '-1', '1.5', '2147483648', '99999999999999999999999', '%20']) {
        const answer = await request(server.base, `/rest/v1/keyword/${id}/`);
        assert.equal(answer.status, 404, id);
        assert.equal(answer.text, '{"detail":"Not found."}');
        assert.equal(answer.headers.get('allow'), null, id);
      }
      const missing = await request(server.base, '/rest/v1/keyword/2147483647/');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('allow'), DETAIL_ALLOW);
    });

    test('HEAD gives the headers of GET and no body', async () => {
      for (const path of ['/rest/v1/budget_item/', '/rest/v1/budget_item/1/', '/rest/v1/']) {
        const get = await request(server.base, path);
        const head = await request(server.base, path, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        for (const name of ['content-type', 'allow', 'vary', 'content-length']) assert.equal(head.headers.get(name), get.headers.get(name), `${path} ${name}`);
      }
    });

    test('OPTIONS describes the list and the record', async () => {
      const parses = ['application/json', 'application/x-www-form-urlencoded'];
      const list = await request(server.base, '/rest/v1/transaction/', { method: 'OPTIONS' });
      assert.equal(list.status, 200);
      assert.equal(list.headers.get('allow'), LIST_ALLOW);
      assert.deepEqual(list.body, { name: 'Transaction List', description: 'Transaction resource.', renders: ['application/json', 'application/xml', 'text/csv'], parses });
      const names = {
        budget_item: ['Budget Item List', ''],
        organisation: ['Organisation List', 'API endpoint that allows organisations to be viewed or edited.'],
        reports: ['Reports List', 'Viewset providing Result data.'],
        my_projects: ['My Projects List', 'Viewset providing listing of projects a user can edit.'],
      };
      for (const [resource, [name, description]] of Object.entries(names)) {
        const answer = await request(server.base, `/rest/v1/${resource}/`, { method: 'OPTIONS' });
        assert.deepEqual([answer.body.name, answer.body.description], [name, description]);
      }
      const one = await request(server.base, '/rest/v1/link/1/', { method: 'OPTIONS' });
      assert.equal(one.headers.get('allow'), DETAIL_ALLOW);
      assert.equal(one.body.name, 'Link Instance');
    });

    test('a path without its trailing slash is redirected, query kept', async () => {
      const cases: [string, string][] = [
        ['/rest/v1/budget_item?page=2&ordering=-amount', '/rest/v1/budget_item/?page=2&ordering=-amount'],
        ['/rest/v1', '/rest/v1/'],
        ['/rest/v1/link/1', '/rest/v1/link/1/'],
        ['/rest/v1/link.json', '/rest/v1/link.json/'],
      ];
      for (const [path, location] of cases) {
        const answer = await request(server.base, path);
        if (path === '/rest/v1/link.json') {
          assert.equal(answer.status, 200, 'a suffixed list path is a route as it is');
          continue;
        }
        assert.equal(answer.status, 301, path);
        assert.equal(answer.headers.get('location'), location);
      }
      assert.equal((await request(server.base, '/rest/v1/nothing')).status, 404);
    });

    test('unknown paths are JSON 404s', async () => {
      for (const path of ['/rest/v1/nothing/', '/nothing', '/rest/v2/budget_item/', '/rest/v1/link/1/extra/', '/assets/nothing.js']) {
        const answer = await request(server.base, path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.text, '{"detail":"Not found."}');
        assert.equal(answer.headers.get('content-type'), 'application/json');
        assert.equal(answer.headers.get('vary'), 'Accept');
      }
    });

    test('methods a route does not offer are 405 with Allow once signed in (403 before, as DRF authenticates first)', async () => {
      const cases: [string, string, string][] = [
        ['PUT', '/rest/v1/link/', LIST_ALLOW], ['PATCH', '/rest/v1/link/', LIST_ALLOW],
        ['DELETE', '/rest/v1/link/', LIST_ALLOW], ['POST', '/rest/v1/link/1/', DETAIL_ALLOW],
      ];
      for (const [method, path, allow] of cases) {
        const anonymous = await request(server.base, path, { method });
        assert.equal(anonymous.status, 403, `${method} ${path}`);
        assert.equal(anonymous.text, '{"detail":"Authentication credentials were not provided."}');
        assert.equal(anonymous.headers.get('allow'), allow);
        const answer = await request(server.base, path, { method, headers: { authorization: `Token ${await adminKey()}` } });
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.text, `{"detail":"Method \\"${method}\\" not allowed."}`);
        assert.equal(answer.headers.get('allow'), allow);
      }
    });

    test('writes without credentials are 403, whatever the body', async () => {
      const bodies = ['{"project":1}', '{not json', 'x'.repeat(2 * 1024 * 1024)];
      for (const body of bodies) {
        const answer = await request(server.base, '/rest/v1/link/', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        assert.equal(answer.status, 403);
        assert.equal(answer.text, '{"detail":"Authentication credentials were not provided."}');
      }
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const answer = await request(server.base, '/rest/v1/link/1/', { method, body: '{}', headers: { 'content-type': 'application/json' } });
        assert.equal(answer.status, 403, method);
      }
    });

    test('the API root lists the thirteen lists by absolute URL', async () => {
      const answer = await rawRequest(server.base, '/rest/v1/', { headers: { host: 'rsr.example.org' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/json');
      const names = ['administrative_location', 'budget_item', 'disaggregation_target', 'humanitarian_scope', 'indicator_period_data_comment', 'keyword', 'link', 'my_projects', 'organisation', 'project_custom_field', 'recipient_region', 'reports', 'transaction'];
      assert.deepEqual(answer.body, Object.fromEntries(names.map((name) => [name, `http://rsr.example.org/rest/v1/${name}/`])));
    });

    test('ETag and If-None-Match: 304 for an unchanged list, 200 once it changed', async () => {
      const first = await request(server.base, '/rest/v1/keyword/');
      const tag = first.headers.get('etag') ?? '';
      assert.match(tag, /^"[^"]+"$/);
      const again = await request(server.base, '/rest/v1/keyword/', { headers: { 'if-none-match': tag } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      const other = await request(server.base, '/rest/v1/keyword/?limit=1', { headers: { 'if-none-match': tag } });
      assert.equal(other.status, 200);
    });

    test('a repeated request (a cache hit) answers exactly as the first did: status, headers, body', async () => {
      const headersOf = (answer: { status: number; headers: Headers; text: string }) =>
        JSON.stringify([answer.status, [...answer.headers].filter(([name]) => name !== 'date'), answer.text]);
      const variants: [string, Record<string, string>, string | null][] = [
        ['GET', {}, null], ['HEAD', {}, null], ['GET', { accept: 'text/html' }, null],
        ['GET', { 'accept-encoding': 'gzip' }, 'gzip'], ['HEAD', { 'accept-encoding': 'br' }, 'br'],
        ['GET', { 'accept-encoding': 'gzip, deflate, br' }, 'br'], ['GET', { 'accept-encoding': 'gzip;q=0.5, br;q=0.1' }, 'gzip'],
        ['GET', { 'accept-encoding': 'identity' }, null],
      ];
      const plain = await rawRequest(server.base, '/rest/v1/budget_item/?variant=plain');
      for (const [index, [method, headers, encoding]] of variants.entries()) {
        const path = `/rest/v1/budget_item/?variant=${index}`;
        // The same request id both times: it is the one header the caller chooses (observe.ts).
        const asked = { ...headers, 'x-request-id': `variant-${index}` };
        const first = await rawRequest(server.base, path, { method, headers: asked });
        await rawRequest(server.base, path, { method, headers: asked }); // made again, and kept
        const second = await rawRequest(server.base, path, { method, headers: asked });
        const label = `${method} ${JSON.stringify(headers)}`;
        assert.equal(first.status, 200);
        // What the first answer says, header by header, as the routes and plugins would.
        assert.deepEqual([...first.headers.keys()].filter((name) => name !== 'date' && name !== 'connection' && name !== 'keep-alive'),
          ['access-control-allow-origin', 'access-control-expose-headers', 'allow', 'content-type', 'etag', 'vary', 'x-request-id', ...(encoding ? ['content-encoding'] : []), 'content-length'].sort(), label);
        assert.equal(first.headers.get('allow'), LIST_ALLOW, label);
        assert.equal(first.headers.get('x-request-id'), `variant-${index}`, label);
        assert.equal(first.headers.get('access-control-allow-origin'), '*', label);
        assert.equal(first.headers.get('content-type'), 'application/json', label);
        assert.equal(first.headers.get('vary'), encoding ? 'Accept, Accept-Encoding' : 'Accept', label);
        assert.equal(first.headers.get('content-encoding'), encoding, label);
        if (!encoding) assert.equal(first.headers.get('content-length'), String(Buffer.byteLength(plain.text)), label);
        assert.equal(headersOf(second), headersOf(first), label);
      }
      const refused = await rawRequest(server.base, '/rest/v1/budget_item/?variant=0', { headers: { 'accept-encoding': 'gzip', 'x-no-compression': '1' } });
      assert.equal(refused.headers.get('content-encoding'), null);
      const tagged = await rawRequest(server.base, '/rest/v1/budget_item/?variant=0');
      const etag = tagged.headers.get('etag') ?? '';
      const unchanged = await rawRequest(server.base, '/rest/v1/budget_item/?variant=0', { headers: { 'if-none-match': etag } });
      assert.deepEqual([unchanged.status, unchanged.headers.get('etag'), unchanged.text], [304, etag, '']);
    });

    test('JSON, XML and CSV, compressed or not: a cached answer has exactly the headers of a fresh one, and an ETag that answers 304', async () => {
      const formats = [['json', 'application/json'], ['xml', 'application/xml; charset=utf-8'], ['csv', 'text/csv; charset=utf-8']] as const;
      const shown = (answer: { status: number; headers: Headers; text: string }) => [answer.status, [...answer.headers].filter(([name]) => name !== 'date'), answer.text];
      for (const [format, type] of formats) {
        for (const asked of [null, 'gzip', 'br']) {
          const label = `${format} ${asked ?? 'identity'}`;
          const encoding = asked;
          const path = `/rest/v1/organisation/?format=${format}&variant=${asked}`;
          const headers: Record<string, string> = { 'x-request-id': label.replace(' ', '-'), ...(asked ? { 'accept-encoding': asked } : {}) };
          const fresh = await rawRequest(server.base, path, { headers });
          // Large enough to be compressed for clients that ask.
          if (!asked) assert.ok(Number(fresh.headers.get('content-length')) > 1024, label);
          await rawRequest(server.base, path, { headers }); // made again, and kept
          const cached = await rawRequest(server.base, path, { headers });
          assert.equal(fresh.status, 200, label);
          assert.equal(fresh.headers.get('content-type'), type, label);
          assert.equal(fresh.headers.get('content-encoding'), encoding, label);
          assert.equal(fresh.headers.get('vary'), encoding ? 'Accept, Accept-Encoding' : 'Accept', label);
          assert.equal(fresh.headers.get('content-disposition'), format === 'csv' ? 'attachment; filename="organisation.csv"' : null, label);
          assert.deepEqual(shown(cached), shown(fresh), label);
          const etag = fresh.headers.get('etag') ?? '';
          assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/, label);
          const unchanged = await rawRequest(server.base, path, { headers: { ...headers, 'if-none-match': etag } });
          assert.deepEqual([unchanged.status, unchanged.headers.get('etag'), unchanged.headers.get('content-type'), unchanged.text], [304, etag, null, ''], label);
        }
      }
    });

    test('a URL answered as JSON still answers XML and CSV to clients that ask for them', async () => {
      const path = '/rest/v1/keyword/?limit=1';
      const json = await request(server.base, path);
      assert.equal(json.headers.get('content-type'), 'application/json');
      const xml = await request(server.base, path, { headers: { accept: 'application/xml' } });
      assert.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8');
      assert.match(xml.text, /^<\?xml version="1.0" encoding="utf-8"\?><root><count>3<\/count>/);
      const csv = await request(server.base, path, { headers: { accept: 'text/csv' } });
      assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(csv.text, 'id,label,logo\r\n2,agriculture,https://rsr.example.org/media/agri.png\r\n');
      assert.equal((await request(server.base, path)).text, json.text);
    });

    test('compression for clients that ask, with Vary: Accept, Accept-Encoding', async () => {
      for (const [encoding, expected] of [['br', 'br'], ['gzip', 'gzip'], ['deflate', 'deflate'], ['identity', null]] as const) {
        const answer = await rawRequest(server.base, `/rest/v1/budget_item/?asked=${encoding}`, { headers: { 'accept-encoding': encoding } });
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('content-encoding'), expected, encoding);
        assert.equal(answer.headers.get('vary'), expected ? 'Accept, Accept-Encoding' : 'Accept', encoding);
      }
      // fetch unpacks br, gzip and deflate: a first (compressing) answer and a cached one give the same text.
      const plain = (await request(server.base, '/rest/v1/budget_item/?unpacked')).text;
      for (const encoding of ['br', 'gzip', 'deflate']) {
        for (const attempt of ['first', 'cached']) {
          const unpacked = await fetch(`${server.base}/rest/v1/budget_item/?unpacked=${encoding}`, { headers: { 'accept-encoding': encoding } });
          assert.equal(unpacked.headers.get('content-encoding'), encoding);
          assert.equal(await unpacked.text(), plain, `${encoding}, ${attempt}`);
        }
      }
    });

    test('undecodable paths and overlong ids are 404s', async () => {
      for (const path of ['/rest/v1/keyword/%/', '/rest/v1/keyword/%ZZ', `/rest/v1/keyword/${'1'.repeat(600)}/`]) {
        const answer = await request(server.base, path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.text, '{"detail":"Not found."}');
        assert.equal(answer.headers.get('vary'), 'Accept');
        assert.equal(answer.headers.get('content-type'), 'application/json');
      }
    });

    test('ALLOWED_HOSTS: links are built only for hosts the operator names; any other Host is 400', async () => {
      const app = buildApp({ engine: server.engine, timeZone: 'Europe/Stockholm', allowedHosts: ['api.example.org', '.example.net'] });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      try {
        for (const host of ['api.example.org', 'API.example.org:8443', 'example.net', 'data.example.net']) {
          const answer = await rawRequest(base, '/rest/v1/keyword/?limit=1', { headers: { host } });
          assert.equal(answer.status, 200, host);
          assert.equal(answer.body.next, `http://${host}/rest/v1/keyword/?limit=1&page=2`);
        }
        for (const host of ['evil.example', 'api.example.org.evil.example', 'notexample.net', '127.0.0.1']) {
          for (let attempt = 0; attempt < 2; attempt += 1) {
            const answer = await rawRequest(base, '/rest/v1/keyword/?limit=1', { headers: { host } });
            assert.equal(answer.status, 400, host);
            assert.equal(answer.text, '{"detail":"Invalid host header."}');
          }
        }
      } finally {
        await app.close();
      }
    });

    test('a request that names no host (HTTP/1.0) gets links to the server itself', async () => {
      const answer = await rawRequest(server.base, '/rest/v1/keyword/?limit=1', { headers: { host: '' } });
      assert.equal(answer.body.next, `${server.base}/rest/v1/keyword/?limit=1&page=2`);
    });

    test('hostile query strings get a clear answer, never a 500', async () => {
      const queries = ['page=%ZZ', 'ordering=%00', 'limit=%E2%80%AE', 'ordering=' + 'x,'.repeat(5000), '%=%', 'page[]=1', 'ordering[]=id'];
      for (const query of queries) {
        const answer = await request(server.base, `/rest/v1/budget_item/?${query}`);
        assert.ok([200, 404].includes(answer.status), `${query}: ${answer.status}`);
        assert.equal(answer.headers.get('content-type'), 'application/json');
      }
    });
  });
}
