/**
 * Pages that defend themselves (src/http/page-security.ts). Every page and the files pages load
 * (the explorer, the page offered on an API address, /docs/, a report's HTML preview) carry
 * exactly the security headers: a Content-Security-Policy without 'unsafe-inline' (the only inline
 * styles allowed are those named by hash, each checked here against the page's own text),
 * nosniff, no Referer, no framing. What programs read (JSON, XML, CSV, YAML, report files) carries
 * none of them, and its headers and bytes are the same after pages were served as before.
 *
 * Then, in a real browser (Debian's chromium through playwright-core), every view of the
 * explorer, /docs/ with an operation run from the page, the page offered on an API address and
 * a report preview: not one CSP violation (the `securitypolicyviolation` events and the console
 * are watched, and the watch is shown to see one when there is one), and each page still works,
 * the styles the policy allows by hash applied.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SWAGGER_UI_STYLES } from '../src/http/docs.ts';
import { createToken } from '../src/store/users.ts';
import { ARTIFACTS, external, launchBrowser } from './support/browser.ts';
import { request, testStores, useServer, type Answer } from './support/server.ts';

type Dom = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- elements in the page (the tests have no DOM types)
declare const document: Dom;
declare const getComputedStyle: (element: Dom) => Record<string, string>;

const [store] = testStores();
const BUILT = new URL('../dist/explorer/index.html', import.meta.url).pathname;

/** The policy, written out: a change to it is a change to this test. */
const POLICY = (styleHashes: readonly string[] = []) =>
  [
    "default-src 'self'", "script-src 'self'", `style-src ${["'self'", ...styleHashes].join(' ')}`, "img-src 'self' data:", "connect-src 'self'",
    "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join(';');
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
/** The text of each inline `<style>` element of a page. */
const inlineStyles = (html: string) => [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1]);

