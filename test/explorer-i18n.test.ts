/**
 * The explorer in English, Spanish and French: its dictionaries agree (every text translated,
 * the same places for links in each), it speaks the browser's language, its switch changes the
 * language of every view (and the page's `lang`) and is remembered, numbers and dates are written
 * as the language writes them, and what the API says (its messages, titles and values) stays as
 * the API says it. In a real browser against the real server on the small test dataset;
 * screenshots of a list in Spanish and in French go to /tmp/shots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './support/browser.ts';
import { testStores, useServer } from './support/server.ts';

// What the functions run in the page see (the tests are type-checked without the DOM's types).
declare const document: { documentElement: { lang: string }; title: string };
declare const localStorage: { getItem(key: string): string | null };

const [store] = testStores();
const SHOTS = '/tmp/shots/';
/** Texts that are the same words in another language (names of formats, "API", "no"…). */
const SAME_WORDS = new Set(['app.api', 'common.no', 'download.csv', 'download.xlsx', 'pager.pages', 'reports.format', 'reports.organisation']);
const slots = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

/** A dictionary of the explorer: imported by its address, so that this file's type-check (Node's, without the DOM) leaves the explorer's to its own tsconfig. */
const dictionary = async (name: string): Promise<Record<string, unknown>> => (await import(new URL(`../explorer/src/i18n/${name}.ts`, import.meta.url).href))[name];

test('the dictionaries: the same keys, every text translated, the same {places} for links and code', async () => {
  const en = await dictionary('en');
  for (const [name, translated] of [['es', await dictionary('es')], ['fr', await dictionary('fr')]] as const) {
    assert.deepEqual(Object.keys(translated).sort(), Object.keys(en).sort(), name);
    for (const [key, english] of Object.entries(en)) {
      const text = translated[key];
      assert.equal(typeof text, typeof english, `${name} ${key}`);
      if (typeof english !== 'string' || typeof text !== 'string') continue;
      assert.ok(text.trim(), `${name} ${key} is empty`);
      assert.deepEqual(slots(text), slots(english), `${name} ${key}: its {places}`);
      if (text === english) assert.ok(SAME_WORDS.has(key), `${name} ${key} is still in English: "${text}"`);
    }
  }
});

