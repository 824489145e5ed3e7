/**
 * `backup FILE` and `restore FILE` (operations.md, Backups): real processes of the command line
 * against a real server that keeps writing while the backup runs. The backup must be one moment
 * of the database: the links written one after another are a prefix of those acknowledged, the
 * organisations deleted (each delete a write to several tables: the organisation, its locations,
 * employments and partnerships) a prefix of the deletions, no reference dangles, and the restore
 * holds exactly what the backup file holds.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { generateDemo } from '../demo/generate.ts';
import { storedFields } from '../src/resources/define.ts';
import { TABLES } from '../src/resources/index.ts';
import { openEngine, type Engine } from '../src/store/engine/index.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { carriedProjects } from './support/carried-projects.ts';
import { onTerminal, runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { request, testStores, type TestStore } from './support/server.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The servers here are about backups, not shedding load: a machine busy with other work must not make them answer 503. */
const SERVER_ENV = { MAX_EVENT_LOOP_DELAY_MS: '60000' };
const scratch = () => mkdtempSync(join(tmpdir(), 'rsr-backup-'));
const count = (value: number) => value.toLocaleString('en-US');
/** What a command says of each table, as "project 120, link 1,000" (tables without records left out). */
const summaryOf = (counts: Map<string, number>) => [...counts].filter(([, n]) => n > 0).map(([table, n]) => `${table} ${count(n)}`).join(', ');
/** A progress line in a log: "  link: 1,000 records… 40% of 23,400 records". */
const PROGRESS_LINE = /^ {2}.+… \d+% of [\d.,]+ (MB|records)$/;

/** Records per table of a backup file (always an SQLite database), read as SQLite reads it. */
function fileCounts(path: string): Map<string, number> {
  const file = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    return new Map(TABLES.map((entity) => [entity.table, Number(file.prepare(`select count(*) from "${entity.table}"`).pluck().get())]));
  } finally {
    file.close();
  }
}

function integrityOf(path: string): string {
  const file = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    return String(file.pragma('integrity_check', { simple: true }));
  } finally {
    file.close();
  }
}

