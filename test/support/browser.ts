/**
 * A real browser for the end-to-end tests: Debian's chromium driven by playwright-core (no
 * browser is downloaded; `scripts/ensure-chromium.sh` installs it). Every request a page makes
 * is recorded, so a test can say that nothing left the machine.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((path): path is string => Boolean(path));

/** Where screenshots go (not committed; CI keeps them as artifacts). */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((path) => existsSync(path));
  if (!executablePath) throw new Error('No chromium found: install it (apt-get install chromium, or `source scripts/ensure-chromium.sh`) or set CHROMIUM_PATH');
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A fresh page (its own context: no cache, no storage) and the URLs of every request it makes. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; requested: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  return { page, requested };
}

/** The requests that left the server under test (none should). */
export const external = (requested: readonly string[], base: string) => requested.filter((url) => !url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:'));
