// Leaves in node_modules what the compiled service (dist/, `npm run build`) runs with, and no
// more: the Dockerfile's build stage runs it, and test/install.test.ts serves from what it leaves.
//   - no dev dependencies (npm prune --omit=dev);
//   - no tsx, which runs the TypeScript sources, and no pino-pretty (LOG_FORMAT=pretty, for a
//     person at a terminal) when the build loads it only on demand: both leave package.json's
//     dependencies here, so that npm prune takes them and what only they use;
//   - of the @fontsource packages' font files, only those the PDF reports embed (FONTS in
//     dist/src/reports/pdf/fonts.js: two weights of a few scripts, as .woff), about 70 MB less;
//   - of better-sqlite3, the compiled module only: not SQLite's sources nor the compiler's
//     intermediate files (about 25 MB).
// Run in the folder to prune, after `npm run build`: `node scripts/prune-production.mjs`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const fonts = join(root, 'dist/src/reports/pdf/fonts.js');
if (!existsSync(fonts)) throw new Error(`${fonts} is missing: run \`npm run build\` first`);

function size(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0);
}
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const before = size(join(root, 'node_modules'));

/** Whether some compiled module imports the package when it loads (a static import). */
function importedStatically(name, dir = join(root, 'dist')) {
  const pattern = new RegExp(`(^|\\n)\\s*(import|export)\\b[^;]*?from\\s*['"]${name}['"]|(^|\\n)\\s*import\\s*['"]${name}['"]`);
  return readdirSync(dir, { withFileTypes: true }).some((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return importedStatically(name, path);
    return entry.name.endsWith('.js') && pattern.test(readFileSync(path, 'utf8'));
  });
}

const manifestFile = join(root, 'package.json');
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const dropped = ['tsx', 'pino-pretty'].filter((name) => name in (manifest.dependencies ?? {}) && !importedStatically(name));
for (const name of dropped) delete manifest.dependencies[name];
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
execFileSync('npm', ['prune', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

const { FONTS } = await import(pathToFileURL(fonts).href);
const used = new Set(Object.values(FONTS).flatMap((files) => Object.values(files)).map((file) => resolve(file)));
let removed = 0;
const fontsource = join(root, 'node_modules/@fontsource');
for (const name of existsSync(fontsource) ? readdirSync(fontsource) : []) {
  const dir = join(fontsource, name, 'files');
  for (const file of existsSync(dir) ? readdirSync(dir) : []) {
    const path = join(dir, file);
    if (!used.has(resolve(path))) {
      removed += statSync(path).size;
      rmSync(path);
    }
  }
}

// better-sqlite3 loads build/Release/better_sqlite3.node; the rest was the compiler's.
const sqlite = join(root, 'node_modules/better-sqlite3');
const module = join(sqlite, 'build/Release/better_sqlite3.node');
if (existsSync(module)) {
  const compiled = readFileSync(module);
  for (const dir of ['deps', 'src', 'build']) {
    removed += size(join(sqlite, dir));
    rmSync(join(sqlite, dir), { recursive: true, force: true });
  }
  mkdirSync(dirname(module), { recursive: true });
  writeFileSync(module, compiled);
  removed -= compiled.length;
}

const kept = [...used].filter((file) => file.includes('@fontsource')).length;
process.stderr.write(`node_modules: ${mb(before)} -> ${mb(size(join(root, 'node_modules')))}; dev dependencies${dropped.map((name) => `, ${name}`).join('')} pruned; ${mb(removed)} of unused font files and better-sqlite3's build files removed (${kept} font files kept)\n`);
