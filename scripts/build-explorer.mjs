// npm's `prepare` (after `npm ci`, before `npm pack`): builds the explorer into dist/explorer/
// with Vite, a dev dependency. A production install (`npm ci --omit=dev`) has no Vite: it says so
// and goes on, and the server then answers the explorer's pages with 503 "not built". The image
// and a packed package carry the explorer built where the dev dependencies were installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
let vite;
try {
  const manifest = require.resolve('vite/package.json');
  vite = join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin.vite);
} catch (error) {
  if (error.code !== 'MODULE_NOT_FOUND') throw error;
  process.stderr.write('rsr-api: Vite is not installed (a production install): the explorer is not built. `serve` answers its pages with 503 until dist/explorer/ is there: build it where the dev dependencies are (`npm ci && npm run build:explorer`) and copy dist/explorer/, or use the container image, which carries it.\n');
  process.exit(0);
}
const { status, signal } = spawnSync(process.execPath, [vite, 'build', '--config', 'explorer/vite.config.ts', '--logLevel', 'warn'], { stdio: 'inherit' });
process.exit(status ?? (signal ? 1 : 0));
