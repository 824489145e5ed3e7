/**
 * A worker that dies costs only its own requests (issue 26): a two-worker `serve` (real
 * processes) under a load of reads and writes, one worker killed with SIGKILL. The primary starts
 * another and /metrics counts the restart; every request of the test is counted by its status;
 * the only ones that fail are those the killed worker held at that moment (its connections, read
 * from /proc) or that the primary had handed it and it never took (until the primary saw it die;
 * closed by the primary, which says how many: commands/handoffs.ts; Node's cluster left them
 * waiting for good), as connection errors; none is answered 5xx; every write answered 201 is
 * there afterwards, read back through the API and found in the table.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { describe, test } from 'node:test';
import { openEngine } from '../src/store/engine/index.ts';
import { parseExposition } from './support/prometheus.ts';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, testStores } from './support/server.ts';

const METRICS_TOKEN = 'worker-kill-metrics';
/** Clients sending requests one after another, each on a connection of its own. */
const CLIENTS = 12;
const LOAD_BEFORE_MS = 3000;
const LOAD_AFTER_MS = 4000;
/** Writes whose body is left half sent: requests surely in flight on each worker when one is killed. */
const HELD = 4;
const URL_PREFIX = 'https://example.org/worker-kill/';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The primary's workers (tsx, running the sources, has a child process of its own). */
const workerPids = (primary: number) => execFileSync('pgrep', ['-P', String(primary), '-f', 'rsr-api']).toString().trim().split('\n').filter(Boolean).map(Number).sort();

/** The client ports of the connections to `serverPort` that process `pid` holds: its sockets' inodes, looked up in /proc/net/tcp. */
function clientPortsHeldBy(pid: number, serverPort: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10 || !inodes.has(columns[9])) continue;
      if (Number.parseInt(columns[1].split(':').at(-1) ?? '', 16) === serverPort) ports.add(Number.parseInt(columns[2].split(':').at(-1) ?? '', 16));
    }
  }
  return ports;
}

interface Outcome {
  kind: 'read' | 'write';
  /** The HTTP status, or the connection error's code. */
  result: number | string;
  started: number;
  ended: number;
  /** The client's port of its connection (0 if it never connected). */
  port: number;
  /** A write answered 201: the record's id and the url written. */
  created?: { id: number; url: string };
  /** Any other answer's body (what a failure message shows). */
  body?: string;
}

/** One request on a connection of its own (the primary deals each new connection to a worker). */
function send(base: string, kind: 'read' | 'write', path: string, headers: Record<string, string>, body?: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let port = 0;
    const done = (result: number | string, created?: Outcome['created'], body?: string) => resolve({ kind, result, started, ended: performance.now(), port, created, body });
    const outgoing = http.request(`${base}${path}`, { method: body ? 'POST' : 'GET', agent: false, headers, timeout: 20_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        if (status !== 201) return done(status, undefined, status === 200 ? undefined : Buffer.concat(chunks).toString());
        const record = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; url: string };
        done(status, { id: record.id, url: record.url });
      });
    });
    outgoing.on('socket', (socket) => socket.once('connect', () => (port = socket.localPort ?? 0)));
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    outgoing.end(body);
  });
}

/** A link write whose headers and half its body are sent now, the rest when asked: in flight for as long as the test needs. */
function heldWrite(base: string, key: string, url: string) {
  const body = JSON.stringify({ project: 1, url });
  const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.on('error', () => undefined); // a reset ends it as a close does
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  const connected = new Promise<number>((resolve) => socket.once('connect', () => resolve(socket.localPort ?? 0)));
  socket.write(`POST /rest/v1/link/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Token ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
  return { url, connected, ended, finish: () => socket.write(body.slice(10)) };
}

/** `rsr_api_worker_restarts_total` as /metrics shows it (asked of whichever worker takes the connection). */
async function restarts(base: string): Promise<number> {
  const answer = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}`, connection: 'close' } });
  assert.equal(answer.status, 200);
  const family = parseExposition(await answer.text()).get('rsr_api_worker_restarts_total');
  assert.ok(family, 'rsr_api_worker_restarts_total is shown');
  return family.samples.reduce((sum, sample) => sum + sample.value, 0);
}

/** Waits, blocking this event loop (no request of the test may start meanwhile), until process `pid` is stopped (state T); throws past `ms`. */
function stoppedWithin(pid: number, ms: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; !/^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); waited += 1) {
    if (waited > ms) throw new Error(`process ${pid} not stopped ${ms} ms after SIGSTOP`);
    Atomics.wait(pause, 0, 0, 1);
  }
}

