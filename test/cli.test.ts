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
  test('serve --demo fills an empty database, says where it listens and how much it holds', async () => {
    const server = await startCliServer(['--demo'], { DATABASE_URL: `sqlite:${join(scratch(), 'demo.sqlite')}` });
    try {
      assert.match(server.output(), /listening on http:\/\/localhost:\d+\/rest\/v1\/ \(sqlite .*demo\.sqlite: 600 projects\)/);
      const answer = await request(server.base, '/rest/v1/budget_item/?page=2&ordering=-amount');
      assert.equal(answer.status, 200);
      assert.equal(answer.body.results.length, 30);
      // The demo users' keys are printed, and the project editor's works for a write.
      const keys = [...server.output().matchAll(/^ {2}(\w[\w ]+?) +\S+@demo\.rsr-api\.org +Authorization: Token ([0-9a-f]{40})$/gm)];
      assert.deepEqual(keys.map((match) => match[1]), ['administrator', 'project editor', 'enumerator', 'user']);
      const project = Number(/partner of project (\d+)/.exec(server.output())?.[1]);
      const created = await request(server.base, '/rest/v1/link/', {
        method: 'POST',
        headers: { authorization: `Token ${keys[1][2]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project, url: 'https://example.org/demo' }),
      });
      assert.equal(created.status, 201, created.text);
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
    for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'DATABASE_POOL_SIZE', 'TIME_ZONE', 'TRUST_PROXY', 'ALLOWED_HOSTS']) assert.ok(help.stdout.includes(name), name);
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
