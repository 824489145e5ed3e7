/** XML and CSV (http.md, Formats): bodies byte for byte against expected files, headers, negotiation. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { SaxesParser } from 'saxes';
import { createToken } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

const expected = (file: string) => readFileSync(new URL(`./fixtures/expected/${file}`, import.meta.url), 'utf8');

const BODIES: [string, string][] = [
  ['keyword.xml', '/rest/v1/keyword/?format=xml'],
  ['organisation-1.xml', '/rest/v1/organisation/1.xml'],
  ['budget_item.csv', '/rest/v1/budget_item/?format=csv&ordering=other_extra&limit=5'],
  ['indicator_period_data_comment.csv', '/rest/v1/indicator_period_data_comment.csv'],
  ['transaction-2.csv', '/rest/v1/transaction/2/?format=csv'],
  ['legacy-link.xml', '/api/v1/link/?format=xml&limit=1'],
];

for (const store of testStores()) {
  describe(`formats (${store.name})`, () => {
    const server = useServer(store);

    for (const [file, path] of BODIES) {
      test(`${path} is ${file}, byte for byte`, async () => {
        const answer = await request(server.base, path);
        assert.equal(answer.status, 200);
        assert.equal(answer.text.replaceAll(server.base, 'http://testserver'), expected(file));
        assert.equal(answer.headers.get('vary'), 'Accept');
        if (file.endsWith('.csv')) {
          assert.equal(answer.headers.get('content-type'), 'text/csv; charset=utf-8');
          assert.match(answer.headers.get('content-disposition') ?? '', /^attachment; filename="(\w+)\.csv"$/);
          assert.ok(answer.text.split('\r\n').length > 1 && !/[^\r]\n/.test(answer.text), 'CRLF line ends');
        } else assert.equal(answer.headers.get('content-type'), 'application/xml; charset=utf-8');
      });
    }

    test('Accept chooses XML or CSV; browsers and */* get JSON; ?format and suffixes win over Accept', async () => {
      const type = async (path: string, accept?: string) => (await request(server.base, path, { headers: accept ? { accept } : {} })).headers.get('content-type');
      assert.equal(await type('/rest/v1/link/', 'application/xml'), 'application/xml; charset=utf-8');
      assert.equal(await type('/rest/v1/link/', 'text/csv'), 'text/csv; charset=utf-8');
      assert.equal(await type('/rest/v1/link/', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), 'application/json');
      assert.equal(await type('/rest/v1/link/', '*/*'), 'application/json');
      assert.equal(await type('/rest/v1/link/', 'image/png'), 'application/json');
      assert.equal(await type('/rest/v1/link/?format=json', 'application/xml'), 'application/json');
      assert.equal(await type('/rest/v1/link.csv', 'application/xml'), 'text/csv; charset=utf-8');
      assert.equal(await type('/rest/v1/link/1.xml'), 'application/xml; charset=utf-8');
    });

    test('links in XML keep the format parameter; unknown formats are 404', async () => {
      const answer = await request(server.base, '/rest/v1/budget_item/?format=xml&limit=2');
      assert.match(answer.text, /<next>http:\/\/127\.0\.0\.1:\d+\/rest\/v1\/budget_item\/\?format=xml&amp;limit=2&amp;page=2<\/next>/);
      assert.equal((await request(server.base, '/rest/v1/budget_item/?format=yaml')).status, 404);
      assert.equal((await request(server.base, '/rest/v1/budget_item.api')).status, 404);
    });

    test('text with line breaks of every kind, commas and quotes survives CSV and XML', async () => {
      const key = await createToken(server.engine, 'ana@example.org');
      const description = 'Line one\nline two\rline three\r\nline "four", with commas';
      const created = await request(server.base, '/rest/v1/organisation/', {
        method: 'POST',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Multiline', long_name: 'Multiline Org', description, notes: 'a\nb' }),
      });
      assert.equal(created.status, 201, created.text);
      const csv = await request(server.base, '/rest/v1/organisation/?format=csv&limit=100');
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      const json = await request(server.base, '/rest/v1/organisation/?limit=100');
      assert.equal(rows.length, json.body.count);
      assert.deepEqual(rows.map((row) => row.id), json.body.results.map((record: { id: number }) => String(record.id)));
      const row = rows.find((candidate) => candidate.id === String(created.body.id));
      assert.deepEqual([row?.description, row?.notes], [description, 'a\nb']);
      const xml = await request(server.base, `/rest/v1/organisation/${created.body.id}/?format=xml`);
      let text = '';
      let inDescription = false;
      const parser = new SaxesParser();
      parser.on('opentag', (tag) => (inDescription = tag.name === 'description'));
      parser.on('text', (chunk) => {
        if (inDescription) text += chunk;
      });
      parser.on('closetag', () => (inDescription = false));
      parser.write(xml.text).close();
      assert.equal(text, description.replace(/\r\n?/g, '\n'), 'XML readers receive line ends as LF');
    });
  });
}