describe('explorer in three languages (browser)', () => {
  const server = useServer(store);
  let browser: Browser;
  const open = async (locale: string) => (await browser.newContext({ locale, viewport: { width: 1280, height: 900 } })).newPage();
  const amountCells = async (page: Page) => {
    const column = await page.locator('main thead th').evaluateAll((cells) => cells.findIndex((cell) => (cell as unknown as { dataset: { field: string } }).dataset.field === 'amount'));
    return page.locator('main tbody tr').locator(`td:nth-child(${column + 1})`).allInnerTexts();
  };
  const language = (page: Page) => page.evaluate(() => ({ lang: document.documentElement.lang, title: document.title }));

  before(async () => {
    browser = await launchBrowser();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(() => browser?.close());

  test('it speaks the browser\'s language when it speaks it, else English', async () => {
    const cases = [
      ['es-ES', 'es', 'Datos de proyectos', 'Explorador de rsr-api'],
      ['fr-CA', 'fr', 'Données des projets', 'Explorateur rsr-api'],
      ['de-DE', 'en', 'Project data', 'rsr-api explorer'],
    ];
    for (const [locale, lang, heading, title] of cases) {
      const page = await open(locale);
      await page.goto(`${server.base}/`);
      await page.locator('main h1', { hasText: heading }).waitFor();
      assert.deepEqual(await language(page), { lang, title }, locale);
      assert.equal(await page.locator('select[name=language]').inputValue(), lang);
      await page.context().close();
    }
  });

  test('the switch: every text, numbers and dates in the language chosen, remembered; the API\'s own words unchanged', async () => {
    const page = await open('en-US');
    await page.goto(`${server.base}/explore/budget_item/?amount__gte=1000&ordering=-amount`);
    await page.locator('main tbody tr').first().waitFor();
    assert.deepEqual(await amountCells(page), ['1,234,567.89', '1,000.5']);
    await page.locator('[aria-live]', { hasText: '2 records' }).waitFor();

    await page.locator('select[name=language]').selectOption('es');
    await page.getByLabel('Buscar texto').waitFor();
    assert.deepEqual(await language(page), { lang: 'es', title: 'Explorador de rsr-api' });
    await page.locator('[aria-live]', { hasText: '2 registros' }).waitFor();
    // Spanish groups thousands with "." from five digits on (1000,5 is not grouped), decimals after ",".
    assert.deepEqual(await amountCells(page), ['1.234.567,89', '1000,5']);
    await page.getByRole('button', { name: 'Aplicar' }).waitFor();
    await page.getByRole('link', { name: 'Amount: ordenar de forma ascendente' }).waitFor();
    await page.getByRole('group', { name: 'Descargar la lista completa' }).getByRole('button', { name: 'CSV para Excel (;)' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('rsr-api.locale')), 'es');
    await page.screenshot({ path: `${SHOTS}list-es.png` });

    // Remembered: the next visit speaks Spanish, whatever the browser's language.
    await page.reload();
    await page.locator('main h1').waitFor();
    assert.equal((await language(page)).lang, 'es');
    await page.locator('nav', { hasText: 'Listas' }).waitFor();

    await page.locator('select[name=language]').selectOption('fr');
    await page.locator('[aria-live]', { hasText: '2 enregistrements' }).waitFor();
    assert.deepEqual(await language(page), { lang: 'fr', title: 'Explorateur rsr-api' });
    // French groups with a narrow no-break space.
    assert.deepEqual(await amountCells(page), ['1\u202f234\u202f567,89', '1\u202f000,5']);
    await page.getByLabel('Rechercher un texte').waitFor();
    await page.screenshot({ path: `${SHOTS}list-fr.png` });

    // A record: a date in French ("1 janv. 2023"), the fields' titles as the API gives them.
    await page.goto(`${server.base}/explore/budget_item/1/`);
    const start = new Date('2023-01-01T00:00:00Z').toLocaleDateString('fr', { dateStyle: 'medium', timeZone: 'UTC' });
    await page.locator('dd[data-field=period_start]', { hasText: start }).waitFor();
    assert.match(start, /janv/);
    await page.locator('dt', { hasText: 'Period start' }).waitFor();
    await page.locator('dd[data-field=project] a', { hasText: 'Projet 1' }).waitFor();

    // The API's message stays its own; the explorer's button around it is French.
    await page.goto(`${server.base}/explore/budget_item/999999/`);
    const failure = page.getByRole('alert');
    await failure.filter({ hasText: 'Not found.' }).waitFor();
    await failure.getByRole('button', { name: 'Réessayer' }).waitFor();

    // Headings of the other views.
    await page.goto(`${server.base}/`);
    await page.locator('main h1', { hasText: 'Données des projets' }).waitFor();
    await page.goto(`${server.base}/explore/charts/`);
    await page.locator('main h1', { hasText: 'Graphiques' }).waitFor();
    await page.locator('figure[data-chart="budget-label"] figcaption', { hasText: 'Budget par libellé' }).waitFor();
    await page.locator('figure[data-chart="budget-label"] g[aria-label="x-axis label"]', { hasText: 'Montant (EUR)' }).waitFor();
    await page.screenshot({ path: `${SHOTS}charts-fr.png`, fullPage: true });
    await page.goto(`${server.base}/explore/reports/`);
    await page.locator('main h1', { hasText: 'Rapports' }).waitFor();
    await page.locator('.notice', { hasText: 'connectez-vous' }).waitFor();

    await page.locator('select[name=language]').selectOption('en');
    await page.locator('main h1', { hasText: 'Reports' }).waitFor();
    assert.equal((await language(page)).lang, 'en');
    await page.context().close();
  });
});