async function tableCounts(engine: Engine): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const entity of TABLES) counts.set(entity.table, Number((await engine.db.selectFrom(entity.table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n));
  return counts;
}

/** References to records that are not there: a write half in the backup would leave some. */
async function danglingReferences(engine: Engine): Promise<string[]> {
  const dangling: string[] = [];
  for (const entity of TABLES) {
    for (const [name, field] of storedFields(entity)) {
      if (!field.references || name === 'id') continue;
      const row = await engine.db.selectFrom(`${entity.table} as t`).select((eb) => eb.fn.countAll().as('n'))
        .where(`t.${name}`, 'is not', null).where(`t.${name}`, 'not in', engine.db.selectFrom(field.references).select('id')).executeTakeFirstOrThrow();
      if (Number(row.n) > 0) dangling.push(`${entity.table}.${name}: ${row.n}`);
    }
  }
  return dangling;
}

const idsOf = async (engine: Engine, table: string, where?: [string, number]) => {
  let query = engine.db.selectFrom(table).select('id').orderBy('id');
  if (where) query = query.where(where[0], '=', where[1]);
  return (await query.execute()).map((row) => Number(row.id));
};

/** The demo at scale 0.2, an administrator with a key; the organisations to delete, each with what goes with it. */
async function prepare(url: string) {
  const engine = openEngine(url);
  try {
    await migrate(engine);
    await importRecords(engine, generateDemo({ scale: 0.2, seed: 1 }).map(({ entity, records }) => ({ file: entity, label: entity, records })));
    await createUser(engine, { email: 'ops@example.org', firstName: 'Op', lastName: 'Erator', admin: true });
    const key = await createToken(engine, 'ops@example.org');
    // Organisations that are partners: deleting one deletes its partnerships (and employments) with it.
    const partners = await engine.db.selectFrom('partnership').select('organisation').distinct().orderBy('organisation').execute();
    const organisations = partners.map((row) => Number(row.organisation));
    const belonging = new Map<number, { partnerships: number[]; employments: number[] }>();
    for (const id of organisations) {
      belonging.set(id, { partnerships: await idsOf(engine, 'partnership', ['organisation', id]), employments: await idsOf(engine, 'employment', ['organisation', id]) });
    }
    assert.deepEqual(await danglingReferences(engine), []);
    return { key, project: (await idsOf(engine, 'project'))[0], links: await idsOf(engine, 'link'), organisations, belonging };
  } finally {
    await engine.close();
  }
}

/** Between two deletions of organisations. */
const DELETION_PAUSE_MS = 700;

interface Write {
  /** The link's id, or the organisation deleted. */
  id: number;
  sent: number;
  acknowledged: number;
}

/**
 * Writes one after another until `stop`: links created, organisations deleted; each acknowledged
 * write with its times. The last organisation waits for `backupEnded`: on a slow machine the
 * others may all go while the backup runs, and one deletion must come after it.
 */
function keepWriting(base: string, key: string, project: number, organisations: number[], backupEnded: () => boolean) {
  let stopping = false;
  const links: Write[] = [];
  const deletions: Write[] = [];
  const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
  const linking = (async () => {
    for (let n = 0; !stopping; n += 1) {
      const sent = Date.now();
      const answer = await request(base, '/rest/v1/link/', { method: 'POST', headers, body: JSON.stringify({ project, url: `https://example.org/during-backup/${n}` }) });
      // 503: the database was busy (the backup's schema check): nothing written, tried again.
      if (answer.status === 201) links.push({ id: answer.body.id, sent, acknowledged: Date.now() });
      else assert.equal(answer.status, 503, answer.text);
    }
  })();
  const deleting = (async () => {
    for (const id of organisations) {
      while (id === organisations.at(-1) && !backupEnded() && !stopping) await new Promise((resolve) => setTimeout(resolve, 20));
      for (;;) {
        if (stopping) return;
        const sent = Date.now();
        const answer = await request(base, `/rest/v1/organisation/${id}/`, { method: 'DELETE', headers });
        if (answer.status === 204) {
          deletions.push({ id, sent, acknowledged: Date.now() });
          // Paced: the deletions last from before the backup begins until after it ends.
          await new Promise((resolve) => setTimeout(resolve, DELETION_PAUSE_MS));
          break;
        }
        assert.equal(answer.status, 503, answer.text);
      }
    }
  })();
  return {
    links,
    deletions,
    async stop() {
      stopping = true;
      await Promise.all([linking, deleting]);
    },
  };
}

/** The writes in the backup are the first of those made, all made before it began, none sent after it ended. */
function assertPrefix(what: string, inBackup: number[], writes: Write[], started: number, ended: number): void {
  const held = writes.filter((write) => inBackup.includes(write.id));
  assert.deepEqual(held, writes.slice(0, held.length), `${what}: the backup holds a prefix of the writes`);
  for (const write of writes.filter((write) => write.acknowledged < started)) assert.ok(inBackup.includes(write.id), `${what} ${write.id}, acknowledged before the backup began, is in it`);
  for (const write of writes.filter((write) => write.sent > ended)) assert.ok(!inBackup.includes(write.id), `${what} ${write.id}, sent after the backup ended, is not in it`);
  assert.ok(writes.some((write) => write.sent > ended), `${what}: writes went on after the backup`);
}

/** `backup FILE` run while the server at `url` keeps writing, from before it starts until after it ends. */
async function backupWhileWriting(url: string, file: string, setup: Awaited<ReturnType<typeof prepare>>) {
  const server = await startCliServer([], { DATABASE_URL: url, ...SERVER_ENV });
  let ended = 0;
  // Ended, and in a later millisecond: a deletion sent in the one the backup ended in is not after it.
  const writes = keepWriting(server.base, setup.key, setup.project, setup.organisations, () => ended > 0 && Date.now() > ended);
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  try {
    while (writes.links.length < 5 || writes.deletions.length < 2) await pause();
    const started = Date.now();
    const backup = await runCli(['backup', file], { DATABASE_URL: url });
    ended = Date.now();
    // A deletion sent after the backup ended, not merely answered after it: one sent while the
    // backup ran may be answered after it, and counting answers then stopped the writes before
    // the last organisation's deletion was sent (seen once on PostgreSQL).
    const links = writes.links.length;
    while (writes.links.length < links + 5 || !writes.deletions.some((write) => write.sent > ended)) await pause();
    return { backup, writes, started, ended };
  } finally {
    await writes.stop();
    await server.stop();
  }
}

for (const store of testStores()) {
  describe(`backup and restore (${store.name})`, () => {
    const databases: { drop(): Promise<void> }[] = [];
    const fresh = async (on: TestStore = store) => {
      const database = await on.create();
      databases.push(database);
      return database.url;
    };
    let url: string;
    let setup: Awaited<ReturnType<typeof prepare>>;
    const file = join(scratch(), 'backup.sqlite');
    let restored: string;

    before(async () => {
      url = await fresh();
      setup = await prepare(url);
    });
    after(async () => {
      for (const database of databases) await database.drop();
    });

    test('a backup taken while the server writes holds one moment: writes wholly in or out, none half', async () => {
      const { backup, writes, started, ended } = await backupWhileWriting(url, file, setup);
      assert.equal(backup.code, 0, backup.stderr);
      assert.equal(backup.stdout, '');
      assert.equal(integrityOf(file), 'ok');
      assert.equal(existsSync(`${file}.partial`), false);
      const counts = fileCounts(file);
      const lines = backup.stderr.trimEnd().split('\n');
      const size = (statSync(file).size / 1e6).toFixed(1);
      const location = store.name === 'sqlite' ? `sqlite ${url.slice('sqlite:'.length)}` : `postgres ${url}`;
      assert.match(lines.at(-2) as string, new RegExp(`^Backed up ${escape(location)} to ${escape(file)} \\(${size} MB\\) in \\d+\\.\\d s: ${escape(summaryOf(counts))}$`));
      assert.equal(lines.at(-1), `Restore it with: rsr-api restore ${file}`);
      for (const line of lines.slice(0, -2)) assert.match(line, PROGRESS_LINE);

      // Restored into a new database: exactly what the file holds, and a moment of the writes.
      restored = await fresh();
      const restore = await runCli(['restore', file], { DATABASE_URL: restored });
      assert.equal(restore.code, 0, restore.stderr);
      const said = restore.stderr.trimEnd().split('\n');
      const into = store.name === 'sqlite' ? `sqlite ${restored.slice('sqlite:'.length)}` : `postgres ${restored}`;
      assert.match(said.at(-1) as string, new RegExp(`^Restored ${escape(file)} into ${escape(into)} in \\d+\\.\\d s: ${escape(summaryOf(counts))}$`));
      for (const line of said.slice(0, -1)) assert.match(line, PROGRESS_LINE);
      const engine = openEngine(restored);
      try {
        assert.deepEqual(await tableCounts(engine), counts);
        assert.deepEqual(await danglingReferences(engine), []);
        if (store.name === 'sqlite') assert.equal(integrityOf(restored.slice('sqlite:'.length)), 'ok');
        const links = await idsOf(engine, 'link');
        assert.deepEqual(links.filter((id) => setup.links.includes(id)), setup.links, 'the links there before all stay');
        assertPrefix('link', links.filter((id) => !setup.links.includes(id)), writes.links, started, ended);
        const organisations = await idsOf(engine, 'organisation');
        const gone = setup.organisations.filter((id) => !organisations.includes(id));
        assertPrefix('organisation deleted', gone, writes.deletions, started, ended);
        // Each organisation with all that belongs to it, or none of it.
        for (const id of setup.organisations) {
          const kept = gone.includes(id) ? { partnerships: [], employments: [] } : setup.belonging.get(id);
          assert.deepEqual({ partnerships: await idsOf(engine, 'partnership', ['organisation', id]), employments: await idsOf(engine, 'employment', ['organisation', id]) }, kept, `organisation ${id}`);
        }
      } finally {
        await engine.close();
      }
    });

    test("the restored database serves, and its keys are the backup's", async () => {
      const server: RunningServer = await startCliServer([], { DATABASE_URL: restored, ...SERVER_ENV });
      try {
        // An administrator sees every link (others only those of public projects).
        const headers = { authorization: `Token ${setup.key}`, 'content-type': 'application/json' };
        const links = fileCounts(file).get('link') as number;
        assert.equal((await request(server.base, '/rest/v1/link/?limit=1', { headers })).body.count, links);
        const created = await request(server.base, '/rest/v1/link/', { method: 'POST', headers, body: JSON.stringify({ project: setup.project, url: 'https://example.org/after-restore' }) });
        assert.equal(created.status, 201, created.text);
        assert.equal((await request(server.base, '/rest/v1/link/?limit=1', { headers })).body.count, links + 1);
      } finally {
        await server.stop();
      }
    });

    test('restore refuses a database that holds data, and with --replace replaces all of it', async () => {
      const into = store.name === 'sqlite' ? `sqlite ${restored.slice('sqlite:'.length)}` : `postgres ${restored}`;
      const refused = await runCli(['restore', file], { DATABASE_URL: restored });
      assert.deepEqual([refused.code, refused.stdout], [1, '']);
      assert.equal(refused.stderr.split('\n').filter((line) => !PROGRESS_LINE.test(line)).join('\n'),
        `rsr-api: ${into} holds data (project, program, user, project_location, …); restore with --replace to replace all of it, users and API keys too\n`);
      const replaced = await runCli(['restore', file, '--replace'], { DATABASE_URL: restored });
      assert.equal(replaced.code, 0, replaced.stderr);
      assert.match(replaced.stderr.trimEnd().split('\n').at(-1) as string, new RegExp(`^Restored ${escape(file)} into ${escape(into)}, replacing all it held in \\d+\\.\\d s: `));
      const engine = openEngine(restored);
      try {
        assert.deepEqual(await tableCounts(engine), fileCounts(file), 'the link written after the restore is gone again');
      } finally {
        await engine.close();
      }
    });

    test('backup never overwrites a file; restore says what is not a backup', async () => {
      const again = await runCli(['backup', file], { DATABASE_URL: url });
      assert.deepEqual([again.code, again.stdout, again.stderr], [1, '', `rsr-api: ${file} exists already: a backup never overwrites a file (name a new one, or remove it first)\n`]);
      const missing = join(scratch(), 'none.sqlite');
      const none = await runCli(['restore', missing], { DATABASE_URL: await fresh() });
      assert.deepEqual([none.code, none.stderr], [1, `rsr-api: ${missing}: no such file\n`]);
      const text = join(scratch(), 'notes.txt');
      copyFileSync(new URL(import.meta.url).pathname, text);
      const other = await runCli(['restore', text], { DATABASE_URL: await fresh() });
      assert.deepEqual([other.code, other.stderr], [1, `rsr-api: ${text} is not a backup of rsr-api (file is not a database)\n`]);
    });

    test('on a terminal, backup draws a bar with its total and the time left', async () => {
      const shown = await onTerminal(['backup', join(scratch(), 'terminal.sqlite')], { DATABASE_URL: url });
      assert.equal(shown.code, 0, shown.output);
      const unit = store.name === 'sqlite' ? 'MB' : 'records';
      assert.match(shown.output, new RegExp(`Backing up \\[[█░]{30}\\] 100% \\| ([\\d.,]+)/\\1 ${unit} \\| ETA 0s \\| done`));
      assert.doesNotMatch(shown.output, /^ {2}.+… \d+% of/m, 'no plain progress lines on a terminal');
      assert.match(shown.output, /\r?\nBacked up /);
    });
  });
}

describe('backup across engines', { skip: !process.env.TEST_POSTGRES_URL && 'TEST_POSTGRES_URL is not set' }, () => {
  test('a backup of SQLite restores into PostgreSQL, and back, record for record', async () => {
    const [sqlite, postgres] = testStores();
    const databases = [await sqlite.create(), await postgres.create(), await sqlite.create()];
    try {
      await prepare(databases[0].url);
      const first = join(scratch(), 'from-sqlite.sqlite');
      assert.equal((await runCli(['backup', first], { DATABASE_URL: databases[0].url })).code, 0);
      const into = await runCli(['restore', first], { DATABASE_URL: databases[1].url });
      assert.equal(into.code, 0, into.stderr);
      const second = join(scratch(), 'from-postgres.sqlite');
      assert.equal((await runCli(['backup', second], { DATABASE_URL: databases[1].url })).code, 0);
      const back = await runCli(['restore', second], { DATABASE_URL: databases[2].url });
      assert.equal(back.code, 0, back.stderr);
      assert.deepEqual(fileCounts(second), fileCounts(first));
      // Copies carry a record's fields, not its kept project: each copy finds it again from the record's path.
      for (const database of databases.slice(1)) {
        const engine = openEngine(database.url);
        try {
          const carried = await carriedProjects(engine);
          assert.deepEqual(Object.values(carried).map(({ wrong }) => wrong), [0, 0, 0], `${database.url}: ${JSON.stringify(carried)}`);
          assert.ok(Object.values(carried).every(({ records }) => records > 0), JSON.stringify(carried));
        } finally {
          await engine.close();
        }
      }
      // Record for record: the same export from the first database and the last.
      const exports = [join(scratch(), 'a'), join(scratch(), 'b')];
      for (const [index, url] of [databases[0].url, databases[2].url].entries()) assert.equal((await runCli(['export', exports[index]], { DATABASE_URL: url })).code, 0);
      for (const name of readdirSync(exports[0])) assert.equal(readFileSync(join(exports[1], name), 'utf8'), readFileSync(join(exports[0], name), 'utf8'), name);
    } finally {
      for (const database of databases) await database.drop();
    }
  });
});