async function waitFor(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(50);
  }
}

/** Statuses and errors counted, e.g. { "200": 811, "201": 240, "ECONNRESET": 2 }. */
const tally = (outcomes: readonly Outcome[]) => {
  const counted: Record<string, number> = {};
  for (const { result } of outcomes) counted[String(result)] = (counted[String(result)] ?? 0) + 1;
  return counted;
};

for (const store of testStores()) {
  describe(`a worker killed under load (${store.name})`, () => {
    test('is replaced, costs only the requests it held (connection errors, no 5xx), loses no acknowledged write, and is counted in /metrics', async (t) => {
      const began = performance.now();
      const phases: string[] = [];
      const phase = (name: string) => phases.push(`${name} ${((performance.now() - began) / 1000).toFixed(1)} s`);
      const { url, drop } = await store.create();
      let server: RunningServer | null = null;
      try {
        assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: url })).code, 0);
        const key = (await runCli(['token', 'create', '--email', 'ana@example.org'], { DATABASE_URL: url })).stdout.trim();
        phase('imported');
        // About a worker's death, not shedding load: a machine busy with other work must not make
        // the survivor answer 503 here (one CI run met a 503 of unrecorded cause; a 5xx's body is
        // now in the failure message).
        const running = await startCliServer([], { DATABASE_URL: url, WORKERS: '2', DATABASE_POOL_SIZE: '4', METRICS_TOKEN, MAX_EVENT_LOOP_DELAY_MS: '60000' });
        server = running;
        const base = running.base;
        const serverPort = Number(new URL(base).port);
        const primary = Number(/"pid":(\d+),"hostname":"[^"]*","msg":"rsr-api listening on/.exec(running.output())?.[1]);
        await waitFor('two workers', () => workerPids(primary).length === 2);
        assert.equal(await restarts(base), 0);
        phase('started');

        // Writes held half sent: the primary deals connections in turn, so each worker holds some.
        const held = Array.from({ length: HELD }, (_, index) => heldWrite(base, key, `${URL_PREFIX}held-${index}`));
        const heldPorts = await Promise.all(held.map((write) => write.connected));
        await sleep(300);

        // The load: clients each sending one request after another (a write in four, reads of
        // lists and records), each on a connection of its own.
        const outcomes: Outcome[] = [];
        let loading = true;
        let sequence = 0;
        const reads = ['/rest/v1/link/', '/rest/v1/keyword/', '/rest/v1/budget_item/?ordering=-amount', '/rest/v1/project_custom_field/', '/rest/v1/organisation/1/', '/rest/v1/transaction/?limit=100'];
        const headers: Record<string, string> = { accept: 'application/json', authorization: `Token ${key}` };
        const client = async () => {
          while (loading) {
            sequence += 1;
            const read = reads[sequence % reads.length];
            outcomes.push(sequence % 4 === 0
              ? await send(base, 'write', '/rest/v1/link/', { ...headers, 'content-type': 'application/json' }, JSON.stringify({ project: 1 + (sequence % 2), url: `${URL_PREFIX}${sequence}` }))
              : await send(base, 'read', `${read}${read.includes('?') ? '&' : '?'}_=${sequence}`, headers));
          }
        };
        const clients = Array.from({ length: CLIENTS }, client);
        await sleep(LOAD_BEFORE_MS);

        // The connections each worker holds, read and the victim killed in one turn of this event
        // loop: no request of the test starts in between. The victim is stopped first: running,
        // it could take a connection on its way to it between the reading and the kill, and
        // tell the primary so (a failure neither held nor handed, as a fresh-clone run once saw).
        const [victim, survivor] = workerPids(primary);
        process.kill(victim, 'SIGSTOP');
        stoppedWithin(victim, 2000);
        const victimPorts = clientPortsHeldBy(victim, serverPort);
        const survivorPorts = clientPortsHeldBy(survivor, serverPort);
        process.kill(victim, 'SIGKILL');
        const killed = performance.now();
        phase('killed');

        const ended = /"signal":"SIGKILL","msg":"a worker ended: starting another"/;
        await waitFor('the replacement', () => ended.test(running.output()) && /"worker":3,"msg":"listening on http/.test(running.output()) && workerPids(primary).length === 2);
        const replaced = performance.now();
        phase('replaced');
        const now = workerPids(primary);
        assert.ok(now.includes(survivor) && !now.includes(victim), `workers ${now} after killing ${victim}`);
        await sleep(LOAD_AFTER_MS);
        for (const write of held) write.finish();
        loading = false;
        await Promise.all(clients);
        const heldAnswers = await Promise.all(held.map((write) => write.ended));
        phase('load ended');

        // Every request of the test counted by its status, or its error.
        const counted = tally(outcomes);
        const failed = outcomes.filter((outcome) => typeof outcome.result === 'string');
        // Connections the primary had handed to the killed worker and it had not taken (in no
        // worker's descriptors; dealt to it until the primary saw it die): closed by the primary,
        // which says how many.
        const handedOver = Number(/"connections":(\d+),"msg":"connections handed to the ended worker before it took them: closed"/.exec(running.output())?.[1] ?? 0);
        const failedHeld = failed.filter((outcome) => victimPorts.has(outcome.port)).length;
        t.diagnostic(`${store.name}: ${outcomes.length} requests (${outcomes.filter((outcome) => outcome.kind === 'write').length} writes), statuses ${JSON.stringify(counted)}; the replacement listened ${Math.round(replaced - killed)} ms after the kill`);
        t.diagnostic(`${store.name}: failed ${failed.length}: ${failedHeld} on connections the killed worker held (${victimPorts.size} at the kill, the other worker ${survivorPorts.size}), ${failed.length - failedHeld} handed to it and never taken (the primary closed ${handedOver}); held writes: ${heldAnswers.map((answer) => answer.split('\r\n')[0] || 'closed unanswered').join('; ')}`);
        const answered5xx = outcomes.filter((outcome) => typeof outcome.result === 'number' && outcome.result >= 500);
        assert.equal(answered5xx.length, 0, `no 5xx: ${JSON.stringify(counted)}; ${answered5xx.map((outcome) => `${outcome.result} ${outcome.body}`).join('; ')}`);
        for (const outcome of outcomes) {
          if (typeof outcome.result === 'number') assert.equal(outcome.result, outcome.kind === 'write' ? 201 : 200, JSON.stringify(outcome));
          else {
            assert.ok(['ECONNRESET', 'EPIPE'].includes(outcome.result), `a connection error, not ${outcome.result}: ${JSON.stringify(outcome)}`);
            assert.ok(outcome.ended >= killed && outcome.started < replaced, JSON.stringify(outcome));
          }
        }
        assert.ok(failed.length - failedHeld <= handedOver, `${failed.length - failedHeld} failed requests on connections the killed worker neither held nor was handed`);
        const afterwards = outcomes.filter((outcome) => outcome.started > replaced);
        assert.ok(afterwards.length > 50 && afterwards.every((outcome) => typeof outcome.result === 'number'), 'every request after the replacement answered');
        // The held writes: those on the killed worker closed unanswered, the other's answered 201.
        assert.ok(heldPorts.some((port) => victimPorts.has(port)) && heldPorts.some((port) => survivorPorts.has(port)), 'each worker held some of the writes');
        for (const [index, answer] of heldAnswers.entries()) {
          if (victimPorts.has(heldPorts[index])) assert.equal(answer, '', `held write ${index} was on the killed worker`);
          else assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/);
        }

        // No acknowledged write lost: each read back through the API, and found in the table.
        const acknowledged = outcomes.flatMap((outcome) => (outcome.created ? [outcome.created] : []));
        assert.ok(acknowledged.length > 50);
        for (const { id, url: written } of acknowledged) {
          const answer = await fetch(`${base}/rest/v1/link/${id}/`, { headers: { accept: 'application/json', connection: 'close' } });
          assert.equal(answer.status, 200, `link ${id}`);
          assert.equal(((await answer.json()) as { url: string }).url, written);
        }
        const engine = openEngine(url);
        try {
          const stored = new Set((await engine.db.selectFrom('link').select('url').where('url', 'like', `${URL_PREFIX}%`).execute()).map((row) => row.url as string));
          for (const { url: written } of acknowledged) assert.ok(stored.has(written), written);
          for (const [index, write] of held.entries()) assert.equal(stored.has(write.url), !victimPorts.has(heldPorts[index]), `held write ${index}`);
          const unanswered = failed.filter((outcome) => outcome.kind === 'write').length;
          t.diagnostic(`${store.name}: ${acknowledged.length} writes answered 201, all read back and in the table; of ${unanswered} unanswered, ${stored.size - acknowledged.length - heldPorts.filter((port) => !victimPorts.has(port)).length} committed`);
        } finally {
          await engine.close();
        }

        // Counted by the primary, shown whichever worker answers /metrics.
        for (let index = 0; index < 4; index += 1) assert.equal(await restarts(base), 1);
        phase('checked');
      } finally {
        await server?.stop();
        phase('stopped');
        await drop();
        t.diagnostic(phases.join(', '));
      }
    });
  });
}
