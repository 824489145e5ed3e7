#!/usr/bin/env node
// Runs the compiled service in dist/ (npm run build) when it is as new as the sources it was built
// from. Otherwise (no dist/, a source file changed or added since the build, or
// RSR_API_FROM_SOURCES=1 as in the tests) it runs the TypeScript sources through tsx; where tsx
// is not installed either, it says so and exits rather than run a build older than the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`rsr-api: Node.js ${process.versions.node} is too old: it needs Node.js 20.19 or later (20.19+, 22.13+ or 24).\n`);
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const built = new URL('../dist/src/cli.js', import.meta.url);

/**
 * The first source (src/ and demo/, which the build compiles) newer than its compiled file, or
 * without one; null when the build is current. Without src/ (an image carries dist/ only) there
 * is nothing to be older than. Times equal to the second count as current (npm pack stamps every
 * file of a package with one time).
 */
function newerSource(dir = '') {
  let entries;
  try {
    entries = readdirSync(`${root}${dir}`, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      const found = newerSource(path);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const compiled = statSync(`${root}dist${path.slice(0, -3)}.js`, { throwIfNoEntry: false });
      if (!compiled || Math.floor(statSync(`${root}${path}`).mtimeMs / 1000) > Math.floor(compiled.mtimeMs / 1000)) return path.slice(1);
    }
  }
  return null;
}

async function loadTsx() {
  try {
    return await import('tsx/esm/api');
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw error;
  }
}

const fromSources = process.env.RSR_API_FROM_SOURCES === '1';
const stale = fromSources || !existsSync(built) ? null : (newerSource('/src') ?? newerSource('/demo'));
if (existsSync(built) && !fromSources && !stale) {
  await import(built.href);
} else {
  const tsx = await loadTsx();
  if (!tsx) {
    const why = fromSources ? 'RSR_API_FROM_SOURCES=1 asks for the sources' : stale ? `dist/ is older than the sources (${stale} changed after \`npm run build\`)` : 'there is no build in dist/';
    process.stderr.write(`rsr-api: ${why}, and tsx, which runs the sources, is not installed: run \`npm run build\` (or install the dev dependencies).\n`);
    process.exit(1);
  }
  if (stale) process.stderr.write(`rsr-api: dist/ is older than the sources (${stale}): running the sources through tsx; \`npm run build\` updates dist/.\n`);
  tsx.register();
  await import('../src/cli.ts');
}
