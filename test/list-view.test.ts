/**
 * The explorer's list view in a real browser (Debian's chromium through playwright-core) on the
 * demo data `npm start` loads: columns titled as the OpenAPI document titles the fields, lookups
 * named in full, as many columns as fit on a phone and on a laptop with a chooser for the others
 * (kept in the address), and a note when a descending order starts with empty values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { generateDemo } from '../demo/generate.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { ARTIFACTS, external, launchBrowser, openPage } from './support/browser.ts';
import { request, testStores, useServer } from './support/server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- documents and answers read back
// What the functions run in the page see (the tests are type-checked without the DOM's types).
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): { scrollWidth: number; clientWidth: number } | null;
  querySelectorAll(selector: string): ArrayLike<{ offsetWidth: number; value: string; selectedOptions: ArrayLike<{ text: string }> }>;
  createElement(name: 'canvas'): { getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } } };
};
declare const window: { innerWidth: number; getComputedStyle(element: unknown): { font: string } };

const [store] = testStores();
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** The lists shown as tables (the report definitions are the reports page; my_projects needs a key). */
const TABLES = RESOURCES.map((resource) => resource.name).filter((name) => name !== 'reports' && name !== 'my_projects');

describe('explorer list view (browser, demo data)', () => {
  const server = useServer(store, () => generateDemo({ scale: 1, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
  let browser: Browser;
  let openapi: Json;
  const requested: string[] = [];
  const fresh = async (viewport = LAPTOP) => {
    const opened = await openPage(browser, viewport);
    opened.page.on('request', (outgoing) => requested.push(outgoing.url()));
    return opened.page;
  };
  const api = async (path: string) => (await request(server.base, path)).body;
  const rows = (page: Page) => page.locator('main tbody tr');
  /** The headers shown, without the order arrows. */
  const headers = async (page: Page) => (await page.locator('main thead th').allInnerTexts()).map((text) => text.replace(/[▲▼]/g, '').trim());
  const titlesOf = (name: string): Record<string, string> => Object.fromEntries(Object.entries(openapi.components.schemas[name].properties as Record<string, Json>).map(([field, schema]) => [field, schema.title]));
  const open = async (page: Page, path: string) => {
    await page.goto(`${server.base}${path}`);
    // The table is fitted to its box before it is first painted: its first row is the view as it stays.
    await rows(page).first().waitFor();
  };
  const fits = (page: Page) =>
    page.evaluate(() => {
      const box = document.querySelector('.table-wrap')!;
      return { page: document.documentElement.scrollWidth <= window.innerWidth, table: box.scrollWidth <= box.clientWidth + 1 };
    });

  before(async () => {
    browser = await launchBrowser();
    openapi = await api('/rest/v1/openapi.json');
  });
  after(() => browser?.close());

  test('the OpenAPI document titles every field: a code and its label as "Currency (code)" and "Currency"', () => {
    const budget = titlesOf('budget_item');
    assert.equal(budget.label_label, 'Label');
    assert.equal(budget.label, 'Label (code)');
    assert.equal(budget.currency_label, 'Currency');
    assert.equal(budget.currency, 'Currency (code)');
    assert.equal(budget.period_start, 'Period start');
    assert.equal(budget.id, 'ID');
    assert.equal(titlesOf('transaction').provider_organisation_show_link, 'Provider organisation (link)');
    assert.equal(titlesOf('organisation').iati_org_id, 'IATI org ID');
    assert.equal(openapi.components.schemas.link_write.properties.url.title, 'URL');
    for (const name of TABLES) for (const [field, title] of Object.entries(titlesOf(name))) assert.ok(title && !/ label$/i.test(title), `${name}.${field}: ${title}`);
  });

  test('column headers are the document\'s titles, never a raw name ("Label label")', async () => {
    const page = await fresh();
    for (const name of TABLES) {
      await open(page, `/explore/${name}/`);
      const titles = titlesOf(name);
      const fields = await page.locator('main thead th').evaluateAll((cells) => cells.map((cell) => (cell as unknown as { dataset: { field: string } }).dataset.field));
      assert.deepEqual(await headers(page), fields.map((field) => titles[field]), name);
      assert.ok(!(await headers(page)).some((text) => / label$/i.test(text)), name);
    }
    await open(page, '/explore/budget_item/');
    assert.ok((await headers(page)).includes('Label'));
  });

  test('a filter names its lookups in full, as wide as the lookup it shows; the API\'s name is its value and tooltip', async () => {
    const page = await fresh();
    await open(page, '/explore/organisation/');
    const lookup = page.getByLabel('Name filter lookup', { exact: true });
    const options = await lookup.locator('option').evaluateAll((items) => items.map((item) => ({ value: (item as unknown as { value: string }).value, text: (item as unknown as { text: string }).text, title: (item as unknown as { title: string }).title })));
    const expected: Record<string, string> = { exact: '=', iexact: '= (any case)', icontains: 'contains (any case)', istartswith: 'starts with (any case)', in: 'is one of', gte: '≥', isnull: 'is empty', range: 'between' };
    for (const option of options) {
      assert.equal(option.title, option.value);
      if (expected[option.value]) assert.equal(option.text, expected[option.value]);
    }
    assert.equal(await lookup.inputValue(), 'icontains');
    // Every menu shows its chosen lookup whole (no "icon" for icontains), on a laptop and on a phone.
    for (const viewport of [LAPTOP, PHONE]) {
      const sized = await fresh(viewport);
      for (const name of ['organisation', 'budget_item']) {
        await open(sized, `/explore/${name}/`);
        const cut = await sized.evaluate(() => {
          const context = document.createElement('canvas').getContext('2d');
          return Array.from(document.querySelectorAll('.filter select'))
            .filter((select) => {
              context.font = window.getComputedStyle(select).font;
              return select.offsetWidth < context.measureText(select.selectedOptions[0].text).width + 8;
            })
            .map((select) => select.value);
        });
        assert.deepEqual(cut, [], `${name} at ${viewport.width} px: lookups cut short`);
      }
    }
  });

  test('every list fits a phone and a laptop: no page wider than the screen, its columns across the box', async () => {
    for (const viewport of [PHONE, LAPTOP]) {
      const page = await fresh(viewport);
      for (const name of TABLES) {
        await open(page, `/explore/${name}/`);
        const fit = await fits(page);
        assert.ok(fit.page, `${name} at ${viewport.width} px: the page scrolls sideways`);
        assert.ok(fit.table, `${name} at ${viewport.width} px: columns off the side of the table`);
        const shown = (await headers(page)).length;
        const all = Object.keys(titlesOf(name)).length;
        assert.ok(shown >= Math.min(3, all), `${name} at ${viewport.width} px: ${shown} columns`);
        assert.equal(await page.locator('.chooser summary').innerText(), `Columns ${shown} of ${await page.locator('.chooser input[type=checkbox]').count()} shown`);
      }
      await open(page, '/explore/budget_item/');
      await page.screenshot({ path: `${ARTIFACTS}list-view-${viewport.width}.png` });
    }
    const phone = await fresh(PHONE);
    await open(phone, '/explore/budget_item/');
    assert.deepEqual(await headers(phone), ['ID', 'Label', 'Amount']);
    const laptop = await fresh(LAPTOP);
    await open(laptop, '/explore/budget_item/');
    assert.ok((await headers(laptop)).length >= 6, (await headers(laptop)).join('|'));
  });

  test('the column chooser shows a hidden column, keeps the choice in the address, and gives the usual columns back', async () => {
    const page = await fresh();
    await open(page, '/explore/budget_item/');
    const before = await headers(page);
    assert.ok(!before.includes('Value date'));
    await page.locator('.chooser summary').click();
    await page.getByRole('checkbox', { name: 'Value date' }).check();
    await page.waitForURL(/columns=/);
    const chosen = new URL(page.url()).searchParams.get('columns')!.split(',');
    assert.ok(chosen.includes('value_date'));
    assert.ok((await headers(page)).includes('Value date'));
    const values = await api('/rest/v1/budget_item/');
    const column = (await headers(page)).indexOf('Value date');
    // A date as the page's language writes it (English here: the browser's).
    const valueDate: string | null = values.results[0].value_date;
    assert.equal(await rows(page).first().locator('td').nth(column).innerText(), valueDate ? new Date(`${valueDate}T00:00:00Z`).toLocaleDateString('en', { dateStyle: 'medium', timeZone: 'UTC' }) : '—');
    // The address keeps the choice: opened afresh, and with the other parameters of the view.
    const again = await fresh();
    await open(again, new URL(page.url()).pathname + new URL(page.url()).search);
    assert.deepEqual(await headers(again), await headers(page));
    assert.ok(!(await request(server.base, `/rest/v1/budget_item/?${new URL(page.url()).searchParams}`)).body.detail, 'the API ignores columns=');
    await page.getByRole('checkbox', { name: 'Project' }).uncheck();
    await page.waitForFunction(() => !document.querySelector('th[data-field=project]'));
    await page.getByRole('button', { name: 'The usual columns' }).click();
    await page.waitForURL((url) => !url.searchParams.has('columns'));
    assert.deepEqual(await headers(page), before);
    // The JSON link and the whole list's download are the API's query: no columns=.
    assert.doesNotMatch((await page.getByRole('link', { name: 'JSON' }).getAttribute('href'))!, /columns/);
    const [download] = await Promise.all([page.waitForRequest(/\/download\/budget_item\.csv/), page.getByRole('button', { name: 'CSV', exact: true }).click()]);
    assert.doesNotMatch(download.url(), /columns/);
    await page.getByRole('status').filter({ hasText: 'Saved budget_item.csv' }).waitFor();
  });

  test('a column the list is ordered or filtered by is shown, whatever the choice', async () => {
    const page = await fresh(PHONE);
    await open(page, '/explore/budget_item/?value_date__gte=2020-01-01&ordering=period_end');
    const shown = await headers(page);
    assert.ok(shown.includes('Value date') && shown.includes('Period end'), shown.join('|'));
    await page.locator('.chooser summary').click();
    assert.ok(await page.getByRole('checkbox', { name: 'Value date' }).isDisabled());
    assert.ok((await fits(page)).page);
  });

  test('a descending order that starts with empty values says so, and leaves them out on request', async () => {
    const page = await fresh();
    const empty = await api('/rest/v1/budget_item/?ordering=-amount');
    assert.equal(empty.results[0].amount, null, 'the demo has budget items without an amount');
    await open(page, '/explore/budget_item/?ordering=-amount');
    const note = page.locator('[data-note=empty-first]');
    await note.waitFor();
    assert.equal((await note.innerText()).replace(/\s+/g, ' '), 'Empty values come first in a descending order, as on RSR: add the filter amount__isnull=False to leave them out. Leave out the empty amount values');
    await page.screenshot({ path: `${ARTIFACTS}list-view-empty-first.png` });
    await note.getByRole('link').click();
    await page.waitForURL('**/explore/budget_item/?ordering=-amount&amount__isnull=False');
    const filled = await api('/rest/v1/budget_item/?ordering=-amount&amount__isnull=False');
    await page.locator('[aria-live]', { hasText: `${filled.count.toLocaleString('en')} records` }).waitFor();
    assert.deepEqual(await rows(page).locator('td:first-child').allInnerTexts(), filled.results.map((row: Json) => String(row.id)));
    assert.equal(await note.count(), 0);
    // Ascending, or descending from a value: no note.
    for (const path of ['/explore/budget_item/?ordering=amount', '/explore/budget_item/?ordering=-id']) {
      await open(page, path);
      assert.equal(await note.count(), 0, path);
    }
  });

  test('not one request left the server', () => {
    assert.ok(requested.length > 20);
    assert.deepEqual(external(requested, server.base), []);
  });
});
