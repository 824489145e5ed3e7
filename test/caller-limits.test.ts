/**
 * No caller takes the service for itself (issue 26), against real servers over HTTP on every
 * store: a caller opening fifty large CSV downloads at once gets 429s past its limit while
 * another caller's requests keep their latency; a flood of wrong API keys from one address is
 * refused (and logged once) while good keys go on; thousands of idle connections cost little and
 * are closed after the keep-alive time, a normal request answered meanwhile.
 */
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { addressKey } from '../src/http/callers.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/ops/logger.ts';
import { createToken } from '../src/store/users.ts';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { parseExposition, sampleValue } from './support/prometheus.ts';
import { FIXTURE, request, testStores, useServer, type Answer } from './support/server.ts';

/** A GET from a given local address (127.0.0.2 is another caller than 127.0.0.1), through `agent`. */
function get(base: string, path: string, options: { agent?: http.Agent; localAddress?: string; headers?: Record<string, string> } = {}): Promise<Answer & { ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = http.get(base + path, { agent: options.agent, localAddress: options.localAddress, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers, text, body, ms: performance.now() - started });
      });
    });
    outgoing.on('error', reject);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];
const round = (value: number) => Math.round(value * 10) / 10;

/** 6,000 public budget items over six projects: pages of 1000 to read, render and send. */
function writeDataset(dir: string): void {
  writeFileSync(join(dir, 'project.json'), JSON.stringify(Array.from({ length: 6 }, (_, index) => ({ id: index + 1, title: `Project ${index + 1}`, is_public: true, publishing_status: 'published' }))));
  const items = Array.from({ length: 6000 }, (_, index) => ({
    id: index + 1, project: (index % 6) + 1, type: ['1', '2'][index % 2], amount: (index * 37) % 100_000 + 0.5, currency: ['EUR', 'USD', 'SEK'][index % 3],
    other_extra: `Line ${index}, "quoted", long`, period_start: '2024-01-01', period_end: '2024-12-31',
  }));
  writeFileSync(join(dir, 'budget_item.json'), JSON.stringify(items));
}

