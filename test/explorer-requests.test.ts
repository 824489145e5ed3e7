/**
 * The explorer's requests in a real browser against the real server: when one fails (no answer,
 * or an answer other than 2xx) each view says so and offers Retry, which recovers, never
 * "Loading…" for ever; only the one request is made to fail (Playwright's page.route, once).
 * And the whole-list downloads: CSV, CSV for Excel (";", byte order mark) and Excel, fetched with
 * the signed-in token from /download/<list>.<format>, shown as they come, saved by the browser;
 * their records are the list's, all of them (demo data: more than one page of 1000, and private
 * projects' records the anonymous do not see).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Browser, Download, Page } from 'playwright-core';
import { generateDemo } from '../demo/generate.ts';
import { createDemoUsers } from '../src/commands/demo.ts';
import { createToken } from '../src/store/users.ts';
import { external, launchBrowser } from './support/browser.ts';
import { request, testStores, useServer } from './support/server.ts';

const [store] = testStores();
const NETWORK = 'The service could not be reached';

/** The next request to `pathname` fails: no answer at all, or an answer of `status`; the ones after it reach the server. */
function failOnce(page: Page, pathname: string, answer?: { status: number; body?: string; contentType?: string; headers?: Record<string, string> }) {
  return page.route(
    (url) => url.pathname === pathname,
    (route) => (answer ? route.fulfill({ contentType: 'application/json', ...answer }) : route.abort('connectionreset')),
    { times: 1 },
  );
}

/** The failure shown in `scope`, with `text`; Retry clicked. */
async function retry(scope: Page | ReturnType<Page['locator']>, text: string | RegExp) {
  const failure = scope.getByRole('alert').filter({ hasText: text });
  await failure.waitFor();
  await failure.getByRole('button', { name: 'Retry' }).click();
  await failure.waitFor({ state: 'detached' });
}

describe('explorer: a failed request shows its error and Retry recovers (browser)', () => {
  const server = useServer(store);
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  });
  after(() => browser?.close());

  test('the lists\' document, a list, a record, counts', async () => {
    await failOnce(page, '/rest/v1/openapi.json');
    await page.goto(`${server.base}/`);
    await retry(page, NETWORK);
    await page.locator('main h1', { hasText: 'Project data' }).waitFor();

    // Home: one list's count not read; Retry reads it.
    await failOnce(page, '/rest/v1/link/');
    await page.reload();
    await retry(page, 'Some counts could not be read.');
    await page.locator('[data-count="link"]', { hasText: /^\d+$/ }).waitFor();

    await failOnce(page, '/rest/v1/budget_item/');
    await page.goto(`${server.base}/explore/budget_item/`);
    assert.equal(await page.locator('main tbody tr').count(), 0);
    await retry(page, NETWORK);
    await page.locator('main tbody tr').first().waitFor();

    // The API's message when it gives one; the status when it does not (a proxy's HTML page).
    await failOnce(page, '/rest/v1/budget_item/1/', { status: 500, body: JSON.stringify({ detail: 'A server error.' }) });
    await page.goto(`${server.base}/explore/budget_item/1/`);
    await retry(page, 'A server error.');
    await page.locator('dl.record').waitFor();

    await failOnce(page, '/explorer/api/projects/1/results/', { status: 502, contentType: 'text/html', body: '<html><body>Bad gateway</body></html>' });
    await page.goto(`${server.base}/explore/project/1/`);
    await retry(page, 'The service answered 502.');
    await page.locator('figure[data-indicator] svg').first().waitFor();
  });

  test('a chart, and the reports (a 503 that says when to come back)', async () => {
    await failOnce(page, '/rest/v1/transaction/');
    await page.goto(`${server.base}/explore/charts/`);
    const transactions = page.locator('figure[data-chart="transactions"]');
    await retry(transactions, NETWORK);
    await transactions.locator('svg g[aria-label="bar"] rect').first().waitFor();
    // The other charts were not held up by it.
    await page.locator('figure[data-chart="budget-label"] svg g[aria-label="bar"] rect').first().waitFor();

    await failOnce(page, '/rest/v1/reports/', { status: 503, headers: { 'retry-after': '2' }, body: JSON.stringify({ detail: 'Busy.' }) });
    await page.goto(`${server.base}/explore/reports/`);
    await retry(page, 'Busy. Try again in 2 s.');
    await page.locator('form.report').first().waitFor();
  });
});

