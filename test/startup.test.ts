/**
 * Safe start and stop (issue 13): configuration refused in one line with exit status 2 before
 * anything opens, passwords masked; instances migrating at once apply each migration once; and
 * SIGTERM finishes a request in flight before the process exits 0, a second signal at once.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { ConfigError, loadConfig } from '../src/config.ts';
import { runCli, slowLinkWrite, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, testStores } from './support/server.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'rsr-start-'));

describe('configuration', () => {
  const refusals: [Record<string, string>, string][] = [
    [{ DATABASE_URL: 'mysql://root:hunter2@db/rsr' }, "DATABASE_URL must start with sqlite: or postgres://, not 'mysql://root:***@db/rsr'"],
    [{ DATABASE_URL: 'postgres://rsr:hunter2@db:99999/rsr' }, 'DATABASE_URL has port 99999: ports are 1 to 65535'],
    [{ DATABASE_URL: 'sqlite:' }, "DATABASE_URL 'sqlite:' needs a file path (sqlite:./data/rsr.sqlite)"],
    [{ PORT: '80a' }, "PORT must be a whole number from 0 to 65535, not '80a'"],
    [{ PORT: '70000' }, "PORT must be a whole number from 0 to 65535, not '70000'"],
    [{ DATABASE_POOL_SIZE: '0' }, "DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not '0'"],
    [{ WORKERS: '0' }, "WORKERS must be a whole number from 1 to 256, not '0'"],
    [{ LOG_LEVEL: 'loud' }, "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'loud'"],
    [{ RATE_LIMIT: 'lots' }, "RATE_LIMIT must be like 600/minute (per second, minute or hour), or off; not 'lots'"],
    [{ CORS_ORIGINS: 'dashboard.example.org' }, "CORS_ORIGINS: 'dashboard.example.org' is not an origin such as https://dashboard.example.org"],
    [{ HEADERS_TIMEOUT: '60', REQUEST_TIMEOUT: '30' }, 'HEADERS_TIMEOUT (60) cannot be longer than REQUEST_TIMEOUT (30)'],
    [{ TIME_ZONE: 'Mars/Olympus' }, "TIME_ZONE 'Mars/Olympus' is not a time zone"],
  ];

  test('each setting that cannot be used is refused with one line naming it', () => {
    for (const [env, message] of refusals) assert.throws(() => loadConfig(env, false), new ConfigError(message), JSON.stringify(env));
    // And what is fine is read as meant.
    const chosen = loadConfig({ DATABASE_URL: 'postgres://rsr:pw@db:5433/rsr', RATE_LIMIT: '600/minute', CORS_ORIGINS: 'https://a.example, https://b.example/', REQUEST_TIMEOUT: '20', LOG_LEVEL: 'WARN' }, false);
    assert.deepEqual([chosen.rateLimit, chosen.corsOrigins, chosen.limits.requestTimeoutMs, chosen.logLevel, chosen.logFormat], [{ max: 600, windowMs: 60_000 }, ['https://a.example', 'https://b.example'], 20_000, 'warn', 'json']);
  });

  test('the command line: exit status 2 and the line alone, before anything opens, no password shown', async () => {
    const file = join(scratch(), 'never.sqlite');
    for (const [command, env] of [['serve', { DATABASE_URL: 'mysql://root:hunter2@db/rsr' }], ['migrate', { DATABASE_URL: `sqlite:${file}`, PORT: '70000' }]] as const) {
      const result = await runCli([command], env);
      const expected = refusals.find(([refused]) => Object.entries(env).some(([name, value]) => refused[name] === value))?.[1];
      assert.deepEqual([result.code, result.stderr, result.stdout], [2, `rsr-api: ${expected}\n`, ''], command);
    }
    assert.equal(existsSync(file), false);
  });
});

for (const store of testStores()) {
  describe(`start-up and shut-down (${store.name})`, () => {
    test('four instances migrating one new database at once: each migration applied once, by one of them; all succeed', async () => {
      const database = await store.create();
      try {
        const results = await Promise.all(Array.from({ length: 4 }, () => runCli(['migrate'], { DATABASE_URL: database.url })));
        assert.deepEqual(results.map((result) => result.code), [0, 0, 0, 0], results.map((result) => result.stderr).join('\n'));
        const said = results.map((result) => result.stderr.replace(/ to .*| of .*/s, ''));
        assert.deepEqual(said.sort(), ['Applied migrations 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19', 'Schema', 'Schema', 'Schema'].sort());
        assert.equal(results.filter((result) => /is up to date\.\n$/.test(result.stderr)).length, 3);
        if (store.name === 'postgres') {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          const { rows } = await client.query('select version from schema_migration order by version');
          await client.end();
          assert.deepEqual(rows.map((row) => row.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
        }
      } finally {
        await database.drop();
      }
    });

    describe('graceful shutdown', () => {
      let url = '';
      let key = '';
      let drop: () => Promise<void> = async () => undefined;

      test('set up: a database with the fixture and an administrator\'s key', async () => {
        const database = await store.create();
        url = database.url;
        drop = database.drop;
        assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: url })).code, 0);
        key = (await runCli(['token', 'create', '--email', 'ana@example.org'], { DATABASE_URL: url })).stdout.trim();
      });

      const slowWrite = (server: RunningServer) => slowLinkWrite(server.base, key);

      test('SIGTERM: new connections refused, the request in flight finished (201), then exit 0', async () => {
        const server = await startCliServer([], { DATABASE_URL: url });
        const inFlight = slowWrite(server);
        await new Promise((resolve) => setTimeout(resolve, 300));
        server.signal('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 300));
        const refused = await new Promise<string>((resolve) => {
          const probe = net.connect(Number(new URL(server.base).port), '127.0.0.1');
          probe.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
          probe.on('connect', () => {
            probe.destroy();
            resolve('connected');
          });
        });
        assert.equal(refused, 'ECONNREFUSED');
        inFlight.finish();
        const answer = await inFlight.ended;
        assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/, server.output());
        assert.match(answer, /"url":"https:\/\/example\.org\/in-flight"/);
        assert.equal(await server.exited, 0);
        assert.match(server.output(), /"msg":"shutting down: finishing the requests in flight"/);
        assert.match(server.output(), /"msg":"stopped"/);
      });

      test('a second signal exits at once, whatever is in flight', async () => {
        const server = await startCliServer([], { DATABASE_URL: url, SHUTDOWN_TIMEOUT: '60' });
        const inFlight = slowWrite(server);
        await new Promise((resolve) => setTimeout(resolve, 300));
        server.signal('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 200));
        const started = Date.now();
        server.signal('SIGTERM');
        assert.equal(await server.exited, 1);
        assert.ok(Date.now() - started < 2000);
        inFlight.finish();
        inFlight.destroy();
        assert.equal(await inFlight.ended, '');
      });

      test('clean up', () => drop());
    });
  });
}
