/**
 * The interactive API reference at /docs/, in a real browser: it renders the OpenAPI document
 * (every resource's operations, their parameters), runs a request from the page, and asks
 * nothing of any other host (it works offline).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { RESOURCES } from '../src/resources/index.ts';
import { ARTIFACTS, external, launchBrowser, openPage } from './support/browser.ts';
import { request, testStores, useServer } from './support/server.ts';

const [store] = testStores();

describe('API reference at /docs/ (browser)', () => {
  const server = useServer(store);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser.close());

  test('/docs/ is a page whose scripts and styles all come from the server, and each of them answers', async () => {
    const page = await request(server.base, '/docs/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    assert.ok(sources.some((source) => source.endsWith('.js')), sources.join(' '));
    for (const source of sources) {
      assert.doesNotMatch(source, /^(https?:)?\/\//, `${source} is on another host`);
      assert.equal((await request(server.base, new URL(source, `${server.base}/docs/`).pathname)).status, 200, source);
    }
  });

  test('every resource and the reports are shown, an operation runs from the page, and nothing is asked of another host', async () => {
    const { page, requested } = await openPage(browser);
    await page.goto(`${server.base}/docs/`);
    await page.locator('.opblock-tag-section').first().waitFor();
    const tags = await page.locator('.opblock-tag-section h3').allInnerTexts();
    for (const name of [...RESOURCES.map((resource) => resource.name), 'reports']) assert.ok(tags.some((tag) => tag.startsWith(name)), `${name} in ${tags.join(', ')}`);
    await page.screenshot({ path: `${ARTIFACTS}docs-overview.png` });
    // Open the budget item list operation and run it.
    await page.locator('#operations-tag-budget_item').click();
    await page.locator('#operations-budget_item-budget_item_list').click();
    const operation = page.locator('#operations-budget_item-budget_item_list');
    // "Try it out" is on from the start (tryItOutEnabled): the request can be sent at once.
    await operation.locator('button.execute').click();
    const body = operation.locator('.responses-wrapper .live-responses-table .highlight-code');
    await body.first().waitFor();
    assert.match(await body.first().innerText(), /"count": \d+/);
    await page.screenshot({ path: `${ARTIFACTS}docs-try-it.png` });
    assert.deepEqual(external(requested, server.base), []);
    assert.ok(requested.includes(`${server.base}/docs/json`) || requested.includes(`${server.base}/rest/v1/openapi.json`), 'the document was read from the server');
  });
});
