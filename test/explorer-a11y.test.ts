/**
 * The explorer checked by axe-core (the accessibility rules browsers' audits use) in a real
 * browser against the real server on the small test dataset: every view (lists, a record, the
 * record form, a project, the charts, the reports, the sign-in form, a failed request, a page that
 * does not exist) in each language the explorer speaks, chosen by the browser's own language.
 * No violation of impact "serious" or "critical" is allowed; the lesser ones are counted in the
 * test's diagnostics. axe is injected as a script: the page's Content-Security-Policy (which
 * runs only the service's own scripts) is bypassed for these pages alone.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createToken } from '../src/store/users.ts';
import { launchBrowser } from './support/browser.ts';
import { testStores, useServer } from './support/server.ts';

// What the functions run in the page see (the tests are type-checked without the DOM's types).
declare const document: { documentElement: { lang: string }; querySelectorAll(selector: string): { length: number } };
declare const axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[]; passes: unknown[] }> };

interface Violation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[] }[];
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const [store] = testStores();
const LANGUAGES = [
  { locale: 'en-GB', lang: 'en' },
  { locale: 'es-ES', lang: 'es' },
  { locale: 'fr-FR', lang: 'fr' },
];

interface View {
  name: string;
  path: string;
  signedIn?: boolean;
  /** Until the view is complete (its requests answered, its drawings drawn), and what to open in it. */
  ready: (page: Page) => Promise<unknown>;
}

/** Until every chart of the page is read and drawn (no chart still loading, no drawing still empty). */
const drawn = (page: Page) => page.waitForFunction(() => document.querySelectorAll('figure').length > 0 && document.querySelectorAll('figure [role=status].muted, .plot:empty').length === 0);

const VIEWS: View[] = [
  { name: 'home', path: '/', ready: (page) => page.locator('ul.cards[data-complete]').waitFor() },
  { name: 'sign-in form', path: '/', ready: async (page) => {
    await page.locator('header button').last().click();
    await page.locator('form.sign-in input').waitFor();
  } },
  { name: 'list', path: '/explore/budget_item/?ordering=-amount', ready: async (page) => {
    await page.locator('main tbody tr').first().waitFor();
    await page.locator('.chooser summary').click();
  } },
  { name: 'list, paged', path: '/explore/organisation/?limit=2', ready: (page) => page.locator('.pager').waitFor() },
  { name: 'list, empty', path: '/explore/my_projects/', ready: (page) => page.locator('.table-wrap p.muted').waitFor() },
  { name: 'record not found (an error, with Retry)', path: '/explore/budget_item/999999/', ready: (page) => page.getByRole('alert').waitFor() },
  { name: 'record', path: '/explore/transaction/1/', ready: (page) => page.locator('dl.record').waitFor() },
  { name: 'project', path: '/explore/project/1/', ready: async (page) => {
    await page.locator('figure[data-indicator] svg').first().waitFor();
    await drawn(page);
  } },
  { name: 'charts', path: '/explore/charts/', ready: async (page) => {
    await drawn(page);
    await page.locator('figure details summary').first().click();
  } },
  { name: 'reports', path: '/explore/reports/', ready: (page) => page.locator('form.report').first().waitFor() },
  { name: 'not found', path: '/explore/nothing-here/', ready: (page) => page.locator('main h1').waitFor() },
  { name: 'list, signed in, its CSV downloaded', path: '/explore/link/', signedIn: true, ready: async (page) => {
    await page.locator('main tbody tr').first().waitFor();
    await page.locator('.downloads button[data-format=csv]').click();
    await page.locator('.download-status.success').waitFor();
  } },
  { name: 'record, signed in', path: '/explore/link/1/', signedIn: true, ready: (page) => page.locator('.actions button').first().waitFor() },
  { name: 'record form (edit)', path: '/explore/link/1/', signedIn: true, ready: async (page) => {
    await page.locator('.actions button').first().click();
    await page.locator('form.record-form').waitFor();
  } },
  { name: 'record form (new)', path: '/explore/link/new/', signedIn: true, ready: (page) => page.locator('form.record-form').waitFor() },
  { name: 'reports, signed in', path: '/explore/reports/', signedIn: true, ready: (page) => page.locator('form.report').first().waitFor() },
];

/** Counts of violations by impact, per view: what the diagnostics report. */
const tally = (violations: Violation[]) => violations.reduce<Record<string, number>>((counts, { impact }) => ({ ...counts, [impact ?? 'none']: (counts[impact ?? 'none'] ?? 0) + 1 }), {});

describe('explorer accessibility (axe-core, in each language)', () => {
  const server = useServer(store);
  let browser: Browser;
  let admin: string;

  before(async () => {
    browser = await launchBrowser();
    admin = await createToken(server.engine, 'ana@example.org');
  });
  after(() => browser?.close());

  for (const { locale, lang } of LANGUAGES) {
    test(`every view in ${locale}: no serious or critical violation, <html lang="${lang}">`, async (t) => {
      const contexts: BrowserContext[] = [];
      const open = async (signedIn: boolean) => {
        const context = await browser.newContext({ locale, bypassCSP: true, viewport: { width: 1280, height: 900 } });
        if (signedIn) await context.addInitScript((token) => (globalThis as unknown as { sessionStorage: { setItem(key: string, value: string): void } }).sessionStorage.setItem('rsr-api.token', token), admin);
        contexts.push(context);
        return context.newPage();
      };
      const pages = { anonymous: await open(false), signedIn: await open(true) };
      const serious: string[] = [];
      try {
        for (const view of VIEWS) {
          const page = view.signedIn ? pages.signedIn : pages.anonymous;
          await page.goto(`${server.base}${view.path}`);
          await view.ready(page);
          assert.equal(await page.evaluate(() => document.documentElement.lang), lang, view.name);
          await page.addScriptTag({ path: AXE });
          const { violations, passed } = await page.evaluate(() =>
            axe.run(document, { resultTypes: ['violations'] }).then((result) => ({
              violations: result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) })),
              passed: result.passes.length,
            })),
          );
          assert.ok(passed > 10, `${view.name}: axe ran (${passed} rules passed)`);
          t.diagnostic(`${lang} ${view.name}: ${passed} rules passed, violations ${JSON.stringify(tally(violations))}${violations.length ? ` ${violations.map((violation) => `${violation.id}(${violation.impact})`).join(' ')}` : ''}`);
          for (const violation of violations.filter(({ impact }) => impact === 'serious' || impact === 'critical')) {
            serious.push(`${view.name}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 5).join(', ')}`);
          }
        }
      } finally {
        await Promise.all(contexts.map((context) => context.close()));
      }
      assert.deepEqual(serious, []);
    });
  }
});