for (const store of testStores()) {
  describe(`large pages per caller (${store.name})`, () => {
    let server: RunningServer;
    let drop: () => Promise<void> = async () => undefined;
    let key = '';
    const dir = mkdtempSync(join(tmpdir(), 'rsr-caller-limits-'));
    before(async () => {
      const database = await store.create();
      drop = database.drop;
      writeDataset(dir);
      const env = { DATABASE_URL: database.url };
      assert.equal((await runCli(['import', dir], env)).code, 0);
      assert.equal((await runCli(['user', 'create', '--email', 'reader@example.org', '--first-name', 'Re', '--last-name', 'Ader'], env)).code, 0);
      key = (await runCli(['token', 'create', '--email', 'reader@example.org'], env)).stdout.trim();
      // One worker, with the default limits (six large pages at once): they are counted per worker (callers.ts).
      server = await startCliServer([], { ...env, WORKERS: '1' });
    });
    after(async () => {
      await server?.stop();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('fifty limit=1000 CSV downloads at once: 429 with Retry-After past the caller\'s limit; another caller\'s latency holds; a signed-in user is a caller of its own', { timeout: 120_000 }, async () => {
      const burst = new http.Agent({ keepAlive: true, maxSockets: 50 });
      const other = new http.Agent({ keepAlive: true, maxSockets: 1 });
      let sequence = 0;
      // Every URL new: answers from the response cache would cost nothing (and are not counted).
      const large = () => `/rest/v1/budget_item/?format=csv&limit=1000&page=${(sequence % 6) + 1}&burst=${(sequence += 1)}`;
      const small = () => `/rest/v1/budget_item/?limit=10&page=${(sequence % 500) + 1}&other=${(sequence += 1)}`;
      const otherRequest = () => get(server.base, small(), { agent: other, localAddress: '127.0.0.2' });
      // Warm: statements prepared, code compiled, on both paths.
      for (let index = 0; index < 5; index += 1) {
        assert.equal((await get(server.base, large(), { agent: burst })).status, 200);
        assert.equal((await otherRequest()).status, 200);
      }
      const alone: number[] = [];
      for (let index = 0; index < 40; index += 1) {
        const answer = await otherRequest();
        assert.equal(answer.status, 200);
        alone.push(answer.ms);
      }

      const statuses = new Map<number, number>();
      const refusals: Answer[] = [];
      let bursting = true;
      const during: number[] = [];
      const measuring = (async () => {
        while (bursting) {
          const answer = await otherRequest();
          assert.equal(answer.status, 200);
          during.push(answer.ms);
        }
      })();
      let signedIn: Answer | undefined;
      const started = performance.now();
      for (let wave = 0; wave < 8 || performance.now() - started < 3000; wave += 1) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => get(server.base, large(), { agent: burst })));
        if (wave === 1) signedIn = await get(server.base, large(), { headers: { authorization: `Token ${key}` } });
        for (const answer of answers) {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 429) refusals.push(answer);
          else assert.equal(answer.text.trimEnd().split('\n').length, 1001, 'a whole page: its header and 1000 rows');
        }
      }
      bursting = false;
      await measuring;
      burst.destroy();
      other.destroy();

      const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
      const figures = {
        statuses: Object.fromEntries(statuses), aloneMedianMs: round(median(alone)), aloneP90Ms: round(quantile(alone, 0.9)),
        duringMedianMs: round(median(during)), duringP90Ms: round(quantile(during, 0.9)), duringMaxMs: round(Math.max(...during)), duringRequests: during.length,
      };
      process.stderr.write(`large pages (${store.name}): ${JSON.stringify(figures)}\n`);
      assert.deepEqual([...statuses.keys()].sort(), [200, 429]);
      // Six at once are made; of fifty sent together, nearly all the others are refused.
      assert.ok((statuses.get(429) ?? 0) >= total * 0.7, JSON.stringify(figures));
      for (const refused of refusals.slice(0, 5)) {
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.equal(refused.headers.get('content-type'), 'application/json');
        assert.deepEqual(refused.body, { detail: 'Request was throttled. Expected available in 1 second.' });
      }
      // The same address signed in is another caller: its large page is made.
      assert.equal(signedIn?.status, 200);
      // The other caller: generous bounds, for a shared machine (figures in the line above).
      assert.ok(during.length >= 10, JSON.stringify(figures));
      assert.ok(figures.duringMedianMs <= Math.max(4 * figures.aloneMedianMs, figures.aloneMedianMs + 40), JSON.stringify(figures));
      assert.ok(figures.duringP90Ms <= Math.max(8 * figures.aloneP90Ms, figures.aloneP90Ms + 150), JSON.stringify(figures));
    });

    test('pages under LARGE_PAGE_SIZE, and answers from the response cache, are not limited', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
      const small = await Promise.all(Array.from({ length: 50 }, (_, index) => get(server.base, `/rest/v1/budget_item/?format=csv&limit=299&small=${index}`, { agent })));
      assert.deepEqual([...new Set(small.map((answer) => answer.status))], [200]);
      // Asked for twice, the page is kept; then fifty at once are fifty cached answers.
      for (let index = 0; index < 2; index += 1) assert.equal((await get(server.base, '/rest/v1/budget_item/?format=csv&limit=1000&kept=1', { agent })).status, 200);
      const cached = await Promise.all(Array.from({ length: 50 }, () => get(server.base, '/rest/v1/budget_item/?format=csv&limit=1000&kept=1', { agent })));
      assert.deepEqual([...new Set(cached.map((answer) => answer.status))], [200]);
      agent.destroy();
    });
  });
}

