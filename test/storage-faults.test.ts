/**
 * Faults of the database's storage made real (issue 26): a SQLite database on a small tmpfs
 * that fills up; a PostgreSQL database in a tablespace on such a tmpfs, and one set read-only. (A file system cannot be remounted
 * read-only under a database open for writing: SQLite's read-only case is its error codes'.) Each write
 * is answered with a retryable status (507 or 503, Retry-After) and words a client can show,
 * the log names the database's own error, reads go on, /readyz says writes cannot succeed,
 * nothing is half-written, and writes succeed again by themselves once the cause is gone.
 * Mounting needs root (CI runs as root); elsewhere the SQLite part is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, request, testStores, type Answer } from './support/server.ts';

const FULL = { status: 507, detail: "The database's storage is full: nothing was saved. Try again later." };
const READ_ONLY = { status: 503, detail: 'The database accepts no changes at the moment (read-only): nothing was saved. Try again later.' };

/** Mounts a tmpfs of `megabytes` at a new directory, or says why it cannot. */
function mountTmpfs(megabytes: number): { dir: string } | { why: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rsr-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { why: `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}): run as root to make a full disk real` };
  }
}

/** Writes a file until the file system has no room left; its path. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  const descriptor = openSync(filler, 'w');
  for (const size of [1024 * 1024, 4096, 512, 1]) {
    const chunk = Buffer.alloc(size, 1);
    try {
      for (;;) writeSync(descriptor, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
  }
  closeSync(descriptor);
  return filler;
}

const json = (key: string) => ({ authorization: `Token ${key}`, 'content-type': 'application/json' });

function assertRefused(answer: Answer, expected: { status: number; detail: string }, what: string): void {
  assert.equal(answer.status, expected.status, `${what}: ${answer.text}`);
  assert.equal(answer.text, JSON.stringify({ detail: expected.detail }), what);
  assert.equal(answer.headers.get('retry-after'), '30', what);
}

async function keywordCount(base: string): Promise<number> {
  return (await request(base, '/rest/v1/keyword/')).body.count as number;
}

describe('storage faults (sqlite, a real full file system)', () => {
  const mounted = mountTmpfs(24);
  const skip = 'why' in mounted ? mounted.why : false;
  let dir = '';
  let server: RunningServer;
  let key = '';
  let base = '';

  before(async () => {
    if (skip) return;
    dir = (mounted as { dir: string }).dir;
    mkdirSync(join(dir, 'db'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'db', 'rsr.sqlite')}` };
    assert.equal((await runCli(['import', FIXTURE], env)).code, 0);
    key = (await runCli(['token', 'create', '--email', 'ana@example.org'], env)).stdout.trim().split(/\s+/).pop() ?? '';
    server = await startCliServer([], env);
    base = server.base;
  });

  after(async () => {
    if (skip) return;
    await server?.stop();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a full disk: 507 with the words, reads answered, /readyz says so, nothing half-written, writes again once there is room', { skip }, async () => {
    const before = await keywordCount(base);
    const filler = fillDisk(dir);
    const refused = await request(base, '/rest/v1/keyword/', { method: 'POST', headers: json(key), body: JSON.stringify({ label: `Full ${'x'.repeat(90)}` }) });
    assertRefused(refused, FULL, 'POST');
    const patched = await request(base, '/rest/v1/keyword/1/', { method: 'PATCH', headers: json(key), body: JSON.stringify({ label: 'y'.repeat(100) }) });
    assertRefused(patched, FULL, 'PATCH');
    assert.equal((await request(base, '/rest/v1/keyword/')).status, 200, 'reads go on');
    const ready = await request(base, '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'unavailable', reason: "writes cannot succeed: the database's storage is full" });
    assert.match(server.output(), /write refused: the database's storage is full/);
    assert.match(server.output(), /SQLITE_FULL/);
    assert.doesNotMatch(server.output(), /cannot rollback/);

    rmSync(filler);
    assert.equal((await request(base, '/readyz')).status, 200, 'ready again once there is room');
    assert.equal(await keywordCount(base), before, 'nothing was written while full');
    const created = await request(base, '/rest/v1/keyword/', { method: 'POST', headers: json(key), body: JSON.stringify({ label: 'After the full disk' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(await keywordCount(base), before + 1);
    const database = new SQLite(join(dir, 'db', 'rsr.sqlite'), { readonly: true });
    try {
      assert.equal(database.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      database.close();
    }
  });
});

const postgres = testStores().find((store) => store.name === 'postgres');
describe('storage faults (postgres, a database set read-only)', { skip: postgres ? false : 'TEST_POSTGRES_URL is not set' }, () => {
  let server: RunningServer;
  let database: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let key = '';
  let admin: pg.Client;
  let name = '';

  /** Sets the database read-only (or back) and ends its sessions: the pool reconnects with the setting. */
  async function readOnly(on: boolean): Promise<void> {
    await admin.query(`alter database "${name}" set default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
  }

  /** A write, sent again while the pool is still reconnecting (503 "Database unavailable"). */
  async function write(body: string): Promise<Answer> {
    for (let attempt = 0; ; attempt += 1) {
      const answer = await request(server.base, '/rest/v1/keyword/', { method: 'POST', headers: json(key), body });
      if (answer.text !== '{"detail":"Database unavailable"}' || attempt === 20) return answer;
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  before(async () => {
    database = await postgres!.create();
    name = new URL(database.url).pathname.slice(1);
    const env = { DATABASE_URL: database.url };
    assert.equal((await runCli(['import', FIXTURE], env)).code, 0);
    key = (await runCli(['token', 'create', '--email', 'ana@example.org'], env)).stdout.trim().split(/\s+/).pop() ?? '';
    server = await startCliServer([], env);
    admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
  });

  after(async () => {
    await server?.stop();
    await admin?.end();
    await database?.drop();
  });

  test('writes 503 with the words while the database is read-only, /readyz says so, then writes again', async () => {
    const before = await keywordCount(server.base);
    await readOnly(true);
    try {
      assertRefused(await write(JSON.stringify({ label: 'Read-only' })), READ_ONLY, 'POST');
      assert.equal((await request(server.base, '/rest/v1/keyword/')).status, 200, 'reads go on');
      const ready = await request(server.base, '/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { status: 'unavailable', reason: 'writes cannot succeed: the database is read-only' });
      assert.match(server.output(), /write refused: the database is read-only/);
      assert.match(server.output(), /25006|read-only transaction/);
    } finally {
      await readOnly(false);
    }
    const created = await write(JSON.stringify({ label: 'Writable again' }));
    assert.equal(created.status, 201, created.text);
    assert.equal((await request(server.base, '/readyz')).status, 200);
    assert.equal(await keywordCount(server.base), before + 1);
  });
});

describe('storage faults (postgres, a tablespace on a real full file system)', { skip: postgres ? false : 'TEST_POSTGRES_URL is not set' }, () => {
  let skip: string | false = false;
  let dir = '';
  const suffix = process.pid;
  let admin: pg.Client;
  let server: RunningServer | undefined;
  let databaseUrl = '';
  let key = '';

  before(async () => {
    const mounted = mountTmpfs(16);
    if ('why' in mounted) {
      skip = mounted.why;
      return;
    }
    dir = mounted.dir;
    admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    try {
      // The server's own user writes the tablespace; a server on another host cannot see it.
      execFileSync('chown', ['postgres:postgres', dir]);
      await admin.query(`create tablespace rsr_full_${suffix} location '${dir}'`);
    } catch (error) {
      skip = `cannot put a tablespace on a tmpfs for this server (${(error as Error).message})`;
      return;
    }
    await admin.query(`create database rsr_full_${suffix} tablespace rsr_full_${suffix}`);
    const url = new URL(process.env.TEST_POSTGRES_URL!);
    url.pathname = `/rsr_full_${suffix}`;
    databaseUrl = url.toString();
    assert.equal((await runCli(['import', FIXTURE], { DATABASE_URL: databaseUrl })).code, 0);
    key = (await runCli(['token', 'create', '--email', 'ana@example.org'], { DATABASE_URL: databaseUrl })).stdout.trim().split(/\s+/).pop() ?? '';
    server = await startCliServer([], { DATABASE_URL: databaseUrl });
  });

  after(async () => {
    await server?.stop();
    if (admin) {
      await admin.query(`drop database if exists rsr_full_${suffix}`).catch(() => undefined);
      await admin.query(`drop tablespace if exists rsr_full_${suffix}`).catch(() => undefined);
      await admin.end();
    }
    if (dir) {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a full disk under the tables: 507 with the words, the cause logged, /readyz says so, writes again once there is room', async (context) => {
    if (skip) return context.skip(skip);
    const base = server!.base;
    const before = await keywordCount(base);
    const filler = fillDisk(dir);
    // The pages the tables have room in take a few rows; the first that needs a new page is refused.
    let refused: Answer | undefined;
    let written = 0;
    for (let attempt = 0; attempt < 2000 && !refused; attempt += 1) {
      const answer = await request(base, '/rest/v1/keyword/', { method: 'POST', headers: json(key), body: JSON.stringify({ label: `Filling ${attempt} ${'y'.repeat(80)}` }) });
      if (answer.status === 201) written += 1;
      else refused = answer;
    }
    assert.ok(refused, 'a write was refused once the disk was full');
    assertRefused(refused, FULL, 'POST');
    const ready = await request(base, '/readyz');
    assert.deepEqual([ready.status, ready.body], [503, { status: 'unavailable', reason: "writes cannot succeed: the database's storage is full" }]);
    assert.equal((await request(base, '/rest/v1/keyword/')).status, 200, 'reads go on');
    assert.match(server!.output(), /write refused: the database's storage is full/);
    assert.match(server!.output(), /No space left on device/);
    assert.equal(await keywordCount(base), before + written, 'the refused write left nothing');

    rmSync(filler);
    const created = await request(base, '/rest/v1/keyword/', { method: 'POST', headers: json(key), body: JSON.stringify({ label: 'After the full disk' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal((await request(base, '/readyz')).status, 200, 'a write that succeeded clears it');
  });
});
