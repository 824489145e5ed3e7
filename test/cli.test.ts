/** The command line a newcomer uses: serve with demo data, demo files, import, export. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli, startCliServer } from './support/cli.ts';
import { FIXTURE, request } from './support/server.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'rsr-cli-'));

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
    const database = `sqlite:${join(scratch(), 'db.sqlite')}`;
    const imported = await runCli(['import', dir], { DATABASE_URL: database });
    assert.equal(imported.code, 0, imported.stderr);
    const out = join(scratch(), 'out');
    const exported = await runCli(['export', out], { DATABASE_URL: database });
    assert.equal(exported.code, 0, exported.stderr);
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
    const documented = [...readFileSync(new URL('../README.md', import.meta.url), 'utf8').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]).filter((name) => name !== 'TEST_POSTGRES_URL');
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
});