/** Every header helmet can send, and those we send: a page carries exactly the four, an API answer none. */
const SECURITY_HEADERS = [
  'content-security-policy', 'content-security-policy-report-only', 'x-content-type-options', 'referrer-policy', 'x-frame-options',
  'strict-transport-security', 'cross-origin-opener-policy', 'cross-origin-resource-policy', 'cross-origin-embedder-policy', 'origin-agent-cluster',
  'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection', 'permissions-policy',
];
const securityHeaders = (answer: Answer) => Object.fromEntries(SECURITY_HEADERS.flatMap((name) => (answer.headers.has(name) ? [[name, answer.headers.get(name)]] : [])));
const pageHeaders = (styleHashes: readonly string[] = []) => ({
  'content-security-policy': POLICY(styleHashes),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

/** A browser's navigation to an address (what the page offered on an API address answers). */
const NAVIGATION = { 'sec-fetch-dest': 'document', accept: 'text/html,application/xhtml+xml' };

describe('pages that defend themselves', () => {
  const server = useServer(store);
  let browser: Browser;
  let key: string;
  const auth = () => ({ authorization: `Token ${key}` });
  const requested: string[] = [];

  before(async () => {
    assert.ok(existsSync(BUILT), 'the explorer is built (npm run build:explorer; npm install does it)');
    key = await createToken(server.engine, 'ana@example.org');
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  describe('headers', () => {
    /** What programs read, and the header names each was sent with before pages had headers. */
    const API: [path: string, headers: () => Record<string, string>, names: string][] = [
      ['/rest/v1/budget_item/', () => ({}), 'allow content-length content-type etag vary'],
      ['/rest/v1/budget_item/', () => ({ accept: 'text/html' }), 'allow content-length content-type etag vary'],
      ['/rest/v1/budget_item/?format=xml', () => ({}), 'allow content-length content-type etag vary'],
      ['/rest/v1/budget_item/?format=csv', () => ({}), 'allow content-disposition content-length content-type etag vary'],
      ['/rest/v1/budget_item/1/', () => ({}), 'allow content-length content-type etag vary'],
      ['/rest/v1/budget_item/?format=json', () => NAVIGATION, 'allow content-length content-type etag vary'],
      ['/rest/v1/', () => ({}), 'content-length content-type etag vary'],
      ['/rest/v1/openapi.json', () => ({}), 'content-length content-type etag vary'],
      ['/docs/json', () => ({}), 'content-length content-type'],
      ['/docs/yaml', () => ({}), 'content-length content-type'],
      ['/explorer/api/names/project/', () => ({}), 'content-length content-type etag vary'],
      ['/explorer/api/projects/1/results/', () => ({}), 'content-length content-type etag vary'],
      ['/rest/v1/no_such_list/', () => ({}), 'content-length content-type vary'],
      ['/assets/no-such-file.js', () => ({}), 'content-length content-type vary'],
      ['/py-reports/project/1/results-indicators-overview/?format=pdf', auth, 'content-disposition content-length content-type etag vary'],
      ['/py-reports/project/1/results-indicators-table/?format=excel', auth, 'content-disposition content-length content-type etag vary'],
    ];
    /** Every answer carries these (CORS, the request id, the connection's). */
    const EVERY = ['access-control-allow-origin', 'access-control-expose-headers', 'connection', 'date', 'keep-alive', 'x-request-id'];
    const ask = (path: string, headers: Record<string, string>) => request(server.base, path, { headers });
    const firsts = new Map<string, Answer>();

    test('API answers, before any page was asked for: the headers they had, none of a page', async () => {
      for (const [path, headers, names] of API) {
        const answer = await ask(path, headers());
        assert.equal(answer.status, /no[-_]such/.test(path) ? 404 : 200, path);
        assert.deepEqual(securityHeaders(answer), {}, path);
        assert.deepEqual([...answer.headers.keys()].sort(), [...EVERY, ...names.split(' ')].sort(), path);
        firsts.set(`${path} ${JSON.stringify(headers())}`, answer);
      }
    });

    test('the explorer\'s page at every address, its assets, a 304: the page headers', async () => {
      const page = await request(server.base, '/');
      assert.deepEqual(inlineStyles(page.text), []);
      assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=/i, 'no inline script, style attribute or handler');
      assert.deepEqual(securityHeaders(page), pageHeaders());
      assert.deepEqual(securityHeaders(await request(server.base, '/explore/budget_item/1/')), pageHeaders());
      assert.deepEqual(securityHeaders(await request(server.base, '/', { headers: { 'if-none-match': page.headers.get('etag')! } })), pageHeaders());
      const assets = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
      assert.deepEqual(assets.map((asset) => asset.split('.').pop()).sort(), ['css', 'js']);
      for (const asset of assets) {
        const file = await request(server.base, asset, { headers: { 'accept-encoding': 'br' } });
        assert.equal(file.status, 200);
        assert.deepEqual(securityHeaders(file), pageHeaders(), asset);
      }
    });

    test('the page offered on an API address: its one stylesheet allowed by its hash', async () => {
      const page = await request(server.base, '/rest/v1/budget_item/?ordering=-amount', { headers: NAVIGATION });
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      const styles = inlineStyles(page.text);
      assert.equal(styles.length, 1);
      assert.deepEqual(securityHeaders(page), pageHeaders(styles.map(hashOf)));
      assert.doesNotMatch(page.text, /<script|\sstyle=/i);
    });

    test('/docs/ and every file Swagger UI serves for it: the page headers, its logo\'s colours allowed by their hash', async () => {
      const expected = pageHeaders(SWAGGER_UI_STYLES.map(hashOf));
      const page = await request(server.base, '/docs/');
      assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/i, 'no inline script or style');
      assert.deepEqual(securityHeaders(page), expected);
      assert.deepEqual(securityHeaders(await request(server.base, '/docs')), expected);
      const files = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1], `${server.base}/docs/`).pathname);
      assert.ok(files.length >= 5, files.join(' '));
      for (const path of [...files, '/docs/static/oauth2-redirect.html', '/docs/static/oauth2-redirect.js']) {
        const file = await request(server.base, path);
        assert.equal(file.status, 200, path);
        assert.deepEqual(securityHeaders(file), expected, path);
      }
      // The Swagger UI's own text holds the style allowed by hash, as it is written here.
      const preset = readFileSync(new URL('../node_modules/@fastify/swagger-ui/static/swagger-ui-standalone-preset.js', import.meta.url), 'utf8');
      for (const style of SWAGGER_UI_STYLES) assert.ok(preset.includes(JSON.stringify(style)), style);
    });

    test('a report\'s HTML preview: the page headers, its stylesheet by hash, no style attribute; the report file none', async () => {
      for (const path of ['/py-reports/project/1/results-indicators-overview/?format=pdf&show-html=1', '/py-reports/program/5/program-overview/?format=pdf&show-html=1']) {
        const preview = await request(server.base, path, { headers: auth() });
        assert.equal(preview.status, 200, path);
        assert.equal(preview.headers.get('content-type'), 'text/html; charset=utf-8');
        const styles = inlineStyles(preview.text);
        assert.equal(styles.length, 1);
        assert.deepEqual(securityHeaders(preview), pageHeaders(styles.map(hashOf)));
        assert.doesNotMatch(preview.text, /<script|\sstyle=/i);
      }
      assert.match((await request(server.base, '/py-reports/project/1/results-indicators-overview/?format=pdf&show-html=1', { headers: auth() })).text, /<rect class="medium" width="50%" height="100%"\/>/);
    });

    test('API answers again, after the pages (a cached answer now for most): the same headers and bytes', async () => {
      for (const [path, headers] of API) {
        const first = firsts.get(`${path} ${JSON.stringify(headers())}`)!;
        const again = await ask(path, headers());
        // A report is made anew (its creation time is in the file); everything else is the same bytes.
        const varying = path.startsWith('/py-reports/') ? ['date', 'x-request-id', 'etag', 'content-length'] : ['date', 'x-request-id'];
        const comparable = (answer: Answer) => [...answer.headers].filter(([name]) => !varying.includes(name));
        assert.deepEqual(comparable(again), comparable(first), path);
        if (!path.startsWith('/py-reports/')) assert.equal(again.text, first.text, path);
      }
    });
  });

  describe('in a browser: no CSP violation, and the pages work', () => {
    /** Every CSP violation any page reported: its events (an init script reports them) and the console's words. */
    const violations: string[] = [];
    const failures: string[] = [];
    const open = async (headers: Record<string, string> = {}): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: headers });
      // Run before any of the page's scripts, in every document; not itself under the page's policy.
      await context.addInitScript({
        content: "document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`));",
      });
      const page = await context.newPage();
      page.on('request', (outgoing) => requested.push(outgoing.url()));
      page.on('console', (message) => {
        if (/content security policy|CSP violation/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => failures.push(`${page.url()}: ${error.message}`));
      return { context, page };
    };
    const computed = (page: Page, selector: string, property: string) => page.locator(selector).first().evaluate((element: Dom, name: string) => getComputedStyle(element)[name], property);
    const signIn = async (page: Page) => {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('API token').fill(key);
      await page.locator('form.sign-in button[type=submit]').click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    };
    const settle = async (page: Page) => {
      await page.waitForLoadState('networkidle');
      // A violation is reported as a task after the element that caused it.
      await page.waitForTimeout(100);
    };

    test('the watch sees a violation when there is one', async () => {
      const { context, page } = await open();
      await page.goto(`${server.base}/explore/budget_item/`);
      await page.locator('main tbody tr').first().waitFor();
      await page.evaluate(() => {
        const style = document.createElement('style');
        style.textContent = 'body { color: red; }';
        document.head.append(style);
      });
      await settle(page);
      const seen = violations.splice(0);
      // Seen twice: the event, and Chromium's own words in the console.
      assert.ok(seen.some((line) => /CSP violation: style-src-elem inline/.test(line)), seen.join('\n'));
      assert.ok(seen.some((line) => /Applying inline style violates the following Content Security Policy directive/.test(line)), seen.join('\n'));
      assert.notEqual(await computed(page, 'body', 'color'), 'rgb(255, 0, 0)', 'the inline style was not applied');
      await context.close();
    });

    test('every view of the explorer, signed in and not', async () => {
      const { context, page } = await open();
      const rows = page.locator('main tbody tr');
      await page.goto(`${server.base}/`);
      await page.locator('[data-count="budget_item"]', { hasText: /\d/ }).waitFor();
      // A list, ordered by a click on a column header; a record and its links.
      await page.goto(`${server.base}/explore/budget_item/?limit=3`);
      await rows.first().waitFor();
      await page.locator('th a', { hasText: 'Amount' }).click();
      await page.waitForURL('**/explore/budget_item/?limit=3&ordering=amount');
      await page.goto(`${server.base}/explore/budget_item/1/`);
      await page.locator('dd[data-field=project] a').click();
      await page.waitForURL('**/explore/project/1/');
      // A project: its title, its results drawn with Plot's legend (Plot's <style> rules, from style.css).
      await page.locator('main h1', { hasText: 'Water for Kisumu' }).waitFor();
      await page.locator('figure[data-indicator="0"] svg g[aria-label="bar"] rect').first().waitFor();
      assert.equal(await computed(page, 'figure[data-indicator="0"] svg.plot-drawing', 'display'), 'block');
      assert.equal(await computed(page, 'figure[data-indicator="0"] .plot-drawing-swatches', 'display'), 'flex');
      assert.equal(await page.locator('.plot style').count(), 0, 'no <style> element left in a drawing');
      await settle(page);
      // The charts: every one drawn (a stacked chart's legend, coloured through element.style, is
      // drawn on test/charts.test.ts's larger dataset, its colours checked there).
      await page.goto(`${server.base}/explore/charts/`);
      for (const chart of ['budget-label', 'budget-year', 'transactions', 'regions', 'targets']) {
        await page.locator(`figure[data-chart="${chart}"] svg g[aria-label="bar"] rect`).first().waitFor();
      }
      assert.equal(await computed(page, 'figure[data-chart="budget-year"] svg', 'max-width'), '100%');
      await page.screenshot({ path: `${ARTIFACTS}csp-charts.png`, fullPage: true });
      await settle(page);
      // Nothing there; the reports page before signing in.
      await page.goto(`${server.base}/explore/no_such_list/`);
      await page.locator('main h1', { hasText: 'Not found' }).waitFor();
      await page.goto(`${server.base}/explore/reports/`);
      await page.locator('.notice', { hasText: 'sign in' }).waitFor();
      // Signed in: a report downloaded from its form, a record's edit form, a new record's.
      await signIn(page);
      const form = page.locator('form[data-report="results-framework"]');
      await form.locator('input[name=project]').fill('Water for Kisumu (#1)');
      const [file] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download' }).click()]);
      assert.match(file.suggestedFilename(), /\.pdf$/);
      await form.locator('.success', { hasText: file.suggestedFilename() }).waitFor();
      await page.goto(`${server.base}/explore/link/1/`);
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Caption').waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.goto(`${server.base}/explore/link/new/`);
      await page.getByLabel('Url').waitFor();
      await settle(page);
      await context.close();
      assert.deepEqual(violations, []);
      assert.deepEqual(failures, []);
    });

    test('/docs/: the reference renders, an operation opens and runs from the page', async () => {
      const { context, page } = await open();
      await page.goto(`${server.base}/docs/`);
      await page.locator('.opblock-tag-section').first().waitFor();
      // The logo @fastify/swagger-ui puts in the top bar (an image from a data: URL) in place of
      // Swagger UI's own, whose inline <style> (allowed by its hash) is drawn first.
      await page.locator('.topbar img[src^="data:image/svg+xml"]').waitFor();
      await page.locator('#operations-tag-budget_item').click();
      const operation = page.locator('#operations-budget_item-budget_item_read');
      await operation.click();
      const tryItOut = operation.locator('button.try-out__btn');
      if ((await tryItOut.innerText()).trim() === 'Try it out') await tryItOut.click();
      await operation.locator('input[placeholder="id"]').fill('1');
      await operation.locator('button.execute').click();
      const body = operation.locator('.responses-wrapper .live-responses-table .highlight-code');
      await body.first().waitFor();
      assert.match(await body.first().innerText(), /"id": 1/);
      await page.screenshot({ path: `${ARTIFACTS}csp-docs.png` });
      await settle(page);
      await context.close();
      assert.deepEqual(violations, []);
      assert.deepEqual(failures, []);
    });

    test('the page offered on an API address: styled by its hashed stylesheet, its link to the explorer works', async () => {
      const { context, page } = await open();
      await page.goto(`${server.base}/rest/v1/budget_item/?ordering=-amount`);
      assert.equal(await computed(page, 'body', 'max-width'), '640px', 'its stylesheet applied');
      await page.locator('#explorer').click();
      await page.waitForURL('**/explore/budget_item/?ordering=-amount');
      await page.locator('main tbody tr').first().waitFor();
      await settle(page);
      await context.close();
      assert.deepEqual(violations, []);
      assert.deepEqual(failures, []);
    });

    test('a report preview: its stylesheet applied (by hash), its bars drawn without a style attribute', async () => {
      const { context, page } = await open(auth());
      await page.goto(`${server.base}/py-reports/project/1/results-indicators-overview/?format=pdf&show-html=1`);
      await page.locator('h1', { hasText: 'Water for Kisumu' }).waitFor();
      assert.equal(await computed(page, 'h1', 'color'), 'rgb(31, 95, 139)', 'its stylesheet applied');
      const bar = page.locator('svg.bar rect').first();
      assert.equal(await bar.evaluate((element: Dom) => getComputedStyle(element).fill), 'rgb(224, 165, 38)', 'a medium grade, coloured');
      const [rect, box] = await Promise.all([bar.boundingBox(), page.locator('svg.bar').first().boundingBox()]);
      assert.ok(rect && box && Math.abs(rect.width - box.width / 2) < 1, `half the bar: ${rect?.width} of ${box?.width}`);
      await page.screenshot({ path: `${ARTIFACTS}csp-report-preview.png`, fullPage: true });
      await settle(page);
      await context.close();
      assert.deepEqual(violations, []);
      assert.deepEqual(failures, []);
    });

    test('not one request left the server', () => {
      assert.ok(requested.length > 30, `${requested.length} requests recorded`);
      assert.deepEqual(external(requested, server.base), []);
    });
  });
});
