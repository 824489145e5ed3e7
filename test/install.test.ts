/**
 * An install without surprises: a production install (`npm ci --omit=dev`, no dev packages) in a
 * copy of the package, with the compiled build beside it (dist/: `npm run build` and the explorer,
 * made where the dev packages are), serves the same bytes as the sources do; npm's `prepare` goes
 * on without Vite; bin/rsr-api.mjs runs no dist/ older than the sources; and what the image keeps
 * (scripts/prune-production.mjs: no tsx, only the fonts the PDF reports embed, better-sqlite3's module without its sources) still serves, PDF
 * and Excel reports included.
 *
 * better-sqlite3 is not compiled again here: `npm ci --ignore-scripts`, then the module this
 * checkout compiled from the same locked version for the same Node is copied in, and `prepare` is
 * run as npm would. INSTALL_TEST_COMPILE=1 runs the whole `npm ci --omit=dev`, compiling (about
 * two minutes more).
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

const REPO = new URL('..', import.meta.url).pathname;
const COMPILE = process.env.INSTALL_TEST_COMPILE === '1';
/** Links in answers are built from the Host header: the same one for both servers. */
const HOST = 'rsr.test';
const LISTS = [
  '/rest/v1/',
  '/rest/v1/link/?format=json&limit=3',
  '/rest/v1/budget_item/?format=json&limit=2&page=3&ordering=-amount',
  '/rest/v1/project_custom_field/?format=json&limit=5',
  '/rest/v1/organisation/?format=csv&limit=20',
  '/rest/v1/transaction/?format=csv&limit=5',
  '/rest/v1/keyword/?format=xml',
  '/api/v1/link/?format=xml&limit=2',
];

/**
 * The environment of a command in the copy: without npm's variables of the `npm test` this runs
 * under (npm_config_local_prefix would point npm at this checkout), but with the headers that
 * node-gyp compiles against (npm_config_nodedir, scripts/with-node.sh).
 */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') || name === 'npm_config_nodedir');
  const clean: NodeJS.ProcessEnv = Object.fromEntries(kept);
  delete clean.RSR_API_FROM_SOURCES;
  return { ...clean, WORKERS: '1', LOG_FORMAT: 'json', ...extra };
}

const run = promisify(execFile);
async function command(file: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: env(extra), maxBuffer: 64 * 2 ** 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function size(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0);
}
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

interface Served {
  base: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `node BIN serve` on a free port, once it says where it listens. */
function serve(bin: string, extra: Record<string, string>): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [bin, 'serve'], { env: env({ PORT: '0', ...extra }), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<void>((done) => child.on('close', () => done()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${output}`));
    }, 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+?)\/rest\/v1\//.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve({
          base: found[1].replace('localhost', '127.0.0.1'),
          output: () => output,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${output}`));
    });
  });
}

interface Got {
  status: number;
  type: string;
  body: Buffer;
}

