/**
 * The explorer in a real browser (Debian's chromium through playwright-core) against the real
 * server on the small test dataset: every list, ordering, filters, paging to the last page, a
 * record and its related links, every chart's bars, a report of each format downloaded from the
 * form and read back, signing in with a token to create, edit, undo and delete, a field error,
 * a phone-sized screen, the keyboard alone, an API address pasted into the browser; and not one
 * request to another host. Screenshots of the main views go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Browser, Page } from 'playwright-core';
import { RESOURCES } from '../src/resources/index.ts';
import { createToken } from '../src/store/users.ts';
import { ARTIFACTS, external, launchBrowser, openPage } from './support/browser.ts';
import { request, testStores, useServer } from './support/server.ts';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- records read back
// What the functions run in the page see (the tests are type-checked without the DOM's types).
declare const document: { querySelector(selector: string): { textContent: string | null } | null; activeElement: { textContent: string | null } | null; documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };
declare const sessionStorage: { getItem(key: string): string | null };

const [store] = testStores();
const BUILT = new URL('../dist/explorer/index.html', import.meta.url).pathname;

describe('explorer (browser)', () => {
  const server = useServer(store);
  let browser: Browser;
  let admin: string;
  const requested: string[] = [];
  /** A fresh page whose requests are all recorded (checked at the end: none leaves the server). */
  const fresh = async (viewport?: { width: number; height: number }) => {
    const opened = await openPage(browser, viewport);
    opened.page.on('request', (outgoing) => requested.push(outgoing.url()));
    return opened.page;
  };
  const api = async (path: string, key: string | null = null) => (await request(server.base, path, key ? { headers: { authorization: `Token ${key}` } } : {})).body;
  const rows = (page: Page) => page.locator('main tbody tr');
  const signIn = async (page: Page, key: string) => {
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('API token').fill(key);
    await page.locator('form.sign-in button[type=submit]').click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  };

  before(async () => {
    assert.ok(existsSync(BUILT), 'the explorer is built (npm run build:explorer; npm install does it)');
    browser = await launchBrowser();
    admin = await createToken(server.engine, 'ana@example.org');
  });
  after(() => browser?.close());

  test('the page at / and every /explore/ address, its assets kept by browsers for good', async () => {
    const page = await request(server.base, '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.equal(page.text, readFileSync(BUILT, 'utf8'));
    assert.equal((await request(server.base, '/explore/budget_item/?ordering=-amount')).text, page.text);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)![1];
    const asset = await request(server.base, script, { headers: { 'accept-encoding': 'br' } });
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(asset.headers.get('content-encoding'), 'br');
    const again = await request(server.base, script, { headers: { 'if-none-match': asset.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });

  test('the home page lists the thirteen lists with the counts the API gives', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/`);
    for (const resource of RESOURCES) {
      const answer = await request(server.base, `/rest/v1/${resource.name}/?limit=1`);
      const expected = answer.status === 200 ? answer.body.count.toLocaleString('en') : 'sign in';
      await page.locator(`[data-count="${resource.name}"]`, { hasText: expected }).waitFor();
    }
    await page.screenshot({ path: `${ARTIFACTS}explorer-home.png` });
  });

  test('every list opens as a table of its first page, with its count', async () => {
    const page = await fresh();
    for (const resource of RESOURCES) {
      await page.goto(`${server.base}/explore/${resource.name}/`);
      const answer = await request(server.base, `/rest/v1/${resource.name}/`);
      if (answer.status !== 200) {
        await page.getByRole('alert').filter({ hasText: answer.body.detail }).waitFor();
        continue;
      }
      if (resource.name === 'reports') {
        // The report definitions' list is the reports page: a form per definition.
        await page.locator('form.report').first().waitFor();
        assert.deepEqual(await page.locator('form.report h2').allInnerTexts(), answer.body.results.map((row: Row) => row.title));
        continue;
      }
      await page.locator('main h1', { hasText: resource.title }).waitFor();
      await page.locator('[aria-live]', { hasText: `${answer.body.count} record` }).waitFor();
      assert.equal(await rows(page).count(), answer.body.results.length, resource.name);
      if (answer.body.results.length) assert.equal(await rows(page).first().locator('td').first().innerText(), String(answer.body.results[0].id), resource.name);
    }
  });

  test('a click on a column header orders by it, a second click the other way; the URL says so', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/budget_item/`);
    await rows(page).first().waitFor();
    for (const ordering of ['amount', '-amount']) {
      await page.locator('th a', { hasText: 'Amount' }).click();
      await page.waitForURL(`**/explore/budget_item/?ordering=${ordering}`);
      const expected = (await api(`/rest/v1/budget_item/?ordering=${ordering}`)).results.map((row: Row) => String(row.id));
      await page.waitForFunction((first) => document.querySelector('main tbody tr td')?.textContent === first, expected[0]);
      assert.deepEqual(await rows(page).locator('td:first-child').allInnerTexts(), expected);
      assert.equal(await page.locator('th[aria-sort]:not([aria-sort=none])').getAttribute('aria-sort'), ordering.startsWith('-') ? 'descending' : 'ascending');
    }
  });

  test('column filters and the search box build the API query into the URL', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/budget_item/`);
    await rows(page).first().waitFor();
    await page.getByLabel('Amount filter lookup').selectOption('gte');
    await page.getByLabel('Amount filter', { exact: true }).fill('3');
    await page.getByLabel('Amount filter', { exact: true }).press('Enter');
    await page.waitForURL('**/explore/budget_item/?amount__gte=3');
    const expected = await api('/rest/v1/budget_item/?amount__gte=3');
    await page.locator('[aria-live]', { hasText: `${expected.count} records` }).waitFor();
    assert.deepEqual(await rows(page).locator('td:first-child').allInnerTexts(), expected.results.map((row: Row) => String(row.id)));

    await page.goto(`${server.base}/explore/link/`);
    await rows(page).first().waitFor();
    await page.getByLabel('Search text').fill('akvopedia');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL('**/explore/link/?search=akvopedia');
    await page.locator('[aria-live]', { hasText: '1 record' }).waitFor();
    assert.deepEqual(await rows(page).locator('td:first-child').allInnerTexts(), ['2']);
  });

  test('paging: page numbers, next, and the last page', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/budget_item/?limit=3`);
    await rows(page).first().waitFor();
    const count = (await api('/rest/v1/budget_item/?limit=3')).count;
    const pages = Math.ceil(count / 3);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL('**/explore/budget_item/?limit=3&page=2');
    await page.getByRole('link', { name: `Last page, ${pages}` }).click();
    await page.waitForURL('**/explore/budget_item/?limit=3&page=last');
    const last = await api('/rest/v1/budget_item/?limit=3&page=last');
    await page.waitForFunction((first) => document.querySelector('main tbody tr td')?.textContent === first, String(last.results[0].id));
    assert.deepEqual(await rows(page).locator('td:first-child').allInnerTexts(), last.results.map((row: Row) => String(row.id)));
    assert.equal(await page.locator('.pager [aria-current=page]').innerText(), String(pages));
    await page.screenshot({ path: `${ARTIFACTS}explorer-list.png` });
  });

  test('a record shows its labelled fields; its project and organisations are links that lead to them', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/budget_item/`);
    await page.getByRole('link', { name: 'Budget Item 1', exact: true }).click();
    await page.waitForURL('**/explore/budget_item/1/');
    const record = await api('/rest/v1/budget_item/1/');
    await page.locator('dd[data-field=label_label]', { hasText: record.label_label }).waitFor();
    // Fields by the OpenAPI document's titles: the label a code is shown by, and the code itself.
    assert.deepEqual(await page.locator('dt').filter({ hasText: /^Currency( \(code\))?$/ }).allTextContents(), ['Currency (code)', 'Currency']);
    await page.screenshot({ path: `${ARTIFACTS}explorer-record.png` });
    await page.locator('dd[data-field=project] a').click();
    await page.waitForURL('**/explore/project/1/');
    await page.getByRole('link', { name: 'Budget Item' }).first().waitFor();

    await page.goto(`${server.base}/explore/transaction/1/`);
    const transaction = await api('/rest/v1/transaction/1/');
    await page.locator('dd[data-field=provider_organisation] a').click();
    await page.waitForURL(`**/explore/organisation/${transaction.provider_organisation}/`);
    const organisation = await api(`/rest/v1/organisation/${transaction.provider_organisation}/`);
    await page.locator('dd[data-field=name]', { hasText: organisation.name }).waitFor();
  });

  test('each chart draws one bar (or segment) per group of the records the API gives, money in one currency', async () => {
    // test/charts.test.ts checks every chart's numbers on a larger dataset; here, the small one.
    const page = await fresh();
    await page.goto(`${server.base}/explore/charts/`);
    const all = async (name: string) => (await api(`/rest/v1/${name}/?limit=1000`)).results as Row[];
    const distinct = (items: Row[], key: (row: Row) => string) => new Set(items.map(key)).size;
    const year = (date: unknown) => (typeof date === 'string' ? date.slice(0, 4) : '');
    /** The records of the most frequent currency: what a money chart shows first. */
    const firstCurrency = (items: Row[]) => {
      const counts = new Map<string, number>();
      for (const row of items) counts.set(row.currency_label, (counts.get(row.currency_label) ?? 0) + 1);
      const [[first]] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return items.filter((row) => row.currency_label === first);
    };
    const label = (row: Row) => (row.label === null ? '' : row.label_label);
    const budget = firstCurrency(await all('budget_item'));
    const transactions = firstCurrency(await all('transaction'));
    const regions = await all('recipient_region');
    /** A project's share in a region: "all" of it, or "part". */
    const share = (region: Row) => (regions.filter((row) => row.project === region.project && row.region_label === region.region_label).reduce((sum, row) => sum + Number(row.percentage), 0) >= 100 ? 'all' : 'part');
    const expected: Record<string, number> = {
      'budget-label': distinct(budget, label),
      'budget-year': distinct(budget, (row) => year(row.period_start)),
      transactions: distinct(transactions, (row) => `${year(row.transaction_date)}|${row.transaction_type}`),
      regions: distinct(regions, (row) => `${row.region_label}|${share(row)}`),
      targets: distinct(await all('disaggregation_target'), (row) => String(row.dimension_value)),
    };
    for (const [chart, bars] of Object.entries(expected)) {
      const drawn = page.locator(`figure[data-chart="${chart}"] svg g[aria-label="bar"] rect`);
      await drawn.first().waitFor();
      assert.equal(await drawn.count(), bars, chart);
      assert.ok(bars > 0, chart);
    }
    const unit = String(budget[0].currency_label).split(' - ')[0];
    await page.locator('figure[data-chart="budget-label"] g[aria-label="x-axis label"]', { hasText: `Amount (${unit})` }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}explorer-charts.png`, fullPage: true });
    // One project: its title, its results (target and actual per period: a bar each), its charts (only its records).
    await page.goto(`${server.base}/explore/project/1/`);
    await page.locator('main h1', { hasText: 'Water for Kisumu' }).waitFor();
    const results = await api('/explorer/api/projects/1/results/');
    const indicators = results.results.flatMap((result: Row) => result.indicators.filter((indicator: Row) => indicator.quantitative && indicator.periods.length));
    assert.ok(indicators.length > 0);
    for (const [index, indicator] of indicators.entries()) {
      const bars = page.locator(`figure[data-indicator="${index}"] svg g[aria-label="bar"] rect`);
      await bars.first().waitFor();
      assert.equal(await bars.count(), indicator.periods.flatMap((period: Row) => [period.target, period.actual]).filter((value: unknown) => value !== null).length, indicator.title);
    }
    await page.screenshot({ path: `${ARTIFACTS}explorer-project.png` });
    const own = firstCurrency((await api('/rest/v1/budget_item/?project=1&limit=1000')).results as Row[]);
    const drawn = page.locator('figure[data-chart="budget-label"] svg g[aria-label="bar"] rect');
    await drawn.first().waitFor();
    assert.equal(await drawn.count(), distinct(own, label));
  });

  test('a project\'s results for the explorer: as the reports read them, and only for those who may see the project', async () => {
    const results = await request(server.base, '/explorer/api/projects/1/results/');
    assert.equal(results.status, 200);
    assert.deepEqual(results.body, {
      project: { id: 1, title: 'Water for Kisumu', subtitle: results.body.project.subtitle },
      results: [{ title: 'Access to water', type: 'Output', indicators: [{ title: 'Households served', measure: 'Unit', quantitative: true, periods: [{ start: '2023-01-01', end: '2023-12-31', target: 500, actual: 250 }] }] }],
    });
    assert.equal((await request(server.base, '/explorer/api/projects/3/results/')).status, 404, 'a private project, anonymously');
    assert.equal((await request(server.base, '/explorer/api/projects/3/results/', { headers: { authorization: `Token ${admin}` } })).status, 200);
    assert.equal((await request(server.base, '/explorer/api/projects/x/results/')).status, 404);
  });

  test('names of projects and programs for the pickers: only those the caller may see, by title', async () => {
    const titles = async (path: string, key: string | null = null) => (await api(path, key)).results.map((row: Row) => `${row.id} ${row.title}`);
    assert.deepEqual(await titles('/explorer/api/names/project/'), ['5 Clean Water Program', '2 Saneamiento en Bogotá', '1 Water for Kisumu']);
    assert.deepEqual(await titles('/explorer/api/names/project/', admin), ['5 Clean Water Program', '4 Draft project', '3 Private pilot', '2 Saneamiento en Bogotá', '1 Water for Kisumu']);
    assert.deepEqual(await titles('/explorer/api/names/project/?title=WATER'), ['5 Clean Water Program', '1 Water for Kisumu']);
    assert.deepEqual(await titles('/explorer/api/names/program/?title=clean'), ['5 Clean Water Program']);
    assert.equal((await api('/explorer/api/names/project/?title=pilot')).count, 0, 'a private project is not named to anonymous callers');
    assert.equal((await request(server.base, '/explorer/api/names/user/')).status, 404);
    assert.equal((await request(server.base, '/explorer/api/names/__proto__/')).status, 404);
  });

  test('reports: one of each format downloaded from the form, and read back', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/reports/`);
    await page.locator('.notice', { hasText: 'sign in' }).waitFor();
    await signIn(page, admin);
    const title = 'Water for Kisumu';
    const cases = [
      ['results-framework', 'pdf'],
      ['results-simple-table', 'excel'],
      ['Project-report-word', 'word'],
    ] as const;
    for (const [name, format] of cases) {
      const form = page.locator(`form[data-report="${name}"]`);
      // The project picked by name: the names come from the API as it is typed.
      await form.locator('input[name=project]').fill('Water for');
      await form.locator('datalist option[value="Water for Kisumu (#1)"]').waitFor({ state: 'attached' });
      await form.locator('input[name=project]').fill('Water for Kisumu (#1)');
      const [file] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download' }).click()]);
      const bytes = readFileSync(await file.path());
      await form.locator('.success', { hasText: file.suggestedFilename() }).waitFor();
      if (format === 'pdf') {
        const pdf = await getDocument({ data: new Uint8Array(bytes) }).promise;
        const text = (await (await pdf.getPage(1)).getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(' ');
        assert.match(text.replace(/\s+/g, ' '), new RegExp(title), 'the PDF is of the project');
        assert.match(file.suggestedFilename(), /\.pdf$/);
      } else if (format === 'excel') {
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
        const cells = workbook.worksheets.flatMap((sheet) => sheet.getSheetValues().flat().map(String));
        assert.ok(cells.some((cell) => cell.includes(title)), 'the workbook is of the project');
        assert.match(file.suggestedFilename(), /\.xlsx$/);
      } else {
        const xml = await (await JSZip.loadAsync(bytes)).file('word/document.xml')!.async('string');
        assert.match(xml, new RegExp(title), 'the document is of the project');
        assert.match(file.suggestedFilename(), /\.docx$/);
      }
    }
    // A project that does not exist: the API's answer, shown.
    const form = page.locator('form[data-report="results-simple-table"]');
    await form.locator('input[name=project]').fill('999999');
    await form.getByRole('button', { name: 'Download' }).click();
    await form.getByRole('alert').filter({ hasText: 'Not found.' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}explorer-reports.png` });
  });

  test('signed in with a token: create, edit and undo, a field error next to its field, delete', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/explore/link/1/`);
    await page.locator('dd[data-field=caption]', { hasText: 'Water page' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0, 'no edit before signing in');
    await signIn(page, admin);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('rsr-api.token')), admin);

    // Edit, then undo the edit.
    for (const caption of ['Water page, edited', 'Water page']) {
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Caption').fill(caption);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('dd[data-field=caption]', { hasText: new RegExp(`^${caption}$`) }).waitFor();
      assert.equal((await api('/rest/v1/link/1/')).caption, caption);
    }

    // A field error, as the API words it, next to the field.
    const refused = await request(server.base, '/rest/v1/link/1/', { method: 'PATCH', headers: { authorization: `Token ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'not a url' }) });
    assert.equal(refused.status, 400);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Url').fill('not a url');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#field-url-error', { hasText: refused.body.url[0] }).waitFor();
    assert.equal(await page.getByLabel('Url').getAttribute('aria-invalid'), 'true');
    await page.screenshot({ path: `${ARTIFACTS}explorer-field-error.png` });
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await api('/rest/v1/link/1/')).url, 'https://akvo.org/water');

    // Create, then delete.
    await page.goto(`${server.base}/explore/link/`);
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByLabel('Project').fill('1');
    await page.getByLabel('Url').fill('https://example.org/from-the-explorer');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/explore\/link\/\d+\/$/);
    const id = /\/explore\/link\/(\d+)\/$/.exec(page.url())![1];
    assert.equal((await api(`/rest/v1/link/${id}/`)).url, 'https://example.org/from-the-explorer');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL('**/explore/link/');
    assert.equal((await request(server.base, `/rest/v1/link/${id}/`)).status, 404);
  });

  test('a phone-sized screen: no page wider than the screen, the table scrolls in its box', async () => {
    const page = await fresh({ width: 390, height: 844 });
    for (const path of ['/', '/explore/budget_item/', '/explore/budget_item/1/', '/explore/charts/', '/explore/reports/']) {
      await page.goto(`${server.base}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} fits the screen`);
      if (path === '/explore/budget_item/') await page.screenshot({ path: `${ARTIFACTS}explorer-phone.png` });
    }
  });

  test('the keyboard alone: skip link, open a list, order it', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/`);
    await page.locator('[data-count="budget_item"]', { hasText: /\d/ }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the content');
    const focusOn = async (text: string) => {
      for (let step = 0; step < 80; step += 1) {
        if ((await page.evaluate(() => document.activeElement?.textContent ?? '')).startsWith(text)) return;
        await page.keyboard.press('Tab');
      }
      assert.fail(`no focusable ${text}`);
    };
    await focusOn('Budget Item');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/explore/budget_item/');
    await rows(page).first().waitFor();
    await focusOn('Amount');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/explore/budget_item/?ordering=amount');
  });

  test('an API address opened in the browser offers the same view in the explorer; scripts still get JSON', async () => {
    const page = await fresh();
    await page.goto(`${server.base}/rest/v1/budget_item/?ordering=-amount`);
    await page.locator('#explorer').click();
    await page.waitForURL('**/explore/budget_item/?ordering=-amount');
    await rows(page).first().waitFor();
    const script = await request(server.base, '/rest/v1/budget_item/?ordering=-amount', { headers: { accept: 'text/html' } });
    assert.equal(script.headers.get('content-type'), 'application/json');
    assert.equal(script.body.count, (await api('/rest/v1/budget_item/')).count);
    // The page shows the address it was asked for: escaped, whatever it holds.
    const hostile = await request(server.base, '/rest/v1/budget_item/?q=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E', { headers: { 'sec-fetch-dest': 'document', accept: 'text/html' } });
    assert.equal(hostile.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.doesNotMatch(hostile.text, /<script/i);
    assert.match(hostile.text, /href="\/explore\/budget_item\/\?q=%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E"/);
    await page.goto(`${server.base}/rest/v1/budget_item/?format=api`);
    assert.match(await page.locator('body').innerText(), /"count":/);
  });

  test('not one request left the server', () => {
    assert.ok(requested.length > 50, `${requested.length} requests recorded`);
    assert.deepEqual(external(requested, server.base), []);
  });
});
