#!/usr/bin/env node
// Runs the compiled service in dist/ (npm run build) when there is one; in a checkout without it,
// or with RSR_API_FROM_SOURCES=1 (the tests), the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli.js', import.meta.url);
if (existsSync(built) && process.env.RSR_API_FROM_SOURCES !== '1') {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
