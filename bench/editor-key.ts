/**
 * Prints a new API key of the demo's editor (a Project Editor at a partner of published
 * projects), making the demo's users first where the database lacks them: the `EDITOR_KEY` of
 * `bench/drive.ts`'s writes. `node --import tsx bench/editor-key.ts DATABASE_URL`
 */
import { createDemoUsers } from '../src/commands/demo.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { createToken, listUsers } from '../src/store/users.ts';

const EDITOR = 'editor@demo.rsr-api.org';

const engine = openEngine(process.argv[2] ?? process.env.DATABASE_URL ?? '');
try {
  if (!(await listUsers(engine)).some((user) => user.email === EDITOR)) await createDemoUsers(engine, false);
  console.log(await createToken(engine, EDITOR));
} finally {
  await engine.close();
}
