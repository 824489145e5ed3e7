/**
 * Bodies and headers no client should send (http.md, Errors; decision D14): oversized headers
 * and URLs, requests that are not HTTP, huge, deeply nested, malformed or mis-encoded JSON,
 * wrong media types, and text no store or format can hold. Each gets its 4xx with a JSON
 * `detail` (or field errors), and a refused write changes nothing.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createToken } from '../src/store/users.ts';
import { rawExchange, request, testStores, useServer, type Answer } from './support/server.ts';

const CLOSE = 'Connection: close\r\n';

for (const store of testStores()) {
  describe(`abuse (${store.name})`, () => {
    const server = useServer(store);
    let key = '';
    before(async () => {
      key = await createToken(server.engine, 'ana@example.org');
    });

    const assertDetail = (answer: Answer, status: number, detail: string) => {
      assert.equal(answer.status, status, answer.text);
      assert.equal(answer.headers.get('content-type'), 'application/json');
      assert.deepEqual(answer.body, { detail });
    };

    describe('headers and URLs', () => {
      test('an 8 KB header and an 8 KB URL are served as usual', async () => {
        const header = await rawExchange(server.base, `GET /rest/v1/keyword/ HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(8 * 1024)}\r\n${CLOSE}\r\n`);
        assert.equal(header.status, 200);
        assert.equal(header.body.count, 3);
        const url = await rawExchange(server.base, `GET /rest/v1/keyword/?utm_source=${'a'.repeat(8 * 1024)} HTTP/1.1\r\nHost: x\r\n${CLOSE}\r\n`);
        assert.equal(url.status, 200);
        assert.equal(url.body.count, 3);
      });

      test('a 64 KB header or URL is 431 with a JSON body', async () => {
        const header = await rawExchange(server.base, `GET /rest/v1/keyword/ HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
        assertDetail(header, 431, 'Request header fields too large.');
        const url = await rawExchange(server.base, `GET /rest/v1/keyword/?q=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
        assertDetail(url, 431, 'Request header fields too large.');
      });

      test('a request that is not HTTP is 400 with a JSON body', async () => {
        for (const garbage of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 'GET /\x00 HTTP/1.1\r\n\r\n']) {
          assertDetail(await rawExchange(server.base, garbage), 400, 'Bad request.');
        }
      });
    });

    describe('bodies', () => {
      const write = (body: string | Buffer, type = 'application/json', method = 'POST', path = '/rest/v1/link/') =>
        request(server.base, path, { method, headers: { authorization: `Token ${key}`, 'content-type': type }, body });
      const links = async () => (await request(server.base, '/rest/v1/link/')).body.count as number;

      test('over 1 MiB is 413', async () => {
        assertDetail(await write(JSON.stringify({ project: 1, url: 'https://example.org/', caption: 'x'.repeat(2 * 1024 * 1024) })), 413, 'Request body is too large');
      });

      test('deeply nested JSON is refused: as the body, and inside a JSON field', async () => {
        const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const whole = await write(nested(400_000));
        assert.equal(whole.status, 400);
        assert.deepEqual(whole.body, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
        for (const depth of [33, 100, 5000]) {
          const answer = await write(`{"project": 1, "name": "Deep", "section": 1, "order": 0, "dropdown_options": ${nested(depth)}}`, 'application/json', 'POST', '/rest/v1/project_custom_field/');
          assert.equal(answer.status, 400, `${depth}: ${answer.text}`);
          assert.deepEqual(answer.body, { dropdown_options: ['Ensure this value is nested no more than 32 levels deep.'] });
        }
        const fits = await write(`{"project": 1, "name": "Deep enough", "section": 1, "order": 0, "dropdown_options": ${nested(32)}}`, 'application/json', 'POST', '/rest/v1/project_custom_field/');
        assert.equal(fits.status, 201, fits.text);
      });

      test('malformed JSON and bytes that are not UTF-8 are 400, and write nothing', async () => {
        const before = await links();
        for (const body of ['{"project": 1,', '{"project": 1}}', 'nul', Buffer.from([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])]) {
          const answer = await write(body);
          assert.equal(answer.status, 400, String(body));
          assert.match(answer.body.detail, /^JSON parse error - /);
        }
        assert.equal(await links(), before);
      });

      test('other media types are 415, with or without a body', async () => {
        for (const type of ['text/plain', 'application/xml', 'application/json-patch+json', 'image/png']) {
          assertDetail(await write('{"project": 1}', type), 415, `Unsupported media type "${type}" in request.`);
        }
      });

      test('NUL, other control characters and lone surrogates in text are field errors, on every store', async () => {
        const before = await links();
        // RSR's XML-character validator names the character; DRF adds its own words for NUL.
        const nul = ['\u0000 is not an allowed character', 'Null characters are not allowed.'];
        const cases: [string, string[]][] = [
          ['"a\\u0000b"', nul],
          ['"a\\u0001b"', ['\u0001 is not an allowed character']],
          // Alone, U+001F is Python whitespace and trimmed away (DRF stores ""); inside text it stays.
          ['"a\\u001fb"', ['\u001f is not an allowed character']],
          ['"\\ud800"', ['Surrogate characters are not allowed: U+D800.']],
          ['"x\\udfffy"', ['Surrogate characters are not allowed: U+DFFF.']],
        ];
        for (const [caption, messages] of cases) {
          const answer = await write(`{"project": 1, "url": "https://example.org/", "caption": ${caption}}`);
          assert.equal(answer.status, 400, caption);
          assert.deepEqual(answer.body, { caption: messages }, caption);
        }
        // Unique fields are looked up before writing: a value already refused must not reach the database.
        for (const [path, body] of [['/rest/v1/keyword/', 'label=%00'], ['/rest/v1/organisation/', 'name=a%00&long_name=%F0%9F%98%80%00']]) {
          const unique = await write(body, 'application/x-www-form-urlencoded', 'POST', path);
          assert.equal(unique.status, 400, `${path} ${body}: ${unique.text}`);
          assert.deepEqual(Object.values(unique.body)[0], nul);
        }
        const form = await write('project=1&url=https%3A%2F%2Fexample.org%2F&caption=a%00b', 'application/x-www-form-urlencoded');
        assert.deepEqual(form.body, { caption: nul });
        const keys = await write('{"project": 1, "name": "Keys", "section": 1, "order": 0, "dropdown_options": {"a\\u0000": 1}}', 'application/json', 'POST', '/rest/v1/project_custom_field/');
        assert.deepEqual(keys.body, { dropdown_options: ['Null characters are not allowed.'] });
        assert.equal(await links(), before);
        const kept = await write('{"project": 1, "url": "https://example.org/", "caption": "tab\\there,\\nline\\r\\nend"}');
        assert.equal(kept.status, 201, 'tab, LF and CR are text');
        assert.equal(kept.body.caption, 'tab\there,\nline\r\nend');
      });
    });
  });
}
