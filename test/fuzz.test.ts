/**
 * Property-based tests (issue: hostile callers): generated requests over every list, record and
 * /api/v1/ route, and generated write bodies, by every kind of caller. No answer is a 5xx or
 * takes longer than 10 s, every 4xx is a JSON error, every 2xx readable in its format, and a
 * refused write changes nothing. `FUZZ_RUNS` sets the cases per property (npm run fuzz: 100,000).
 */
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { TABLES } from '../src/resources/index.ts';
import { columnNames } from '../src/store/columns.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { accept, authorization, checkAnswer, readPath, send, writeBody } from './support/fuzz.ts';
import { testStores, useServer, type TestServer } from './support/server.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** A counterexample can be a 16 KB URL: the report keeps its start. */
const REPORT_CHARS = 3000;
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fc.assert with this run's settings; a failure reports the seed to replay it (FUZZ_SEED) and a shortened counterexample. */
async function check<T>(property: fc.IAsyncPropertyWithHooks<T>): Promise<void> {
  const details = await fc.check(property, { numRuns: RUNS, seed: SEED });
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample).slice(0, REPORT_CHARS);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`failed after ${details.numRuns} cases (FUZZ_SEED=${details.seed}, path ${details.counterexamplePath}): ${cause.slice(0, REPORT_CHARS)}\ncounterexample: ${example}`);
}

/**
 * When a key was last used: noted on a key's first use (users.ts, noteUse), whatever the request
 * asked, so a key's first refused write notes it. Authentication's record, not data a write changes.
 */
const NOT_DATA = new Set(['api_token.last_used_at']);

/** Everything the database holds, as one hash: a refused write must leave it as it was. */
async function fingerprint(server: TestServer): Promise<string> {
  const { db, name } = server.engine;
  const columns = (entity: (typeof TABLES)[number]) => columnNames(entity).filter((column) => !NOT_DATA.has(`${entity.table}.${column}`));
  if (name === 'postgres') {
    // One round trip: every row of every table, hashed by the server.
    const tables = TABLES.map((entity) => sql`(select coalesce(md5(string_agg(t::text, '|' order by t.id)), '-') from (select ${sql.join(columns(entity).map((column) => sql.ref(column)))} from ${sql.table(entity.table)}) as t)`);
    const { rows } = await sql<{ hash: string }>`select md5(${sql.join(tables, sql` || `)}) as hash`.execute(db);
    return rows[0].hash;
  }
  const tables = await Promise.all(TABLES.map((entity) => db.selectFrom(entity.table).select(columns(entity) as never[]).orderBy('id').execute()));
  return createHash('sha256').update(JSON.stringify(tables)).digest('hex');
}

/** Keys of an administrator and of each role at organisation 1 (partner of project 1), and of a user without one. */
async function roleKeys(server: TestServer): Promise<string[]> {
  const keys = [await createToken(server.engine, 'ana@example.org'), await createToken(server.engine, 'bo@example.org')];
  const roles = ['Admins', 'M&E Managers', 'Project Editors', 'User Managers', 'Enumerators', 'Users', null];
  for (const [index, role] of roles.entries()) {
    const email = `fuzz${index}@example.org`;
    await createUser(server.engine, { email, firstName: 'Fuzz', lastName: String(index), ...(role ? { organisation: 1, role } : {}) });
    keys.push(await createToken(server.engine, email));
  }
  return keys;
}

for (const store of testStores()) {
  describe(`fuzz (${store.name})`, () => {
    const server = useServer(store);
    let keys: string[] = [];
    const statuses = new Map<number, number>();
    before(async () => {
      keys = await roleKeys(server);
    });
    after(() => {
      const seen = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
      const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
      const errors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
      process.stderr.write(`fuzz (${store.name}): ${total} requests, ${errors} answered 5xx; statuses ${seen}\n`);
    });
    const tally = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

    test(`reads: ${RUNS} generated requests`, async () => {
      await check(
        fc.asyncProperty(fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS'), readPath, accept, authorization(keys), async (method, path, acceptHeader, auth) => {
          const reply = await send(server.base, method, path, { accept: acceptHeader, authorization: auth });
          tally(reply.status);
          checkAnswer(method, path, reply);
        }),
      );
    });

    test(`writes: ${RUNS} generated bodies; a refused one changes nothing`, async () => {
      await check(
        fc.asyncProperty(writeBody, authorization(keys, 1), async ({ method, path, payload }, auth) => {
          const before = await fingerprint(server);
          const headers = { authorization: auth, 'content-type': payload.type || undefined };
          const reply = await send(server.base, method, path, headers, method === 'DELETE' ? undefined : payload.body);
          tally(reply.status);
          checkAnswer(method, path, reply);
          if (reply.status >= 400 && (await fingerprint(server)) !== before) throw new Error(`${method} ${path} answered ${reply.status} but changed the data`);
        }),
      );
    });
  });
}