function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Got> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host: HOST, ...headers } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body: Buffer.concat(chunks) }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('a production install', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'rsr-install-'));
  const app = join(scratch, 'app');
  const bin = join(app, 'bin/rsr-api.mjs');
  const database = (name: string) => `sqlite:${join(scratch, name)}`;
  let installed: { code: number; stdout: string; stderr: string };
  let prepared: { code: number; stdout: string; stderr: string };
  let sources: Served;
  let key = '';

  before(async () => {
    assert.ok(existsSync(join(REPO, 'dist/explorer/index.html')), 'the explorer is built (npm run build:explorer; npm install does it)');
    // The package as npm packs it (package.json's files), with the lock and prepare's script.
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { files: string[] };
    for (const name of ['package.json', 'package-lock.json', 'scripts', ...manifest.files.filter((name) => name !== 'dist')]) {
      cpSync(join(REPO, name), join(app, name), { recursive: true });
    }
    const started = Date.now();
    installed = await command('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', ...(COMPILE ? [] : ['--ignore-scripts'])], app);
    assert.equal(installed.code, 0, installed.stderr);
    if (COMPILE) {
      prepared = installed;
    } else {
      cpSync(join(REPO, 'node_modules/better-sqlite3/build'), join(app, 'node_modules/better-sqlite3/build'), { recursive: true });
      prepared = await command('npm', ['run', 'prepare'], app);
    }
    process.stderr.write(`# npm ci --omit=dev${COMPILE ? '' : ' --ignore-scripts'}: ${((Date.now() - started) / 1000).toFixed(0)} s, node_modules ${mb(size(join(app, 'node_modules')))}\n`);
    // The compiled build, made where the dev packages are: tsc's output and the explorer.
    const built = await command(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(app, 'dist')], REPO);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    cpSync(join(REPO, 'dist/explorer'), join(app, 'dist/explorer'), { recursive: true });
    // Demo data and an administrator's key, by the production install's command line.
    for (const args of [['demo', '--load', '--scale', '0.1'], ['user', 'create', '--email', 'admin@install.test', '--first-name', 'A', '--last-name', 'B', '--admin']]) {
      const done = await command(process.execPath, [bin, ...args], app, { DATABASE_URL: database('installed.sqlite') });
      assert.equal(done.code, 0, done.stderr);
    }
    key = (await command(process.execPath, [bin, 'token', 'create', '--email', 'admin@install.test'], app, { DATABASE_URL: database('installed.sqlite') })).stdout.trim();
    assert.match(key, /^[0-9a-f]{40}$/);
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(join(scratch, `installed.sqlite${suffix}`))) cpSync(join(scratch, `installed.sqlite${suffix}`), join(scratch, `sources.sqlite${suffix}`));
    }
    sources = await serve(join(REPO, 'bin/rsr-api.mjs'), { RSR_API_FROM_SOURCES: '1', DATABASE_URL: database('sources.sqlite') });
  });

  after(async () => {
    await sources?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The lists answered by the installed server, byte for byte as by the sources. */
  async function sameAsSources(installed: Served): Promise<void> {
    for (const path of LISTS) {
      const [mine, theirs] = await Promise.all([get(installed.base, path), get(sources.base, path)]);
      assert.equal(mine.status, 200, `${path}: ${mine.body.toString()}`);
      assert.deepEqual({ status: mine.status, type: mine.type }, { status: theirs.status, type: theirs.type }, path);
      assert.ok(mine.body.equals(theirs.body), `${path}: ${mine.body.length} bytes, from the sources ${theirs.body.length}`);
    }
  }

  test('npm ci --omit=dev installs no dev package, and prepare goes on without Vite, saying the explorer is not built', () => {
    assert.equal(prepared.code, 0, prepared.stderr);
    assert.match(prepared.stdout + prepared.stderr, /Vite is not installed \(a production install\): the explorer is not built/);
    // No deprecated package, and every install script approved or denied (package.json allowScripts).
    assert.doesNotMatch(prepared.stderr, /npm warn (deprecated|install-scripts)/);
    for (const dev of ['vite', 'typescript', 'eslint', 'dependency-cruiser']) assert.equal(existsSync(join(app, 'node_modules', dev)), false, dev);
    for (const needed of ['fastify', 'fastify-plugin', 'better-sqlite3', 'exceljs']) assert.ok(existsSync(join(app, 'node_modules', needed)), needed);
  });

  test('serve runs the compiled build and answers lists byte for byte as the sources do', async () => {
    const installed = await serve(bin, { DATABASE_URL: database('installed.sqlite') });
    try {
      await sameAsSources(installed);
      assert.doesNotMatch(installed.output(), /older than the sources/);
      const page = await get(installed.base, '/');
      assert.equal(page.status, 200);
      assert.match(page.type, /^text\/html/);
    } finally {
      await installed.stop();
    }
  });

  test('without the explorer built (a production install from the repository), its pages answer 503 saying how to build it; the lists serve', async () => {
    const built = join(app, 'dist/explorer');
    renameSync(built, `${built}-away`);
    const installed = await serve(bin, { DATABASE_URL: database('installed.sqlite') });
    try {
      const page = await get(installed.base, '/');
      assert.deepEqual([page.status, page.type, JSON.parse(page.body.toString())], [503, 'application/json', {
        detail: 'The explorer is not built: a production install (npm ci --omit=dev) leaves it out; npm ci, or npm run build:explorer where the dev packages are installed, builds it.',
      }]);
      assert.equal((await get(installed.base, '/rest/v1/keyword/?format=json')).status, 200);
    } finally {
      await installed.stop();
      renameSync(`${built}-away`, built);
    }
  });

  test('a dist/ older than the sources is not run: the sources through tsx instead, or without tsx a refusal that says why', async () => {
    const source = join(app, 'src/cli.ts');
    const { atime, mtime } = statSync(source);
    const tsx = join(app, 'node_modules/tsx');
    try {
      utimesSync(source, atime, new Date(Date.now() + 60_000));
      const throughTsx = await command(process.execPath, [bin, '--version'], app);
      assert.equal(throughTsx.code, 0, throughTsx.stderr);
      assert.equal(throughTsx.stdout.trim(), JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).version);
      assert.match(throughTsx.stderr, /dist\/ is older than the sources \(src\/cli\.ts\): running the sources through tsx/);
      renameSync(tsx, `${tsx}-away`);
      const refused = await command(process.execPath, [bin, '--version'], app);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /^rsr-api: dist\/ is older than the sources \(src\/cli\.ts changed after `npm run build`\), and tsx, which runs the sources, is not installed: run `npm run build`/);
    } finally {
      if (existsSync(`${tsx}-away`)) renameSync(`${tsx}-away`, tsx);
      utimesSync(source, atime, mtime);
    }
  });

  test("the image's pruning (no tsx nor pino-pretty, only the fonts the reports embed) leaves what serves lists, PDF and Excel reports", async () => {
    const fontsBefore = size(join(app, 'node_modules/@fontsource'));
    const modulesBefore = size(join(app, 'node_modules'));
    const pruned = await command(process.execPath, [join(app, 'scripts/prune-production.mjs')], app);
    assert.equal(pruned.code, 0, pruned.stderr);
    process.stderr.write(`# pruned as in the image: node_modules ${mb(modulesBefore)} -> ${mb(size(join(app, 'node_modules')))}, @fontsource ${mb(fontsBefore)} -> ${mb(size(join(app, 'node_modules/@fontsource')))}\n`);
    assert.equal(existsSync(join(app, 'node_modules/tsx')), false);
    assert.equal(existsSync(join(app, 'node_modules/esbuild')), false);
    assert.equal(existsSync(join(app, 'node_modules/pino-pretty')), false);
    assert.equal(existsSync(join(app, 'node_modules/better-sqlite3/deps')), false);
    assert.ok(size(join(app, 'node_modules/@fontsource')) < fontsBefore / 4);
    // Without pino-pretty, pretty logs fall back to JSON lines and say so.
    const installed = await serve(bin, { DATABASE_URL: database('installed.sqlite'), NODE_ENV: 'production', LOG_FORMAT: 'pretty' });
    try {
      assert.match(installed.output(), /rsr-api: LOG_FORMAT=pretty needs the package pino-pretty, which is not installed: logging JSON lines\n/);
      assert.match(installed.output(), /\{"level":30,"time":"[^"]+",.*"msg":"[^"]*listening on http/);
      await sameAsSources(installed);
      const auth = { authorization: `Token ${key}` };
      const project = JSON.parse((await get(installed.base, '/rest/v1/link/?format=json&limit=1')).body.toString()).results[0].project;
      const pdf = await get(installed.base, `/py-reports/project/${project}/results-indicators-overview/?format=pdf`, auth);
      assert.equal(pdf.status, 200, pdf.body.toString());
      assert.equal(pdf.body.subarray(0, 5).toString(), '%PDF-');
      const organisation = JSON.parse((await get(installed.base, '/rest/v1/organisation/?format=json&limit=1')).body.toString()).results[0].id;
      const excel = await get(installed.base, `/py-reports/organisation/${organisation}/results-indicators-table/?format=excel`, auth);
      assert.equal(excel.status, 200, excel.body.toString());
      assert.equal(excel.body.subarray(0, 2).toString(), 'PK');
    } finally {
      await installed.stop();
    }
  });
});