/** A logger whose JSON lines the test reads. */
function capturedLog() {
  const lines: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, encoding, done) {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
      done();
    },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- log entries are checked field by field
  return { logger: createLogger({ logLevel: 'warn', logFormat: 'json' }, stream), entries: (): any[] => lines.map((line) => JSON.parse(line)) };
}

for (const store of testStores()) {
  describe(`wrong API keys from one address (${store.name})`, () => {
    const log = capturedLog();
    const server = useServer(store, FIXTURE, { logger: log.logger, callerLimits: { tokenFailures: { max: 5, windowMs: 60_000 } }, metricsToken: 'm' });
    let good = '';
    before(async () => {
      good = await createToken(server.engine, 'ana@example.org');
    });
    const wrong = (index: number) => `Token ${index.toString(16).padStart(40, '0')}`;

    test('past five wrong keys at once, the rest are refused with 429 and logged once; good keys pass; another address is not held up', async () => {
      // A key that has passed before the flood goes on passing during it.
      assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: { authorization: `Token ${good}` } })).status, 200);
      const flood = await Promise.all(Array.from({ length: 300 }, (_, index) => request(server.base, `/rest/v1/keyword/?flood=${index}`, { headers: { authorization: wrong(index) } })));
      const counted = new Map<number, number>();
      for (const answer of flood) counted.set(answer.status, (counted.get(answer.status) ?? 0) + 1);
      // Checks under way count as failures: a flood sent at once is held to the limit too.
      assert.deepEqual(Object.fromEntries(counted), { 403: 5, 429: 295 });
      assert.deepEqual(flood.find((answer) => answer.status === 403)?.body, { detail: 'Invalid token.' });
      const refused = flood.find((answer) => answer.status === 429)!;
      const seconds = Number(refused.headers.get('retry-after'));
      assert.ok(seconds >= 1 && seconds <= 60, String(seconds));
      assert.deepEqual(refused.body, { detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.` });
      // Malformed keys are refused alike while the address is limited.
      assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: { authorization: 'Token a b' } })).status, 429);
      // Good keys are not slowed: answered as fast as before the flood.
      const started = performance.now();
      const answer = await request(server.base, '/rest/v1/keyword/?after=flood', { headers: { authorization: `Token ${good}` } });
      assert.equal(answer.status, 200);
      assert.ok(performance.now() - started < 1000);
      // Another address: its wrong key is answered as ever.
      const elsewhere = await get(server.base, '/rest/v1/keyword/', { localAddress: '127.0.0.2', headers: { authorization: wrong(1) } });
      assert.deepEqual([elsewhere.status, elsewhere.body], [403, { detail: 'Invalid token.' }]);
      // Anonymous requests from the limited address are not refused either.
      assert.equal((await request(server.base, '/rest/v1/keyword/?anonymous=1')).status, 200);
      const lines = log.entries().filter((entry) => entry.msg?.startsWith('wrong API keys from one address'));
      assert.equal(lines.length, 1, JSON.stringify(log.entries()));
      assert.deepEqual([lines[0].level, lines[0].address, lines[0].failed + lines[0].checking, lines[0].limit], [40, '127.0.0.1', 5, 5]);
      const metrics = parseExposition((await request(server.base, '/metrics', { headers: { authorization: 'Bearer m' } })).text);
      assert.ok(sampleValue(metrics, 'rsr_api_caller_limited_requests_total', { limit: 'token_failures' }) >= 296);
    });

    test('a key never seen passing waits with the address it comes from (until the window ends)', async () => {
      const fresh = await createToken(server.engine, 'bo@example.org');
      assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: { authorization: `Token ${fresh}` } })).status, 429);
      assert.equal((await get(server.base, '/rest/v1/keyword/', { localAddress: '127.0.0.2', headers: { authorization: `Token ${fresh}` } })).status, 200);
    });
  });
}

describe('who a caller is', () => {
  test('an address as limits count it: IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64', () => {
    const cases: [string, string][] = [
      ['203.0.113.7', '203.0.113.7'], ['::ffff:203.0.113.7', '203.0.113.7'], ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
      ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'], ['2001:db8::1', '2001:db8:0:0::/64'], ['1:2::3:4:5:1.2.3.4', '1:2:0:3::/64'], ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ];
    for (const [ip, key] of cases) assert.equal(addressKey(ip), key, ip);
  });
});

describe('behind a proxy (TRUST_PROXY naming it)', () => {
  const [store] = testStores();
  const server = useServer(store, FIXTURE, { trustProxy: loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy, callerLimits: { tokenFailures: { max: 2, windowMs: 60_000 } } });

  test('the address is the one the proxy saw (the last before it), whatever a client writes before it; links still follow X-Forwarded-Host', async () => {
    const from = (client: string, forged = '203.0.113.99') => ({ authorization: wrongKey, 'x-forwarded-for': `${forged}, ${client}` });
    const wrongKey = `Token ${'0'.repeat(40)}`;
    assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: from('198.51.100.1', 'a') })).status, 403);
    assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: from('198.51.100.1', 'b') })).status, 403);
    // Another forged first entry changes nothing: the proxy's entry names the caller.
    assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: from('198.51.100.1', 'c') })).status, 429);
    assert.equal((await request(server.base, '/rest/v1/keyword/', { headers: from('198.51.100.2') })).status, 403);
    const links = await request(server.base, '/rest/v1/keyword/?limit=1', { headers: { 'x-forwarded-host': 'api.example.org', 'x-forwarded-proto': 'https' } });
    assert.match(links.body.next, /^https:\/\/api\.example\.org\/rest\/v1\/keyword\//);
  });

  test('TRUST_PROXY takes true, off, or proxy addresses and blocks; anything else is refused at start', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,2001:db8::/32' }).trustProxy, '10.0.0.0/8,loopback,2001:db8::/32');
    for (const bad of ['proxy.example.org', '10.0.0.0/33', 'maybe']) assert.throws(() => loadConfig({ TRUST_PROXY: bad }), ConfigError, bad);
    assert.deepEqual(loadConfig({}).callerLimits, { largePageSize: 300, largePagesPerCaller: 6, tokenFailures: { max: 20, windowMs: 60_000 } });
    assert.deepEqual(loadConfig({ LARGE_PAGES_PER_CALLER: '0', TOKEN_FAILURE_LIMIT: 'off' }).callerLimits, { largePageSize: 300, largePagesPerCaller: 0, tokenFailures: null });
    assert.throws(() => loadConfig({ TOKEN_FAILURE_LIMIT: 'lots' }), /TOKEN_FAILURE_LIMIT must be like 600\/minute/);
    assert.equal(loadConfig({}).metricsListener, null);
    assert.deepEqual(loadConfig({ METRICS_PORT: '9464' }).metricsListener, { port: 9464, host: '127.0.0.1' });
    assert.throws(() => loadConfig({ METRICS_PORT: '8000' }), /METRICS_PORT must differ from PORT/);
  });
});

/** A process's resident memory, in MiB. */
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

describe('idle connections', () => {
  const [store] = testStores();
  let server: RunningServer;
  let pid = 0;
  let drop: () => Promise<void> = async () => undefined;
  before(async () => {
    const database = await store.create();
    drop = database.drop;
    assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: database.url })).code, 0);
    server = await startCliServer([], { DATABASE_URL: database.url, WORKERS: '1', KEEP_ALIVE_TIMEOUT: '5', HEADERS_TIMEOUT: '6', LOG_LEVEL: 'info' });
    pid = Number(/"pid":(\d+),"hostname":"[^"]*","msg":"rsr-api listening on/.exec(server.output())?.[1]);
  });
  after(async () => {
    await server?.stop();
    await drop();
  });

  test('2,000 idle sockets (half kept alive after a request, half that never send one) cost little, are closed after their time, and a request meanwhile is answered at once', { timeout: 60_000 }, async () => {
    const { port } = new URL(server.base);
    // Warm, then the memory of a server at rest.
    for (let index = 0; index < 20; index += 1) assert.equal((await request(server.base, `/rest/v1/keyword/?warm=${index}`)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = rssMiB(pid);
    interface Idle { socket: net.Socket; kept: boolean; connected: number; answered: number; closed: number; text: string }
    const idle: Idle[] = [];
    try {
      // Opened 250 at a time: past the listen backlog (511) the kernel would leave a connection
      // half-open, established for the client and unknown to the server.
      for (let batch = 0; batch < 2000; batch += 250) {
        await Promise.all(Array.from({ length: 250 }, (_, offset) => new Promise<void>((resolve) => {
          const socket = net.connect(Number(port), '127.0.0.1');
          const entry: Idle = { socket, kept: (batch + offset) % 2 === 0, connected: 0, answered: 0, closed: 0, text: '' };
          idle.push(entry);
          socket.on('error', () => undefined);
          socket.on('data', (chunk: Buffer) => {
            entry.text += chunk.toString();
            if (!entry.answered && entry.text.includes('\r\n\r\n')) entry.answered = performance.now();
          });
          socket.on('close', () => (entry.closed = performance.now()));
          socket.on('connect', () => {
            entry.connected = performance.now();
            if (entry.kept) socket.write(`GET /rest/v1/keyword/?idle=${offset % 10} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
            resolve();
          });
        })));
      }
      for (let waited = 0; waited < 5000 && idle.some((entry) => entry.kept && !entry.answered); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      const during = rssMiB(pid);
      const open = idle.filter((entry) => !entry.closed).length;
      const started = performance.now();
      const meanwhile = await request(server.base, '/rest/v1/keyword/?meanwhile=1', { headers: { connection: 'close' } });
      const answeredMs = performance.now() - started;
      assert.equal(meanwhile.status, 200);
      for (let waited = 0; waited < 20_000 && idle.some((entry) => !entry.closed); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(idle.every((entry) => entry.closed), `${idle.filter((entry) => !entry.closed).length} sockets still open`);
      assert.ok(idle.every((entry) => !entry.kept || /^HTTP\/1\.1 200 OK\r\n/.test(entry.text)));
      const kept = idle.filter((entry) => entry.kept).map((entry) => entry.closed - entry.answered);
      const silent = idle.filter((entry) => !entry.kept).map((entry) => entry.closed - entry.connected);
      const span = (values: number[]) => [round(Math.min(...values)), round(Math.max(...values))];
      const figures = { rssBeforeMiB: round(before), rssWithSocketsMiB: round(during), openWhenMeasured: open, requestMeanwhileMs: round(answeredMs), keptClosedAfterAnswerMs: span(kept), silentClosedAfterConnectMs: span(silent) };
      process.stderr.write(`idle connections: ${JSON.stringify(figures)}\n`);
      assert.ok(open >= 1800, `only ${open} sockets still open when the memory was read`);
      // A few KiB each; generous for a shared machine.
      assert.ok(during - before < 64, JSON.stringify(figures));
      assert.ok(answeredMs < 500, JSON.stringify(figures));
      // Kept alive: closed KEEP_ALIVE_TIMEOUT (5 s) after the answer, and Node's second more (clients are told timeout=5).
      assert.ok(Math.min(...kept) >= 4900 && Math.max(...kept) < 7500, JSON.stringify(figures));
      // Never a request: closed at HEADERS_TIMEOUT (6 s), checked every 1.5 s.
      assert.ok(Math.min(...silent) >= 5900 && Math.max(...silent) < 9000, JSON.stringify(figures));
      // And the server is as it was.
      assert.equal((await request(server.base, '/rest/v1/keyword/?after=1')).status, 200);
    } finally {
      for (const entry of idle) entry.socket.destroy();
    }
  });
});
