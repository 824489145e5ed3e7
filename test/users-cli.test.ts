/**
 * Users and API keys from the command line (operations.md, Users and keys): `user list`,
 * `user deactivate`/`activate` and `token list`/`revoke`, as real processes, their tables on
 * stdout checked to the character, and their effect on a real server's authentication.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openEngine } from '../src/store/engine/index.ts';
import { readDataset } from '../src/store/dataset-files.ts';
import { importRecords } from '../src/store/import.ts';
import { migrate } from '../src/store/migrations.ts';
import { renderTimestamp } from '../src/text/time.ts';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';
import { FIXTURE, request, testStores } from './support/server.ts';

for (const store of testStores()) {
  describe(`user and token commands (${store.name})`, () => {
    let drop: () => Promise<void>;
    let env: Record<string, string>;
    let server: RunningServer;
    const keys: Record<string, string> = {};
    const cli = (...args: string[]) => runCli(args, env);
    const get = (key: string) => request(server.base, '/rest/v1/my_projects/', { headers: { authorization: `Token ${key}` } });

    before(async () => {
      const database = await store.create();
      drop = database.drop;
      // Key times shown in UTC: the expected tables do not depend on the zone of the machine.
      env = { DATABASE_URL: database.url, TIME_ZONE: 'UTC' };
      const engine = openEngine(database.url);
      try {
        await migrate(engine);
        await importRecords(engine, readDataset(FIXTURE));
      } finally {
        await engine.close();
      }
      // About authentication, not shedding load: a machine busy with other work must not make it answer 503.
      server = await startCliServer([], { ...env, MAX_EVENT_LOOP_DELAY_MS: '60000' });
    });
    after(async () => {
      await server?.stop();
      await drop();
    });

    test('user list: every user, with their organisations and roles, as an aligned table', async () => {
      const listed = await cli('user', 'list');
      assert.deepEqual([listed.code, listed.stderr], [0, '']);
      assert.equal(listed.stdout, [
        'id  email            name      active  admin  organisations',
        '1   ana@example.org  Ana Ruiz  yes     yes    1 Users, 2 Admins',
        '2   bo@example.org   Bo Chén   yes     no     3 Enumerators (not approved), 4 Project Editors',
        '',
      ].join('\n'));
    });

    test('a user made and given a key; deactivated, their key is refused at once; activated, it works again', async () => {
      const created = await cli('user', 'create', '--email', 'cy@example.org', '--first-name', 'Cy', '--last-name', 'Lee', '--org', '1', '--role', 'Project Editors');
      assert.deepEqual([created.code, created.stdout, created.stderr], [0, '', 'Created user 3 (cy@example.org), Project Editors at organisation 1.\n']);
      const key = await cli('token', 'create', '--email', 'cy@example.org');
      assert.equal(key.code, 0, key.stderr);
      assert.match(key.stdout, /^[0-9a-f]{40}\n$/);
      keys.cy = key.stdout.trim();
      assert.equal((await get(keys.cy)).status, 200);

      const off = await cli('user', 'deactivate', '--email', 'cy@example.org');
      assert.deepEqual([off.code, off.stdout, off.stderr], [0, '', 'Deactivated user 3 (cy@example.org): their API keys are refused from now on (user activate undoes it).\n']);
      const refused = await get(keys.cy);
      assert.deepEqual([refused.status, refused.body], [403, { detail: 'User inactive or deleted.' }]);
      const listed = await cli('user', 'list');
      assert.equal(listed.stdout.split('\n')[3], '3   cy@example.org   Cy Lee    no      no     1 Project Editors');
      const again = await cli('user', 'deactivate', '--email', 'cy@example.org');
      assert.deepEqual([again.code, again.stderr], [0, 'User 3 (cy@example.org) is inactive already.\n']);

      const on = await cli('user', 'activate', '--email', 'cy@example.org');
      assert.deepEqual([on.code, on.stderr], [0, 'Activated user 3 (cy@example.org): their API keys work again.\n']);
      assert.equal((await get(keys.cy)).status, 200);
      const nobody = await cli('user', 'deactivate', '--email', 'nobody@example.org');
      assert.deepEqual([nobody.code, nobody.stdout, nobody.stderr], [1, '', 'rsr-api: no user with e-mail nobody@example.org\n']);
    });

    test('token list: id, user, when each key was made and last used (no part of a key is stored to show)', async () => {
      const key = await cli('token', 'create', '--email', 'ana@example.org');
      keys.ana = key.stdout.trim();
      const stored = async () => {
        const engine = openEngine(env.DATABASE_URL);
        try {
          return await engine.db.selectFrom('api_token').select(['id', 'created_at', 'last_used_at']).orderBy('id').execute();
        } finally {
          await engine.close();
        }
      };
      const rows = await stored();
      const shown = (value: unknown) => (value === null ? 'never' : renderTimestamp(String(value), 'UTC').replace(/\.\d+/, ''));
      const at = (id: number, column: 'created_at' | 'last_used_at') => shown(rows.find((row) => Number(row.id) === id)![column]);
      assert.match(at(1, 'created_at'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      // Cy's key answered requests in the test before; Ana's is new.
      assert.match(at(1, 'last_used_at'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(at(2, 'last_used_at'), 'never');
      const all = await cli('token', 'list');
      assert.deepEqual([all.code, all.stderr], [0, '']);
      assert.equal(all.stdout, [
        'id  user  email            created               last used',
        `1   3     cy@example.org   ${at(1, 'created_at')}  ${at(1, 'last_used_at')}`,
        `2   1     ana@example.org  ${at(2, 'created_at')}  never`,
        '',
      ].join('\n'));

      // Ana's first request is noted at once; the next ones within five minutes are not written.
      const before = Date.now();
      assert.equal((await get(keys.ana)).status, 200);
      const first = (await stored())[1].last_used_at;
      const noted = Date.parse(renderTimestamp(String(first), 'UTC'));
      assert.ok(noted >= before - 1000 && noted <= Date.now(), `${first} is when the key was used`);
      assert.equal((await get(keys.ana)).status, 200);
      assert.equal((await stored())[1].last_used_at, first);

      const ana = await cli('token', 'list', '--email', 'ana@example.org');
      assert.equal(ana.stdout, ['id  user  email            created               last used', `2   1     ana@example.org  ${at(2, 'created_at')}  ${shown(first)}`, ''].join('\n'));
      const nobody = await cli('token', 'list', '--email', 'nobody@example.org');
      assert.deepEqual([nobody.code, nobody.stdout, nobody.stderr], [1, '', 'rsr-api: no user with e-mail nobody@example.org\n']);
    });

    test('token revoke --id removes that key only; revoke needs exactly one of a key, --id or --email', async () => {
      const revoked = await cli('token', 'revoke', '--id', '1');
      assert.deepEqual([revoked.code, revoked.stderr], [0, 'Revoked 1 key(s).\n']);
      const gone = await get(keys.cy);
      assert.deepEqual([gone.status, gone.body], [403, { detail: 'Invalid token.' }]);
      assert.equal((await get(keys.ana)).status, 200);
      const none = await cli('token', 'revoke');
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^rsr-api: token revoke needs one of a key, --id or --email\nusage: rsr-api token create --email E\n/);
      const bad = await cli('token', 'revoke', '--id', 'seven');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^rsr-api: --id must be a positive whole number, not 'seven'\nusage: rsr-api token create/);
    });
  });
}
