/**
 * `serve` on every core (issue 14): WORKERS processes share the port; a write made through one is
 * seen by every other at once, cached answers included; /metrics counts every worker's requests;
 * counts per project made by one worker are kept by the other (issue 24);
 * a worker that dies is replaced; SIGTERM lets each finish its requests in flight.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parseExposition } from './support/prometheus.ts';
import { runCli, slowLinkWrite, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, testStores } from './support/server.ts';

/** A request on a connection of its own: the cluster deals new connections to the workers in turn. */
async function get(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${base}${path}`, { headers: { connection: 'close' } });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** The primary's workers (tsx, running the sources, has a child process of its own). */
const workerPids = (primary: number) => execFileSync('pgrep', ['-P', String(primary), '-f', 'rsr-api']).toString().trim().split('\n').map(Number).sort();
const answeredBy = (output: string) => new Set([...output.matchAll(/"worker":(\d+),"requestId":"[^"]+","method":"GET"/g)].map((match) => Number(match[1])));

for (const store of testStores()) {
  describe(`WORKERS=2 (${store.name})`, () => {
    let url = '';
    let key = '';
    let drop: () => Promise<void> = async () => undefined;
    let server: RunningServer;
    let primary = 0;
    before(async () => {
      ({ url, drop } = await store.create());
      assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: url })).code, 0);
      key = (await runCli(['token', 'create', '--email', 'ana@example.org'], { DATABASE_URL: url })).stdout.trim();
      // Started as an operator sizing its heap and stack traces would: Node's options reach the workers; threads take only those they may.
      // Metrics both ways: on the primary's own listener (METRICS_PORT, any free port here) and, with the token, on the API's port.
      server = await startCliServer([], { DATABASE_URL: url, WORKERS: '2', DATABASE_POOL_SIZE: '4', METRICS_PORT: '0', METRICS_TOKEN: 'm' }, 60_000, false, ['--max-old-space-size=1024', '--stack-trace-limit=50']);
      primary = Number(/"pid":(\d+),"hostname":"[^"]*","msg":"rsr-api listening on/.exec(server.output())?.[1]);
    });
    after(async () => {
      await server.kill();
      await drop();
    });

    test('one start-up line, two workers under the primary, each answering requests', async () => {
      assert.match(server.output(), /rsr-api listening on http:\/\/localhost:\d+\/rest\/v1\/ \(\w+ .*: 5 projects; 2 workers\)/);
      assert.equal(workerPids(primary).length, 2);
      // Each worker runs with glibc's large blocks returned when freed (ops/allocator.ts); the primary was started without.
      const environment = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((entry) => entry.startsWith('MALLOC_'));
      assert.deepEqual(workerPids(primary).map(environment), [['MALLOC_MMAP_THRESHOLD_=131072'], ['MALLOC_MMAP_THRESHOLD_=131072']]);
      assert.deepEqual(environment(primary), []);
      for (let index = 0; index < 6; index += 1) assert.equal((await get(server.base, '/rest/v1/keyword/')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the log lines written
      assert.deepEqual([...answeredBy(server.output())].sort(), [1, 2]);
    });

    test('reports are made on their threads when the server was started with a V8 heap option and a per-process one', async () => {
      for (let index = 0; index < 2; index += 1) {
        const response = await fetch(`${server.base}/py-reports/organisation/1/org-projects-overview/?format=pdf`, { headers: { authorization: `Token ${key}`, connection: 'close' } });
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal(response.headers.get('content-type'), 'application/pdf');
        assert.equal(Buffer.from(await response.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
      }
    });

    test('a write through one worker is seen by every worker at once, cached answers included', async () => {
      for (let index = 0; index < 4; index += 1) assert.equal((await get(server.base, '/rest/v1/link/')).body.count, 2);
      const created = await fetch(`${server.base}/rest/v1/link/`, {
        method: 'POST',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ project: 2, url: 'https://example.org/seen-by-all' }),
      });
      assert.equal(created.status, 201);
      for (let index = 0; index < 6; index += 1) assert.equal((await get(server.base, '/rest/v1/link/')).body.count, 3, `request ${index}`);
    });

    test('/metrics shows every worker\'s requests, on the primary\'s listener and from whichever worker is asked', async () => {
      const token = { authorization: 'Bearer m' };
      const listener = /"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.output())?.[1] ?? '';
      assert.notEqual(listener, '');
      const before = await fetch(listener, { headers: token }).then((answer) => answer.text());
      const counted = (text: string) => (parseExposition(text).get('rsr_api_http_requests_total')?.samples ?? []).filter((sample) => sample.name === 'rsr_api_http_requests_total' && sample.labels.route === '/rest/v1/reports/').reduce((sum, sample) => sum + sample.value, 0);
      assert.equal(counted(before), 0);
      for (let index = 0; index < 8; index += 1) assert.equal((await get(server.base, '/rest/v1/reports/')).status, 200);
      for (let index = 0; index < 2; index += 1) {
        const text = await fetch(`${server.base}/metrics`, { headers: { ...token, connection: 'close' } }).then((answer) => answer.text());
        assert.equal(counted(text), 8);
      }
      assert.equal(counted(await fetch(listener, { headers: token }).then((answer) => answer.text())), 8);
      assert.equal((await fetch(`${server.base}/metrics`, { headers: { connection: 'close' } })).status, 401);
    });

    test('a new filter\'s counts per project are made by one worker and kept by the other', async () => {
      const listener = /"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.output())?.[1] ?? '';
      const figures = async () => {
        const families = parseExposition(await fetch(listener, { headers: { authorization: 'Bearer m' } }).then((answer) => answer.text()));
        const value = (name: string, labels: Record<string, string>) => families.get(name)?.samples.find((sample) => Object.entries(labels).every(([label, wanted]) => sample.labels[label] === wanted))?.value ?? 0;
        return { entries: value('rsr_api_cache_entries', { cache: 'project_counts' }), misses: value('rsr_api_cache_lookups_total', { cache: 'project_counts', result: 'miss' }) };
      };
      const path = '/rest/v1/link/?url__icontains=example.org';
      const before = await figures();
      // One link holds that address: the one written through a worker above.
      assert.equal((await get(server.base, path)).body.count, 1);
      // Held by both once the primary has passed it on.
      for (let waited = 0; waited < 10_000 && (await figures()).entries < before.entries + 2; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(await figures(), { entries: before.entries + 2, misses: before.misses + 1 });
      for (let index = 0; index < 4; index += 1) assert.equal((await get(server.base, path)).body.count, 1, `request ${index}`);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the log lines written
      const answering = new Set([...server.output().matchAll(/"worker":(\d+),"requestId":"[^"]+","method":"GET","url":"\/rest\/v1\/link\/\?url__icontains=example\.org"/g)].map((match) => Number(match[1])));
      assert.deepEqual([...answering].sort(), [1, 2]);
      assert.deepEqual(await figures(), { entries: before.entries + 2, misses: before.misses + 1 });
    });

    test('a worker killed is replaced, and the service answers throughout', async () => {
      const [victim, survivor] = workerPids(primary);
      process.kill(victim, 'SIGKILL');
      const ended = /"signal":"SIGKILL","msg":"a worker ended: starting another"/;
      // The replacement can be running before the primary's log line reaches its output: wait for both.
      const replaced = () => workerPids(primary).length === 2 && !workerPids(primary).includes(victim) && ended.test(server.output());
      for (let waited = 0; waited < 20_000 && !replaced(); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      const now = workerPids(primary);
      assert.equal(now.length, 2);
      assert.ok(now.includes(survivor) && !now.includes(victim));
      assert.match(server.output(), ended);
      // The new worker (the third started) says so once it listens.
      for (let waited = 0; waited < 20_000 && !/"worker":3,"msg":"listening on http/.test(server.output()); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(server.output(), /"worker":3,"msg":"listening on http/);
      for (let index = 0; index < 6; index += 1) assert.equal((await get(server.base, '/rest/v1/keyword/')).status, 200);
    });

    test('workers that cannot listen (the port is taken) end the service with status 1, not a loop of restarts', async () => {
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const result = await runCli(['serve'], { DATABASE_URL: url, WORKERS: '2', PORT: String((taken.address() as net.AddressInfo).port) });
        assert.equal(result.code, 1);
        assert.match(result.stdout, /"msg":"a worker ended before it could listen: stopping"/);
        assert.equal(result.stdout.match(/a worker ended: starting another/g), null);
      } finally {
        taken.close();
      }
    });

    test('SIGTERM: each worker finishes its request in flight (201), then all exit 0', async () => {
      const writes = [slowLinkWrite(server.base, key, 'https://example.org/in-flight-1'), slowLinkWrite(server.base, key, 'https://example.org/in-flight-2')];
      await new Promise((resolve) => setTimeout(resolve, 500));
      const workers = workerPids(primary);
      server.signal('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const write of writes) write.finish();
      for (const write of writes) assert.match(await write.ended, /^HTTP\/1\.1 201 Created\r\n/, server.output());
      assert.equal(await server.exited, 0);
      // The two connections were dealt to the two workers: each had a write in flight.
      const writers = [...server.output().matchAll(/"worker":(\d+),"requestId":"[^"]+","method":"POST","url":"\/rest\/v1\/link\/","status":201/g)].map((match) => match[1]);
      assert.equal(new Set(writers.slice(-2)).size, 2, server.output());
      assert.equal(server.output().match(/"msg":"stopped"/g)?.length, 2);
      for (const pid of workers) assert.throws(() => process.kill(pid, 0));
    });
  });
}
