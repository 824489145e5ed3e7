/**
 * The README as a newcomer meets it, and the documents it leads to:
 *
 * - The quick start comes first and runs as written: `npm start` (after `npm install`, which the
 *   checkout has done) from the repository's root, on a fresh database and a free port, answers;
 *   the README's first request, run with the real curl, answers what the README shows.
 * - Every relative link of README.md and docs/*.md leads to a file of the repository (and to a
 *   heading of it, for a link with `#`); none leads outside the repository.
 * - The documents name nothing a newcomer does not have: no path outside the repository, no
 *   internal shorthand (decision numbers, issue numbers).
 * - The recipes quoted in docs/recipes.md are their files, byte for byte.
 * - The small dataset of docs/dataset.md imports, and exports as it was written.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from './support/cli.ts';

const ROOT = resolve(new URL('../', import.meta.url).pathname);
const DOCUMENTS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Markdown without its fenced code blocks (their lines kept blank, so line numbers hold). */
const withoutCode = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ''));

/** The anchor GitHub gives a heading: lower case, punctuation gone, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeated ones. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]);
    const times = seen.get(base) ?? 0;
    seen.set(base, times + 1);
    found.add(times === 0 ? base : `${base}-${times}`);
  }
  return found;
}

interface Link {
  where: string;
  target: string;
}

/** Markdown links and images, and HTML `src` and `href`, outside code. */
function links(markdown: string, file: string): Link[] {
  const text = withoutCode(markdown).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
  const line = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
  return [
    ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => ({ where: line(match.index), target: match[1] })),
    ...[...text.matchAll(/<(?:img|a)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((match) => ({ where: line(match.index), target: match[1] })),
  ];
}

/** A fenced block's body: the first block of `language` after `start` in `markdown`. */
function blockAfter(markdown: string, start: number, language: string): { body: string; end: number } {
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm');
  fence.lastIndex = start;
  const match = fence.exec(markdown);
  assert.ok(match, `a ${language} block after position ${start}`);
  return { body: match[1], end: match.index + match[0].length };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('the README quick start, run as written', () => {
  const readme = read('README.md');
  const [quickStart] = readme.matchAll(/^```sh\n([\s\S]*?)^```/gm);
  const commands = quickStart[1].split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean);
  let started: ChildProcess | undefined;
  let output = '';
  const dir = mkdtempSync(join(tmpdir(), 'rsr-readme-'));

  after(async () => {
    if (started && started.exitCode === null && started.signalCode === null) {
      const ended = new Promise((done) => started!.once('close', done));
      // npm, the shell it runs and the service: the process group this test started.
      process.kill(-started.pid!, 'SIGTERM');
      await ended;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('comes first: installing and starting, then testing, before any section', () => {
    assert.ok(quickStart.index < readme.indexOf('\n## '), 'the quick start is above the first section');
    assert.deepEqual(commands, ['npm install && npm start', 'npm test']);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    assert.match(scripts.start, /serve --demo/);
    assert.ok(scripts.test, 'npm test is a script');
    assert.ok(existsSync(join(ROOT, 'node_modules')), 'npm install has been run in this checkout');
  });

  test('npm start serves the demo, and the first request answers what the README shows', async () => {
    const start = commands[0].split('&&').map((part) => part.trim());
    assert.deepEqual(start, ['npm install', 'npm start']);
    const port = await freePort();
    started = spawn('sh', ['-c', start[1]], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'rsr.sqlite')}`, WORKERS: '2', SHUTDOWN_TIMEOUT: '5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://localhost:${port}`;
    const deadline = Date.now() + 240_000;
    for (;;) {
      assert.equal(started.exitCode, null, `npm start ended: ${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((answer) => answer.status, () => 0);
      if (ready === 200) break;
      assert.ok(Date.now() < deadline, `npm start did not answer within four minutes: ${output}`);
      await new Promise((done) => setTimeout(done, 500));
    }
    assert.match(output, /Demo users/, 'the demo users are made');

    const curlAt = readme.indexOf('\ncurl ', quickStart.index) + 1;
    const curlLine = readme.slice(curlAt, readme.indexOf('\n', curlAt));
    const shown = blockAfter(readme, curlAt, 'json').body;
    const local = (text: string) => text.replaceAll('http://localhost:8000', base);
    const answered = await run('bash', ['-c', `${local(curlLine)} --silent --show-error --fail`]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.deepEqual(JSON.parse(answered.stdout), JSON.parse(local(shown)), 'the answer the README shows');
  });
});

describe('the links of README.md and docs/*.md', () => {
  for (const file of DOCUMENTS) {
    test(`${file}: every relative link leads to a file or heading of the repository`, () => {
      const markdown = read(file);
      const found = links(markdown, file);
      assert.ok(file !== 'README.md' || found.length >= 8, `${file} links to the documents`);
      for (const { where, target } of found) {
        if (/^(https?|mailto):/i.test(target)) continue;
        assert.doesNotMatch(target, /^[a-z][a-z0-9+.-]*:/i, `${where}: ${target} is no link into the repository`);
        assert.ok(!target.startsWith('/'), `${where}: ${target} names a path from the root of a host, not of the repository`);
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
        const inside = relative(ROOT, resolved);
        assert.ok(!inside.startsWith('..') && !inside.startsWith('/'), `${where}: ${target} leads outside the repository`);
        assert.ok(existsSync(resolved), `${where}: ${target}: no such file`);
        if (anchor !== undefined) {
          assert.ok(statSync(resolved).isFile() && resolved.endsWith('.md'), `${where}: ${target}: an anchor of a Markdown file`);
          assert.ok(anchors(readFileSync(resolved, 'utf8')).has(anchor), `${where}: ${target}: no heading '${anchor}' in ${inside}`);
        }
      }
    });
  }

  test('the README leads to every document of docs/', () => {
    const targets = new Set(links(read('README.md'), 'README.md').map((link) => link.target.split('#')[0]));
    for (const file of DOCUMENTS.filter((name) => name.startsWith('docs/'))) assert.ok(targets.has(file), `README.md links to ${file}`);
  });

  test('no document names a path outside the repository or internal shorthand', () => {
    for (const file of DOCUMENTS) {
      const text = read(file);
      for (const [pattern, what] of [
        [/\.\.\/shared\b/, 'a path outside the repository'],
        [/\bD\d{1,2}\b/, 'a decision number'],
        [/\bissue\s+\d+/i, 'an issue number'],
      ] as const) {
        const match = pattern.exec(text);
        assert.equal(match, null, `${file}:${match ? text.slice(0, match.index).split('\n').length : 0}: ${what} (${match?.[0]})`);
      }
    }
  });

  test('the README stays short', () => {
    assert.ok(read('README.md').split('\n').length <= 160, 'README.md is at most 160 lines');
  });
});

describe('what the documents quote and show', () => {
  test('the recipes quoted in docs/recipes.md are their files', () => {
    const recipes = read('docs/recipes.md');
    const quoted = [...recipes.matchAll(/^\[`[^`]+`\]\((recipes\/[^)]+)\):\n\n```[\w-]*\n([\s\S]*?)^```/gm)];
    assert.deepEqual(quoted.map((match) => match[1]).sort(), ['recipes/httr2_budget.R', 'recipes/pandas_budget.py', 'recipes/power_query_budget.m', 'recipes/typescript/budget.ts']);
    for (const [, path, body] of quoted) assert.equal(body, read(`docs/${path}`), `docs/recipes.md quotes docs/${path} as it is`);
  });

  test('the small dataset of docs/dataset.md imports, and exports as it was written', async () => {
    const dataset = read('docs/dataset.md');
    const files = [...dataset.matchAll(/^\*\*`([a-z_]+\.json)`\*\*\n\n```json\n([\s\S]*?)^```/gm)];
    assert.ok(files.length >= 3, 'the small dataset has its files');
    const dir = mkdtempSync(join(tmpdir(), 'rsr-dataset-'));
    try {
      const source = join(dir, 'small');
      mkdirSync(source);
      for (const [, name, body] of files) writeFileSync(join(source, name), body);
      const env = { DATABASE_URL: `sqlite:${join(dir, 'small.sqlite')}` };
      const imported = await runCli(['import', source], env);
      assert.equal(imported.code, 0, imported.stderr);
      const said = /^\$ npx rsr-api import \.\/small\n(.+)$/m.exec(dataset)?.[1];
      assert.ok(said, 'docs/dataset.md shows what the import says');
      assert.ok(imported.stderr.includes(said.replace('./small', source)), `the import says ${said}: ${imported.stderr}`);
      const exported = await runCli(['export', join(dir, 'out')], env);
      assert.equal(exported.code, 0, exported.stderr);
      for (const [, name, body] of files) {
        const written = JSON.parse(body) as Record<string, unknown>[];
        const back = JSON.parse(readFileSync(join(dir, 'out', name), 'utf8')) as Record<string, unknown>[];
        assert.equal(back.length, written.length, name);
        // Every value the dataset gave comes back as it was given; the rest are defaults and derived fields.
        written.forEach((record, index) => assert.deepEqual(Object.fromEntries(Object.keys(record).map((key) => [key, back[index][key]])), record, `${name}[${index}]`));
      }
      const budget = JSON.parse(readFileSync(join(dir, 'out', 'budget_item.json'), 'utf8')) as Record<string, unknown>[];
      for (const [field, value] of [...dataset.matchAll(/`"(currency_label|label_label)": "([^"]+)"`/g)].map((match) => [match[1], match[2]])) {
        assert.ok(budget.some((record) => record[field] === value), `an exported budget item has ${field} ${value}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
