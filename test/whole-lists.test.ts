/**
 * Whole lists as files (http/whole-lists.ts): `/download/<list>.csv` and `.xlsx` hold every record
 * the caller may see, with the list's filters and ordering, exactly the records and order the
 * API's pages give; read back with real parsers (csv-parse, exceljs). The CSV options `bom` and
 * `delimiter` on the API's own CSV too; the Link header on list pages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { generateDemo } from '../demo/generate.ts';
import budgetItem from '../src/resources/budget_item.ts';
import { createDemoUsers } from '../src/commands/demo.ts';
import { createToken } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

type Json = Record<string, unknown>;
const BOM = '\uFEFF';
const COLUMNS = Object.keys(budgetItem.fields);

/** Every record of a list through the API's pages of 1000, in order. */
async function allPages(base: string, path: string, key: string | null): Promise<Json[]> {
  const records: Json[] = [];
  let url: string | null = `${base}${path}${path.includes('?') ? '&' : '?'}limit=1000`;
  while (url) {
    const answer = await request('', url, { headers: key ? { authorization: `Token ${key}` } : {} });
    assert.equal(answer.status, 200, answer.text);
    records.push(...answer.body.results);
    url = answer.body.next;
  }
  return records;
}

/** A record's value as the CSV of a whole list writes it. */
function cellText(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

for (const store of testStores()) {
  describe(`whole lists as files (${store.name})`, () => {
    // Two large answers at once per caller (LARGE_PAGES_PER_CALLER), for the test of the limit.
    const server = useServer(store, () => generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })), { callerLimits: { largePagesPerCaller: 2 } });
    let editor: string;
    const auth = () => ({ authorization: `Token ${editor}` });

    test('the CSV holds every record the caller sees, in the API\'s order, each cell as the API\'s value', async () => {
      await createDemoUsers(server.engine, false);
      editor = await createToken(server.engine, 'editor@demo.rsr-api.org');
      const api = await allPages(server.base, '/rest/v1/budget_item/', editor);
      const anonymous = (await request(server.base, '/rest/v1/budget_item/?limit=1')).body.count;
      assert.ok(api.length > anonymous && api.length > 1000, `the editor sees private projects' items: ${api.length} against ${anonymous}`);
      const answer = await request(server.base, '/download/budget_item.csv', { headers: auth() });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(answer.headers.get('content-disposition'), 'attachment; filename="budget_item.csv"');
      assert.equal(answer.headers.get('x-total-count'), String(api.length));
      assert.equal(answer.headers.get('cache-control'), 'private, no-store');
      assert.ok(!answer.text.startsWith(BOM) && answer.text.includes('\r\n'));
      const rows = parse(answer.text, { columns: false }) as string[][];
      assert.deepEqual(rows[0], COLUMNS);
      assert.deepEqual(rows.slice(1), api.map((record) => COLUMNS.map((name) => cellText(record[name]))));
    });

    test('filters and ordering as the list\'s; bom and delimiter for spreadsheets; what no one may see is not there', async () => {
      const query = '?currency=EUR&ordering=-amount';
      const api = await allPages(server.base, `/rest/v1/budget_item/${query}`, editor);
      assert.ok(api.length > 0);
      const answer = await fetch(`${server.base}/download/budget_item.csv${query}&bom=true&delimiter=;`, { headers: auth() });
      const bytes = Buffer.from(await answer.arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 byte order mark');
      const rows = parse(bytes, { bom: true, delimiter: ';' }) as string[][];
      assert.deepEqual(rows.slice(1).map((row) => Number(row[0])), api.map((record) => record.id));
      const anonymous = await request(server.base, `/download/budget_item.csv${query}`);
      const publicIds = (await allPages(server.base, `/rest/v1/budget_item/${query}`, null)).map((record) => String(record.id));
      assert.ok(publicIds.length < api.length);
      assert.deepEqual((parse(anonymous.text) as string[][]).slice(1).map((row) => row[0]), publicIds);
    });

    test('the workbook holds the same records, numbers as numbers and dates as dates, the header frozen', async () => {
      const api = await allPages(server.base, '/rest/v1/budget_item/', editor);
      const answer = await fetch(`${server.base}/download/budget_item.xlsx`, { headers: auth() });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      assert.equal(answer.headers.get('content-disposition'), 'attachment; filename="budget_item.xlsx"');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(Buffer.from(await answer.arrayBuffer()) as unknown as ArrayBuffer);
      const [sheet] = workbook.worksheets;
      assert.equal(workbook.worksheets.length, 1);
      assert.equal(sheet.name, 'budget_item');
      assert.equal(sheet.views[0].state, 'frozen');
      assert.equal(sheet.rowCount, api.length + 1);
      assert.deepEqual((sheet.getRow(1).values as unknown[]).slice(1), COLUMNS);
      const at = (name: string) => COLUMNS.indexOf(name) + 1;
      api.forEach((record, index) => {
        const row = sheet.getRow(index + 2);
        assert.equal(row.getCell(at('id')).value, record.id);
        assert.equal(row.getCell(at('amount')).value, record.amount);
        assert.equal(row.getCell(at('label_label')).value, record.label_label);
        const start = row.getCell(at('period_start')).value;
        assert.equal(start === null ? null : (start as Date).toISOString().slice(0, 10), record.period_start);
      });
    });

    test('an unknown list is 404, a bad option 400, in JSON', async () => {
      for (const [path, status, body] of [
        ['/download/nothing.csv', 404, { detail: 'Not found.' }],
        ['/download/budget_item.pdf', 404, { detail: 'Not found.' }],
        ['/download/budget_item.csv?delimiter=|', 400, { detail: "delimiter must be ',', ';' or 'tab', not '|'." }],
        ['/download/budget_item.csv?bom=yes', 400, { detail: "bom must be true or false, not 'yes'." }],
        ['/download/budget_item.xlsx?project__nothing=1', 400, null],
      ] as const) {
        const answer = await request(server.base, path);
        assert.equal(answer.status, status, path);
        assert.equal(answer.headers.get('content-type'), 'application/json', path);
        if (body) assert.deepEqual(answer.body, body, path);
      }
    });

    test('the API\'s own CSV takes bom and delimiter; without them its bytes are unchanged', async () => {
      const plain = await request(server.base, '/rest/v1/budget_item/?format=csv&limit=5');
      // Read as bytes: a text decoder drops the byte order mark.
      const excel = Buffer.from(await (await fetch(`${server.base}/rest/v1/budget_item/?format=csv&limit=5&bom=1&delimiter=tab`)).arrayBuffer()).toString('utf8');
      assert.equal(excel, BOM + (parse(plain.text) as string[][]).map((row) => row.map((cell) => (/[\t"\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join('\t')).join('\r\n') + '\r\n');
      assert.equal((await request(server.base, '/rest/v1/budget_item/?format=json&delimiter=|')).status, 200, 'ignored by JSON, as by the original');
      assert.equal((await request(server.base, '/rest/v1/budget_item/?format=csv&delimiter=|')).status, 400);
    });

    test('a caller downloading twenty lists at once is refused past its limit with 429 and Retry-After; another caller is not', async () => {
      const downloads = await Promise.all(Array.from({ length: 20 }, () => request(server.base, '/download/budget_item.csv', { headers: auth() })));
      const refused = downloads.filter((answer) => answer.status === 429);
      assert.deepEqual([...new Set(downloads.map((answer) => answer.status))].sort(), [200, 429]);
      assert.ok(refused.length >= 10, `${refused.length} of 20 refused`);
      for (const answer of refused) {
        assert.equal(answer.headers.get('retry-after'), '1');
        assert.deepEqual(answer.body, { detail: 'Request was throttled. Expected available in 1 second.' });
      }
      for (const answer of downloads.filter((each) => each.status === 200)) assert.equal(answer.text.split('\r\n').length - 2, Number(answer.headers.get('x-total-count')));
      assert.equal((await request(server.base, '/download/keyword.csv')).status, 200, 'an anonymous caller is another caller');
    });

    test('list pages carry their neighbours in a Link header', async () => {
      const middle = await request(server.base, '/rest/v1/budget_item/?page=2&limit=10');
      assert.equal(middle.headers.get('link'), `<${middle.body.next}>; rel="next", <${middle.body.previous}>; rel="prev"`);
      assert.equal(middle.body.next, `${server.base}/rest/v1/budget_item/?limit=10&page=3`);
      const first = await request(server.base, '/rest/v1/budget_item/?limit=10');
      assert.equal(first.headers.get('link'), `<${server.base}/rest/v1/budget_item/?limit=10&page=2>; rel="next"`);
      const only = await request(server.base, '/rest/v1/keyword/?limit=1000');
      assert.equal(only.headers.get('link'), null);
      const legacy = await request(server.base, '/api/v1/budget_item/?limit=10&offset=10');
      assert.equal(legacy.headers.get('link'), `<${legacy.body.meta.next}>; rel="next", <${legacy.body.meta.previous}>; rel="prev"`);
    });
  });
}
