/**
 * rsr-api's command line: serve | migrate | import | export | demo.
 * Configuration comes from the environment (config.ts); messages go to stderr, data to files.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { openEngine, type Engine } from './store/engine/index.ts';
import { exportDataset, readDataset } from './store/dataset-files.ts';
import { ImportError, importRecords, type DatasetSource } from './store/import.ts';
import { migrate, schemaGate } from './store/migrations.ts';
import { createToken, createUser, revokeTokens, UserError, type NewUser } from './store/users.ts';

const USAGE = `usage: rsr-api <command>
  serve [--demo]                 start the API on PORT (default 8000); --demo fills an empty database with demo data
  migrate                        create or upgrade the schema of DATABASE_URL
  import DIR [--replace [--keep-users]]
                                 import a dataset directory (all or nothing); --replace removes every record
                                 first, users and API keys too unless --keep-users
  export DIR                     write the database as a dataset directory
  demo [DIR] [--scale X] [--seed N] [--load] [--replace]
                                 generate the demo dataset into DIR (default ./data/demo), or with --load into the database
  user create --email E --first-name F --last-name L [--org ID --role ROLE] [--admin]
                                 create a user (with an approved employment at organisation ID)
  token create --email E         print a new API key for the user (shown this once, stored hashed)
  token revoke (KEY | --email E) remove one key, or every key of a user
  --help, --version

environment (README, Configuration):
  PORT (8000)  HOST (127.0.0.1)  DATABASE_URL (sqlite:./data/rsr.sqlite, or postgres://user:password@host:5432/name)
  DATABASE_POOL_SIZE (10)  TIME_ZONE (Europe/Stockholm)  TRUST_PROXY (off)  ALLOWED_HOSTS (any)`;

const COMMANDS = new Set(['serve', 'migrate', 'import', 'export', 'demo', 'user', 'token']);

/** The version in package.json (beside src/ in a checkout, beside dist/ when built). */
function version(): string {
  for (const path of ['../package.json', '../../package.json']) {
    const file = new URL(path, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

class UsageError extends Error {}
/** The database cannot be reached: said in one line, without a stack. */
class Unavailable extends Error {}

const say = (message: string) => process.stderr.write(`${message}\n`);
const formatCount = (count: number) => count.toLocaleString('en-US');

async function open(config: Config): Promise<Engine> {
  const engine = openEngine(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    await migrate(engine);
  } catch (error) {
    await engine.close();
    throw engine.isUnavailable(error) ? new Unavailable(`the database is unavailable (${(error as Error).message})`) : error;
  }
  return engine;
}

async function demoSources(scale: number, seed: number): Promise<DatasetSource[]> {
  const { generateDemo } = await import('../demo/generate.ts');
  return generateDemo({ scale, seed }).map(({ entity, records }) => ({ file: entity, label: `demo ${entity}`, records }));
}

const progress = (file: string, records: number) => say(`  ${file}: ${formatCount(records)} records…`);

function summary(counts: Map<string, number>): string {
  return [...counts].filter(([, count]) => count > 0).map(([file, count]) => `${file} ${formatCount(count)}`).join(', ');
}

async function loadDemo(engine: Engine, scale: number, seed: number, replace: boolean): Promise<void> {
  const started = Date.now();
  say(`Generating the demo dataset (scale ${scale}, seed ${seed}) into ${engine.location}…`);
  const counts = await importRecords(engine, await demoSources(scale, seed), { replace, progress });
  say(`Loaded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary(counts)}`);
}

/**
 * Four users to try writes with at once, their keys printed this once: an administrator, and a
 * project editor, an enumerator and a plain user at the reporting organisation of a published project.
 */
async function createDemoUsers(engine: Engine): Promise<void> {
  const partner = await engine.db
    .selectFrom('partnership as p')
    .innerJoin('project as j', 'j.id', 'p.project')
    .innerJoin('organisation as o', 'o.id', 'p.organisation')
    .select(['o.id as id', 'o.name as name', 'j.id as project'])
    .where('p.iati_organisation_role', '=', 101)
    .where('j.publishing_status', '=', 'published')
    .orderBy('j.id')
    .executeTakeFirstOrThrow();
  const organisation = partner.id as number;
  const people: [string, string, Omit<NewUser, 'email' | 'firstName' | 'lastName'>][] = [
    ['administrator', 'admin', { admin: true }],
    ['project editor', 'editor', { organisation, role: 'Project Editors' }],
    ['enumerator', 'enumerator', { organisation, role: 'Enumerators' }],
    ['user', 'user', { organisation, role: 'Users' }],
  ];
  say(`Demo users (their keys are shown this once; organisation ${organisation} "${partner.name}" is a partner of project ${partner.project}):`);
  for (const [title, name, options] of people) {
    const email = `${name}@demo.rsr-api.org`;
    await createUser(engine, { email, firstName: title.charAt(0).toUpperCase() + title.slice(1), lastName: 'Demo', ...options });
    say(`  ${title.padEnd(15)} ${email.padEnd(28)} Authorization: Token ${await createToken(engine, email)}`);
  }
}

async function serve(config: Config, withDemo: boolean): Promise<void> {
  const engine = openEngine(config.databaseUrl, { poolSize: config.databasePoolSize });
  const schemaReady = schemaGate(engine);
  let contents = 'database unavailable: answering 503 until it is back';
  try {
    await schemaReady();
    const projects = async () => Number((await engine.db.selectFrom('project').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
    if (withDemo && (await projects()) === 0) {
      await loadDemo(engine, 1, 1, false);
      await createDemoUsers(engine);
    }
    // Projects, not all records: counting every table of a large database would delay start-up.
    contents = `${formatCount(await projects())} projects`;
  } catch (error) {
    if (!engine.isUnavailable(error)) throw error;
  }
  const app = buildApp({ engine, schemaReady, timeZone: config.timeZone, trustProxy: config.trustProxy, allowedHosts: config.allowedHosts });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
  say(`rsr-api listening on http://${shown}:${port}/rest/v1/ (${engine.name} ${engine.location}: ${contents})`);
  const stop = async () => {
    await app.close();
    await engine.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function number(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`--${name} must be a positive number, not '${value}'`);
  return parsed;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      demo: { type: 'boolean' }, replace: { type: 'boolean' }, 'keep-users': { type: 'boolean' }, load: { type: 'boolean' },
      scale: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' },
      email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' },
      org: { type: 'string' }, role: { type: 'string' }, admin: { type: 'boolean' },
    },
  });
  const [command, dir] = positionals;
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Before any configuration is read or database opened: a typo touches nothing.
  if (!COMMANDS.has(command)) throw new UsageError(`unknown command '${command}'`);
  const config = loadConfig();
  if (command === 'serve') return serve(config, values.demo ?? false);
  const engine = await open(config);
  try {
    switch (command) {
      case 'migrate':
        say(`Schema of ${engine.location} is up to date.`);
        return;
      case 'import': {
        if (!dir) throw new UsageError('import needs a dataset directory');
        if (values['keep-users'] && !values.replace) throw new UsageError('--keep-users goes with --replace');
        const counts = await importRecords(engine, readDataset(dir), { replace: values.replace, keepUsers: values['keep-users'], progress });
        say(`Imported ${dir}: ${summary(counts)}`);
        return;
      }
      case 'export': {
        if (!dir) throw new UsageError('export needs a directory');
        say(`Exported to ${dir}: ${summary(await exportDataset(engine, dir, config.timeZone))}`);
        return;
      }
      case 'demo':
        return await demo(engine, config, dir, values);
      case 'user':
        return await userCommand(engine, dir, values);
      case 'token':
        return await tokenCommand(engine, dir, positionals[2], values.email);
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    await engine.close();
  }
}

async function userCommand(engine: Engine, action: string | undefined, values: Record<string, string | boolean | undefined>): Promise<void> {
  if (action !== 'create') throw new UsageError(`unknown user command '${action ?? ''}'`);
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
  if (!text('email')) throw new UsageError('user create needs --email');
  const organisation = values.org === undefined ? undefined : number(text('org'), 'org', 0);
  const id = await createUser(engine, {
    email: text('email'), firstName: text('first-name'), lastName: text('last-name'),
    organisation, role: values.role === undefined ? undefined : text('role'), admin: values.admin === true,
  });
  say(`Created user ${id} (${text('email')})${values.admin ? ', an administrator' : ''}${organisation === undefined ? '' : `, ${text('role') || 'Users'} at organisation ${organisation}`}.`);
}

async function tokenCommand(engine: Engine, action: string | undefined, key: string | undefined, email: string | undefined): Promise<void> {
  if (action === 'create') {
    if (!email) throw new UsageError('token create needs --email');
    process.stdout.write(`${await createToken(engine, email)}\n`);
    say('This key is shown once: keep it (only its hash is stored).');
    return;
  }
  if (action === 'revoke') {
    say(`Revoked ${await revokeTokens(engine, { key, email })} key(s).`);
    return;
  }
  throw new UsageError(`unknown token command '${action ?? ''}'`);
}

async function demo(engine: Engine, config: Config, dir: string | undefined, values: { scale?: string; seed?: string; load?: boolean; replace?: boolean }): Promise<void> {
  const scale = number(values.scale, 'scale', 1);
  const seed = number(values.seed, 'seed', 1);
  if (values.load) return loadDemo(engine, scale, seed, values.replace ?? false);
  // Files are written through a scratch database, so they hold exactly what an export gives.
  const scratchDir = mkdtempSync(join(tmpdir(), 'rsr-demo-'));
  const scratch = openEngine(`sqlite:${join(scratchDir, 'demo.sqlite')}`);
  try {
    await migrate(scratch);
    await loadDemo(scratch, scale, seed, false);
    const target = dir ?? './data/demo';
    say(`Wrote ${target}: ${summary(await exportDataset(scratch, target, config.timeZone))}`);
  } finally {
    await scratch.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  // Our own refusals and node:util's parseArgs errors are a user's mistake: the message alone.
  const argumentError = error instanceof Error && String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');
  if (error instanceof ImportError || error instanceof UsageError || error instanceof UserError || error instanceof Unavailable || argumentError) {
    say(`rsr-api: ${error.message}`);
    if (error instanceof UsageError) say(USAGE);
  } else {
    say(`rsr-api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  process.exit(1);
});