describe('explorer: whole lists downloaded (browser, demo data)', () => {
  const server = useServer(store, () => generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
  let browser: Browser;
  let editor: string;
  const requested: string[] = [];
  const count = async (query: string, key: string | null) => (await request(server.base, `/rest/v1/budget_item/?limit=1${query ? `&${query}` : ''}`, key ? { headers: { authorization: `Token ${key}` } } : {})).body.count as number;
  /** A page signed in as the editor, in `locale`. */
  const signedIn = async (locale: string) => {
    const context = await browser.newContext({ locale, acceptDownloads: true });
    await context.addInitScript((token) => (globalThis as unknown as { sessionStorage: { setItem(key: string, value: string): void } }).sessionStorage.setItem('rsr-api.token', token), editor);
    const page = await context.newPage();
    page.on('request', (outgoing) => requested.push(outgoing.url()));
    return page;
  };
  /** Clicks `button` and waits for the file the browser saves, checking the request carried the token. */
  const downloadBy = async (page: Page, button: string): Promise<{ file: Download; bytes: Buffer; asked: URLSearchParams }> => {
    const [file, sent] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForRequest((outgoing) => outgoing.url().includes('/download/budget_item.')),
      page.getByRole('group', { name: /whole list|lista completa/ }).getByRole('button', { name: button, exact: true }).click(),
    ]);
    assert.equal(sent.headers().authorization, `Token ${editor}`);
    return { file, bytes: readFileSync((await file.path())!), asked: new URL(sent.url()).searchParams };
  };

  before(async () => {
    browser = await launchBrowser();
    await createDemoUsers(server.engine, false);
    editor = await createToken(server.engine, 'editor@demo.rsr-api.org');
  });
  after(() => browser?.close());

  test('CSV: every record the signed-in user may see, shown as it comes, saved under the service\'s name', async () => {
    const all = await count('', editor);
    const anonymous = await count('', null);
    assert.ok(all > 1000 && all > anonymous, `${all} records signed in, ${anonymous} anonymously`);
    const page = await signedIn('en-GB');
    await page.goto(`${server.base}/explore/budget_item/`);
    await page.locator('[aria-live]', { hasText: `${all.toLocaleString('en')} records` }).waitFor();
    // A slow line, to see the progress as it comes (the network of Chromium's DevTools protocol).
    const line = await page.context().newCDPSession(page);
    await line.send('Network.enable');
    await line.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 40_000, uploadThroughput: -1 });
    const downloading = downloadBy(page, 'CSV');
    const bar = page.locator('.download-status progress');
    await page.locator('.download-status', { hasText: new RegExp(`received · [\\d,]+ of ${all.toLocaleString('en')} rows`) }).waitFor();
    assert.equal(await bar.getAttribute('max'), String(all));
    assert.ok(Number(await bar.getAttribute('value')) <= all);
    await line.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const { file, bytes } = await downloading;
    assert.equal(file.suggestedFilename(), 'budget_item.csv');
    const rows = parse(bytes) as string[][];
    assert.equal(rows[0][0], 'id');
    assert.equal(rows.length - 1, all, 'one row per record of the list');
    assert.equal(new Set(rows.slice(1).map((row) => row[0])).size, all);
    await page.getByRole('status').filter({ hasText: `Saved budget_item.csv: ${all.toLocaleString('en')} rows.` }).waitFor();
    await page.screenshot({ path: '/tmp/shots/download-done-en.png' });
  });

  test('Excel: the workbook holds the same records', async () => {
    const all = await count('', editor);
    const page = await signedIn('en-GB');
    await page.goto(`${server.base}/explore/budget_item/`);
    await page.locator('main tbody tr').first().waitFor();
    const { file, bytes } = await downloadBy(page, 'Excel (XLSX)');
    assert.equal(file.suggestedFilename(), 'budget_item.xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    assert.equal(workbook.worksheets.reduce((sum, sheet) => sum + sheet.rowCount - 1, 0), all);
    await page.getByRole('status').filter({ hasText: `Saved budget_item.xlsx: ${all.toLocaleString('en')} rows.` }).waitFor();
  });

  test('in Spanish, "CSV for Excel": the view\'s filters and ordering, ";" and a byte order mark', async () => {
    const query = 'currency=EUR&ordering=-amount';
    const filtered = await count(query, editor);
    const first = (await request(server.base, `/rest/v1/budget_item/?${query}&limit=1`, { headers: { authorization: `Token ${editor}` } })).body.results[0].id;
    const page = await signedIn('es-ES');
    await page.goto(`${server.base}/explore/budget_item/?${query}&limit=10&page=2`);
    await page.locator('main tbody tr').first().waitFor();
    const { bytes, asked } = await downloadBy(page, 'CSV para Excel (;)');
    assert.deepEqual(Object.fromEntries(asked), { currency: 'EUR', ordering: '-amount', bom: 'true', delimiter: ';' }, 'the list\'s query, not its page');
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const rows = parse(bytes, { bom: true, delimiter: ';' }) as string[][];
    assert.equal(rows.length - 1, filtered);
    assert.equal(Number(rows[1][0]), first);
    await page.getByRole('status').filter({ hasText: `Se guardó budget_item.csv: ${filtered.toLocaleString('es')} filas.` }).waitFor();
  });

  test('a refused download (429, Retry-After) says so; Retry downloads it', async () => {
    const page = await signedIn('en-GB');
    await page.goto(`${server.base}/explore/budget_item/`);
    await page.locator('main tbody tr').first().waitFor();
    await failOnce(page, '/download/budget_item.csv', { status: 429, headers: { 'retry-after': '3' }, body: JSON.stringify({ detail: 'Request was throttled. Expected available in 3 seconds.' }) });
    await page.getByRole('button', { name: 'CSV', exact: true }).click();
    const failure = page.getByRole('alert').filter({ hasText: 'Request was throttled. Expected available in 3 seconds. Try again in 3 s.' });
    await failure.waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), failure.getByRole('button', { name: 'Retry' }).click()]);
    assert.equal(file.suggestedFilename(), 'budget_item.csv');
    await page.getByRole('status').filter({ hasText: 'Saved budget_item.csv' }).waitFor();
  });

  test('not one request left the server', () => {
    assert.ok(requested.length > 10);
    assert.deepEqual(external(requested, server.base), []);
  });
});
