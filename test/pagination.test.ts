/** Pagination and links exactly as http.md states them ("The list envelope and pagination"). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pagingDataset, pagingItems } from './support/datasets.ts';
import { rawExchange, rawRequest, request, startServer, testStores, type TestServer } from './support/server.ts';

const VISIBLE = pagingItems().filter((item) => item.project === 1).map((item) => item.id);

for (const store of testStores()) {
  describe(`pagination (${store.name})`, () => {
    let server: TestServer;
    let list: string;
    const ids = (body: { results: { id: number }[] }) => body.results.map((record) => record.id);
    before(async () => {
      server = await startServer(store, pagingDataset());
      list = `${server.base}/rest/v1/budget_item/`;
    });
    after(() => server.close());

    test('the first page: 30 records, next to page 2, no previous', async () => {
      const { status, body } = await request(server.base, '/rest/v1/budget_item/');
      assert.equal(status, 200);
      assert.equal(body.count, 1050);
      assert.equal(body.next, `${list}?page=2`);
      assert.equal(body.previous, null);
      assert.deepEqual(ids(body), VISIBLE.slice(0, 30));
    });

    test('page 2 links back without a page key', async () => {
      const { body } = await request(server.base, '/rest/v1/budget_item/?page=2');
      assert.equal(body.previous, list);
      assert.equal(body.next, `${list}?page=3`);
      assert.deepEqual(ids(body), VISIBLE.slice(30, 60));
    });

    test('a middle page links to its neighbours', async () => {
      const { body } = await request(server.base, '/rest/v1/budget_item/?page=17');
      assert.equal(body.previous, `${list}?page=16`);
      assert.equal(body.next, `${list}?page=18`);
      assert.deepEqual(ids(body), VISIBLE.slice(480, 510));
    });

    test('the last page, by number and as `last`', async () => {
      const byNumber = await request(server.base, '/rest/v1/budget_item/?page=35');
      assert.equal(byNumber.body.next, null);
      assert.equal(byNumber.body.previous, `${list}?page=34`);
      assert.deepEqual(ids(byNumber.body), VISIBLE.slice(1020));
      const last = await request(server.base, '/rest/v1/budget_item/?page=last');
      assert.deepEqual(last.body.results, byNumber.body.results);
      assert.equal(last.body.previous, `${list}?page=34`);
    });

    for (const page of ['36', '0', '-1', 'abc', '2.0', ' 2', '1e1', 'LAST', '99999999999999999999']) {
      test(`page=${page} is 404 Invalid page.`, async () => {
        const answer = await request(server.base, `/rest/v1/budget_item/?page=${encodeURIComponent(page)}`);
        assert.equal(answer.status, 404);
        assert.equal(answer.text, '{"detail":"Invalid page."}');
        assert.equal(answer.headers.get('content-type'), 'application/json');
        assert.equal(answer.headers.get('allow'), 'GET, POST, HEAD, OPTIONS');
      });
    }

    test('an empty page parameter means page 1; the last repeated value counts', async () => {
      const empty = await request(server.base, '/rest/v1/budget_item/?page=');
      assert.deepEqual(ids(empty.body), VISIBLE.slice(0, 30));
      assert.equal(empty.body.next, `${list}?page=2`);
      const repeated = await request(server.base, '/rest/v1/budget_item/?page=5&page=2');
      assert.deepEqual(ids(repeated.body), VISIBLE.slice(30, 60));
    });

    test('an empty list has one valid page and no second', async () => {
      const first = await request(server.base, '/rest/v1/humanitarian_scope/');
      assert.equal(first.text, '{"count":0,"next":null,"previous":null,"results":[]}');
      assert.equal((await request(server.base, '/rest/v1/humanitarian_scope/?page=last')).status, 200);
      assert.equal((await request(server.base, '/rest/v1/humanitarian_scope/?page=2')).status, 404);
    });

    const limits: [string, number][] = [['1', 1], ['7', 7], ['1000', 1000], ['5000', 1000], ['0', 30], ['-5', 30], ['x', 30], ['', 30], ['3.0', 30]];
    for (const [limit, size] of limits) {
      test(`limit=${limit} gives pages of ${size}`, async () => {
        const { body } = await request(server.base, `/rest/v1/budget_item/?limit=${limit}`);
        assert.deepEqual(ids(body), VISIBLE.slice(0, size));
        assert.equal(body.next, `${list}?limit=${limit}&page=2`);
      });
    }

    test('limit=1000 reaches the last of 1,050 records on page 2', async () => {
      const { body } = await request(server.base, '/rest/v1/budget_item/?limit=1000&page=2');
      assert.deepEqual(ids(body), VISIBLE.slice(1000));
      assert.equal(body.next, null);
      assert.equal(body.previous, `${list}?limit=1000`);
    });

    test('a long page, written a hundred records at a time, is byte for byte the short pages\' records joined', async () => {
      /** The text of a list answer's records: between `"results":[` (or `"objects":[`) and the closing `]}`. */
      const listText = (text: string) => {
        const key = text.startsWith('{"meta"') ? '"objects":[' : '"results":[';
        return text.slice(text.indexOf(key) + key.length, -2);
      };
      for (const [long, short] of [
        ['/rest/v1/budget_item/?limit=1000&ordering=-amount', (page: number) => `/rest/v1/budget_item/?limit=100&ordering=-amount&page=${page}`],
        ['/api/v1/budget_item/?limit=350&offset=7', (page: number) => `/api/v1/budget_item/?limit=50&offset=${7 + (page - 1) * 50}`],
      ] as const) {
        const whole = await rawRequest(server.base, long);
        const parts: string[] = [];
        for (let page = 1; page <= (long.includes('limit=1000') ? 10 : 7); page += 1) parts.push(listText((await rawRequest(server.base, short(page))).text));
        assert.equal(listText(whole.text), parts.join(','), long);
        // Sent as it is made: chunked, without a length or an ETag (its bytes are not known before the last).
        assert.equal(whole.headers.get('transfer-encoding'), 'chunked');
        assert.equal(whole.headers.get('content-length'), null);
        assert.equal(whole.headers.get('etag'), null);
      }
    });

    test('a long page is streamed in parts (compressed as a stream), then kept whole, with its ETag, by the response cache', async () => {
      const path = '/rest/v1/budget_item/?limit=1000&ordering=label';
      // The raw exchange: the chunks the server wrote, as the wire carries them.
      const raw = await rawExchange(server.base, `GET ${path} HTTP/1.1\r\nHost: ${new URL(server.base).host}\r\nConnection: close\r\n\r\n`);
      assert.equal(raw.status, 200);
      const chunks: Buffer[] = [];
      for (let rest = raw.bytes as Buffer; ; ) {
        const line = rest.indexOf('\r\n');
        const size = parseInt(rest.subarray(0, line).toString(), 16);
        assert.ok(Number.isInteger(size), `a chunk size: ${rest.subarray(0, 40).toString()}`);
        if (size === 0) break;
        chunks.push(rest.subarray(line + 2, line + 2 + size));
        rest = rest.subarray(line + 2 + size + 2);
      }
      // The envelope, ten parts of a hundred records, the close: not one buffer.
      assert.ok(chunks.length >= 11, `${chunks.length} chunks`);
      const streamed = Buffer.concat(chunks).toString();
      assert.deepEqual(JSON.parse(streamed).results.length, 1000);
      assert.equal(raw.headers.get('etag'), null);

      for (const encoding of ['gzip', 'br']) {
        const compressed = await rawRequest(server.base, path, { headers: { 'accept-encoding': encoding } });
        assert.equal(compressed.headers.get('content-encoding'), encoding);
        assert.equal(compressed.headers.get('vary'), 'Accept, Accept-Encoding');
        const decoded = (encoding === 'gzip' ? gunzipSync : brotliDecompressSync)(compressed.bytes as Buffer).toString();
        assert.equal(decoded, streamed, `the ${encoding} stream decodes to the same bytes`);
      }

      // The URL asked for twice is kept once whole: the third answer has its length and ETag.
      const kept = await rawRequest(server.base, path);
      assert.equal(kept.text, streamed);
      assert.equal(kept.headers.get('content-length'), String(Buffer.byteLength(streamed)));
      assert.match(kept.headers.get('etag') ?? '', /^"[\w-]{27}"$/);
      const unchanged = await rawRequest(server.base, path, { headers: { 'if-none-match': kept.headers.get('etag') ?? '' } });
      assert.equal(unchanged.status, 304);
      // HEAD of a long page made afresh: the headers, no body.
      const head = await rawRequest(server.base, `${path}&fresh=1`, { method: 'HEAD' });
      assert.deepEqual([head.status, head.headers.get('content-type'), head.text], [200, 'application/json', '']);
    });

    test('links keep every parameter, sorted by key, encoded as a form', async () => {
      const query = 'ordering=label&format=json&zeta=a%20b&page=3&x=&x=2&q=%C3%A9t%C3%A9&slash=%2F%3F&plus=a+b';
      const { body } = await request(server.base, `/rest/v1/budget_item/?${query}`);
      const rest = 'format=json&ordering=label&plus=a+b&q=%C3%A9t%C3%A9&slash=%2F%3F&x=&x=2&zeta=a+b';
      const kept = (page: string) => `${list}?${rest.replace('&plus', `&${page}plus`)}`;
      assert.equal(body.next, kept('page=4&'));
      assert.equal(body.previous, kept('page=2&'));
      const second = await request(server.base, `/rest/v1/budget_item/?${query.replace('page=3', 'page=2')}`);
      assert.equal(second.body.previous, `${list}?${rest}`);
    });

    test('legacy /api/v1/: limit and offset in the meta/objects envelope, at the first, a middle and the last offset', async () => {
      const legacy = `${server.base}/api/v1/budget_item/`;
      const first = await request(server.base, '/api/v1/budget_item/?limit=100');
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('allow'), null);
      assert.deepEqual(first.body.meta, { limit: 100, next: `${legacy}?limit=100&offset=100`, offset: 0, previous: null, total_count: 1050 });
      assert.deepEqual(first.body.objects.map((record: { id: number }) => record.id), VISIBLE.slice(0, 100));
      const middle = await request(server.base, '/api/v1/budget_item/?offset=500&limit=100');
      assert.deepEqual(middle.body.meta, { limit: 100, next: `${legacy}?limit=100&offset=600`, offset: 500, previous: `${legacy}?limit=100&offset=400`, total_count: 1050 });
      assert.deepEqual(middle.body.objects.map((record: { id: number }) => record.id), VISIBLE.slice(500, 600));
      const near = await request(server.base, '/api/v1/budget_item/?offset=50&limit=100');
      assert.equal(near.body.meta.previous, `${legacy}?limit=100`);
      const last = await request(server.base, '/api/v1/budget_item/?offset=1000&limit=100');
      assert.deepEqual(last.body.meta, { limit: 100, next: null, offset: 1000, previous: `${legacy}?limit=100&offset=900`, total_count: 1050 });
      assert.deepEqual(last.body.objects.map((record: { id: number }) => record.id), VISIBLE.slice(1000));
      const defaults = await request(server.base, '/api/v1/budget_item/?offset=x&limit=5000&type=1');
      assert.deepEqual([defaults.body.meta.offset, defaults.body.meta.limit, defaults.body.objects.length], [0, 1000, 350]);
      assert.equal((await request(server.base, '/api/v1/budget_item')).status, 301);
    });

    test('links use the host the client addressed', async () => {
      const { body } = await rawRequest(server.base, '/rest/v1/budget_item/', { headers: { host: 'api.example.org:8443' } });
      assert.equal(body.next, 'http://api.example.org:8443/rest/v1/budget_item/?page=2');
    });
  });
}
