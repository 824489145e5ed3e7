/** The command line a newcomer uses: serve with demo data, demo files, import, export. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { COMMANDS, commandHelp, commandUsage, overallUsage } from '../src/commands/help.ts';
import { DATASET_FILES } from '../src/resources/index.ts';
import { onTerminal, runCli, startCliServer } from './support/cli.ts';
import { FIXTURE, request } from './support/server.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'rsr-cli-'));
/** A progress line in a log: "  link.json: 1,000 records… 40% of 23,400 records". */
const PROGRESS_LINE = /^ {2}.+: [\d,]+ records… \d+% of [\d.,]+ (kB|MB|records)$/;

describe('command line', () => {
  test('serve --demo fills an empty database, says where it listens and how much it holds; keys only to a terminal', async () => {
    const database = `sqlite:${join(scratch(), 'demo.sqlite')}`;
    const server = await startCliServer(['--demo'], { DATABASE_URL: database });
    try {
      assert.match(server.output(), /listening on http:\/\/localhost:\d+\/rest\/v1\/ \(sqlite .*demo\.sqlite: 600 projects\)/);
      const answer = await request(server.base, '/rest/v1/budget_item/?page=2&ordering=-amount');
      assert.equal(answer.status, 200);
      assert.equal(answer.body.results.length, 30);
      // Not a terminal (a log collector): the users are named, their keys are not printed.
      const users = [...server.output().matchAll(/^ {2}(\w[\w ]+?) +(\S+@demo\.rsr-api\.org)$/gm)];
      assert.deepEqual(users.map((match) => match[1]), ['administrator', 'project editor', 'enumerator', 'user']);
      assert.doesNotMatch(server.output(), /Token [0-9a-f]{40}/);
      assert.match(server.output(), /Keys are printed only to a terminal; make one with: rsr-api token create --email admin@demo\.rsr-api\.org/);
      // A key made for the project editor works for a write.
      const key = await runCli(['token', 'create', '--email', 'editor@demo.rsr-api.org'], { DATABASE_URL: database });
      const project = Number(/partner of project (\d+)/.exec(server.output())?.[1]);
      const created = await request(server.base, '/rest/v1/link/', {
        method: 'POST',
        headers: { authorization: `Token ${key.stdout.trim()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project, url: 'https://example.org/demo' }),
      });
      assert.equal(created.status, 201, created.text);
    } finally {
      await server.stop();
    }
  });

  test('serve --demo on a terminal prints the demo keys, once: only when it creates the users', async () => {
    const database = `sqlite:${join(scratch(), 'demo.sqlite')}`;
    const first = await startCliServer(['--demo'], { DATABASE_URL: database }, 60_000, true);
    try {
      const keys = [...first.output().matchAll(/^ {2}(\w[\w ]+?) +\S+@demo\.rsr-api\.org +Authorization: Token ([0-9a-f]{40})$/gm)];
      assert.deepEqual(keys.map((match) => match[1]), ['administrator', 'project editor', 'enumerator', 'user']);
      const signedIn = await request(first.base, '/rest/v1/my_projects/', { headers: { authorization: `Token ${keys[0][2]}` } });
      assert.equal(signedIn.status, 200);
    } finally {
      await first.kill();
    }
    const again = await startCliServer(['--demo'], { DATABASE_URL: database }, 60_000, true);
    try {
      assert.match(again.output(), /600 projects/);
      assert.doesNotMatch(again.output(), /Demo users|Token [0-9a-f]{40}/);
      // The terminal closed under it (no signal first): the server ends, rather than spin writing to it.
      assert.equal(await again.closeTerminal(), true);
    } finally {
      await again.kill();
    }
  });

  test('serve without --demo never fills a database', async () => {
    const server = await startCliServer([], { DATABASE_URL: `sqlite:${join(scratch(), 'empty.sqlite')}` });
    try {
      assert.match(server.output(), /listening on http:\/\/localhost:\d+\/rest\/v1\/ \(sqlite .*empty\.sqlite: 0 projects\)/);
      assert.equal((await request(server.base, '/rest/v1/budget_item/')).body.count, 0);
    } finally {
      await server.stop();
    }
  });

  test('demo DIR writes a dataset that imports and exports back to the same files', async () => {
    const dir = join(scratch(), 'demo');
    const written = await runCli(['demo', dir, '--scale', '0.05', '--seed', '3'], {});
    assert.equal(written.code, 0, written.stderr);
    // Not a terminal: progress as plain lines, no bar drawn with escape codes.
    assert.ok(!written.stderr.includes('\u001b') && !written.stderr.includes('\r'), written.stderr);
    const lines = written.stderr.trimEnd().split('\n');
    assert.match(lines[0], /^Generating the demo dataset \(scale 0\.05, seed 3\) into .*demo\.sqlite…$/);
    assert.match(lines.at(-1) as string, /^Wrote .*: project 30, program 1, user 15, /);
    for (const line of lines.slice(1, -1)) assert.match(line, /^Loaded in \d+\.\d s: |^ {2}demo \w+: [\d,]+ records…$|^ {2}\w+\.json: [\d,]+ records… \d+% of [\d,]+ records$/);
    const database = `sqlite:${join(scratch(), 'db.sqlite')}`;
    const imported = await runCli(['import', dir], { DATABASE_URL: database });
    assert.equal(imported.code, 0, imported.stderr);
    const out = join(scratch(), 'out');
    const exported = await runCli(['export', out], { DATABASE_URL: database });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /^ {2}\w+\.json: [\d,]+ records… \d+% of [\d,]+ records\n/, 'the first progress line at once');
    assert.deepEqual(readdirSync(out).sort(), readdirSync(dir).sort());
    for (const file of readdirSync(dir)) assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(dir, file), 'utf8'), file);
  });

  test('a failed import exits 1 with its message', async () => {
    const database = `sqlite:${join(scratch(), 'db.sqlite')}`;
    assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: database })).code, 0);
    const again = await runCli(['import', FIXTURE], { DATABASE_URL: database });
    assert.equal(again.code, 1);
    assert.equal(again.stderr, 'rsr-api: project.json[0] (id 1): id is already used, by an earlier record or in the database (import with --replace to replace its data)\n');
  });

  test('--help and --version answer on stdout and exit 0', async () => {
    const help = await runCli(['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: rsr-api <command>\n {2}serve \[--demo\]/);
    // The settings' table, in the README or in the operators' guide (docs/operations.md).
    const guides = ['../README.md', '../docs/operations.md'].map((path) => new URL(path, import.meta.url)).filter((path) => existsSync(path)).map((path) => readFileSync(path, 'utf8')).join('\n');
    const documented = [...new Set([...guides.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]))].filter((name) => name !== 'TEST_POSTGRES_URL');
    assert.ok(documented.length >= 18, documented.join());
    for (const name of documented) assert.ok(help.stdout.includes(name), name);
    assert.equal(help.stderr, '');
    const version = await runCli(['--version'], {});
    assert.deepEqual([version.code, version.stdout, version.stderr], [0, `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`, '']);
  });

  test('an unknown command or a bad option exits 1 with the usage', async () => {
    // An unknown command opens nothing: the database file it names is never created.
    const untouched = join(scratch(), 'untouched.sqlite');
    const unknown = await runCli(['launch'], { DATABASE_URL: `sqlite:${untouched}` });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^rsr-api: unknown command 'launch'\nusage: rsr-api <command>/);
    assert.equal(existsSync(untouched), false);
    const scale = await runCli(['demo', '--scale', 'big'], { DATABASE_URL: `sqlite:${join(scratch(), 'x.sqlite')}` });
    assert.equal(scale.code, 1);
    assert.match(scale.stderr, /--scale must be a positive number, not 'big'/);
    const option = await runCli(['export', '--nope'], {});
    assert.equal(option.code, 1);
    assert.match(option.stderr, /^rsr-api: Unknown option '--nope'/);
  });
  test('every command has its help: usage, what it does, options and an example', async () => {
    for (const name of Object.keys(COMMANDS)) {
      const help = commandHelp(name);
      assert.match(help, new RegExp(`^usage: rsr-api ${name}\\b[^\\n]*\\n`), name);
      assert.match(help, /\n\noptions:\n( {2}--[\w-]+.*\n)* {2}--help, -h +this help\n\nexamples?:\n {2}(\S+=\S+ )?rsr-api /, name);
      assert.ok(overallUsage().includes(`\n  ${name}`), `${name} is in the overall usage`);
    }
    // As a user asks for it: `COMMAND --help` and `help COMMAND`, on stdout, status 0; nothing opened.
    const untouched = join(scratch(), 'untouched.sqlite');
    for (const args of [['backup', '--help'], ['help', 'backup'], ['-h', 'backup']]) {
      const help = await runCli(args, { DATABASE_URL: `sqlite:${untouched}` });
      assert.deepEqual([help.code, help.stdout, help.stderr], [0, `${commandHelp('backup')}\n`, ''], args.join(' '));
    }
    assert.equal(existsSync(untouched), false);
    const restore = await runCli(['restore', '--help'], {});
    assert.equal(restore.stdout, [
      'usage: rsr-api restore FILE [--replace]',
      '',
      'Loads a backup made by backup into the database of DATABASE_URL (SQLite or PostgreSQL), all or',
      'nothing. A database that holds data is refused unless --replace, which replaces all of it, users and',
      'API keys too. A backup of an older version is upgraded on a copy; the file itself is never changed.',
      '',
      'options:',
      '  --replace   replace everything the database holds',
      '  --help, -h  this help',
      '',
      'examples:',
      '  rsr-api restore ./backups/rsr-2025-01-31.sqlite',
      '  DATABASE_URL=postgres://rsr@db:5432/rsr rsr-api restore rsr.sqlite --replace',
      '',
    ].join('\n'));
  });

  test("a command's unknown option or missing argument: its own usage, status 1", async () => {
    const option = await runCli(['backup', 'b.sqlite', '--force'], {});
    assert.deepEqual([option.code, option.stdout], [1, '']);
    assert.equal(option.stderr, `rsr-api: Unknown option '--force'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--force"\n${commandUsage('backup')}\n`);
    assert.equal(commandUsage('backup'), 'usage: rsr-api backup FILE\noptions:\n  --help, -h  this help\nmore: rsr-api help backup');
    const action = await runCli(['token', 'show'], {});
    assert.deepEqual([action.code, action.stderr], [1, `rsr-api: unknown token command 'show'\n${commandUsage('token')}\n`]);
    const topic = await runCli(['help', 'launch'], {});
    assert.deepEqual([topic.code, topic.stderr], [1, `rsr-api: unknown command 'launch'\n${overallUsage()}\n`]);
  });

  test('export in a log: the first progress line at once, with its total; then the summary', async () => {
    const database = `sqlite:${join(scratch(), 'db.sqlite')}`;
    assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: database })).code, 0);
    const out = join(scratch(), 'out');
    const exported = await runCli(['export', out], { DATABASE_URL: database });
    assert.equal(exported.code, 0, exported.stderr);
    const counts = DATASET_FILES.map(({ file }) => [file, (JSON.parse(readFileSync(join(FIXTURE, `${file}.json`), 'utf8')) as unknown[]).length] as const);
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    const [first, firstCount] = counts[0];
    const lines = exported.stderr.trimEnd().split('\n');
    assert.equal(lines[0], `  ${first}.json: ${firstCount} records… ${Math.floor((firstCount / total) * 100)}% of ${total} records`);
    assert.equal(lines.at(-1), `Exported to ${out}: ${counts.filter(([, n]) => n > 0).map(([file, n]) => `${file} ${n}`).join(', ')}`);
    for (const line of lines.slice(1, -1)) assert.match(line, PROGRESS_LINE);
  });

  test('on a terminal, demo draws bars with their totals and the time left', async () => {
    const dir = join(scratch(), 'demo');
    // Scale 1, a few seconds: the bar is drawn five times a second, and a demo of a second (scale
    // 0.1) could go from its first frame to its last with no time left shown between.
    const shown = await onTerminal(['demo', dir, '--scale', '1'], {});
    assert.equal(shown.code, 0, shown.output);
    // The records were counted first: the bar knows its total from the start.
    const frames = [...shown.output.matchAll(/Loading \[[█░]{30}\] (\d+)% \| ([\d,]+)\/([\d,]+) records \| ETA (\?|\d+s|\d+m\d\ds) \| (done|demo \w+: [\d,]+ records)/g)];
    assert.ok(frames.length >= 2, shown.output);
    assert.equal(new Set(frames.map((frame) => frame[3])).size, 1, 'one total throughout');
    const total = frames[0][3];
    assert.equal(total, (shown.output.match(/Loaded in \d+\.\d s: (.*)/)?.[1] ?? '').split(', ').reduce((sum, part) => sum + Number(part.split(' ')[1].replaceAll(',', '')), 0).toLocaleString('en-US'));
    assert.ok(frames.some((frame) => Number(frame[1]) < 100 && /^\d/.test(frame[4])), 'a time left while under way');
    assert.deepEqual(frames.at(-1)?.slice(1), ['100', total, total, '0s', 'done']);
    assert.match(shown.output, /Writing \[[█░]{30}\] 100% \| ([\d,]+)\/\1 records \| ETA 0s \| done/);
    assert.doesNotMatch(shown.output, /^ {2}\S.*records…/m, 'no plain progress lines on a terminal');
    assert.ok(existsSync(join(dir, 'project.json')));
  });
});
