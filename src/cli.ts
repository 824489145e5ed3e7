/**
 * rsr-api's command line: serve | migrate | import | export | demo.
 * Configuration comes from the environment (config.ts); messages go to stderr, data to files.
 */
import { parseArgs } from 'node:util';
import cluster from 'node:cluster';
import { superviseWorkers } from './commands/cluster.ts';
import { serve } from './commands/serve.ts';
import { loadDemo, writeDemoFiles } from './commands/demo.ts';
import { progress, say, summary, Unavailable, UsageError } from './commands/messages.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { maskUrl } from './ops/redact.ts';
import { packageVersion } from './version.ts';
import { openEngine, type Engine } from './store/engine/index.ts';
import { exportDataset, readDataset } from './store/dataset-files.ts';
import { ImportError, importRecords } from './store/import.ts';
import { migrate } from './store/migrations.ts';
import { createToken, createUser, revokeTokens, UserError } from './store/users.ts';

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
  DATABASE_POOL_SIZE (10)  WORKERS (one per CPU)  TIME_ZONE (Europe/Stockholm)  TRUST_PROXY (off)  ALLOWED_HOSTS (any)
  LOG_LEVEL (info)  LOG_FORMAT (pretty in a terminal, else json)  CORS_ORIGINS (none)
  METRICS_PORT (none: /metrics on no listener of its own)  METRICS_HOST (127.0.0.1)  METRICS_TOKEN (none: no /metrics on PORT)
  RATE_LIMIT (off, e.g. 600/minute)  REQUEST_TIMEOUT (30 s)  HEADERS_TIMEOUT (10 s)  KEEP_ALIVE_TIMEOUT (65 s)
  STATEMENT_TIMEOUT_MS (10000)  MAX_EVENT_LOOP_DELAY_MS (200)  SHUTDOWN_TIMEOUT (25 s)
  LARGE_PAGE_SIZE (300)  LARGE_PAGES_PER_CALLER (6 per worker)  TOKEN_FAILURE_LIMIT (20/minute per address)
  REPORT_THREADS (1 per worker)  REPORTS_PER_CALLER (2)  REPORT_QUEUE (32)`;

const COMMANDS = new Set(['serve', 'migrate', 'import', 'export', 'demo', 'user', 'token']);

/** The database of DATABASE_URL with its schema current; the migrations it took to get there. */
async function open(config: Config): Promise<{ engine: Engine; applied: number[] }> {
  const engine = openEngine(config.databaseUrl, { poolSize: config.databasePoolSize, statementTimeoutMs: 0 });
  try {
    return { engine, applied: await migrate(engine) };
  } catch (error) {
    await engine.close();
    throw engine.isUnavailable(error) ? new Unavailable(`the database is unavailable (${maskUrl((error as Error).message)})`) : error;
  }
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
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Before any configuration is read or database opened: a typo touches nothing.
  if (!COMMANDS.has(command)) throw new UsageError(`unknown command '${command}'`);
  const config = loadConfig();
  if (command === 'serve') return cluster.isPrimary && config.workers > 1 ? superviseWorkers(config, values.demo ?? false) : serve(config, values.demo ?? false);
  // Files only: no database of DATABASE_URL is opened.
  if (command === 'demo' && !values.load) return writeDemoFiles(dir ?? './data/demo', number(values.scale, 'scale', 1), number(values.seed, 'seed', 1), config.timeZone);
  const { engine, applied } = await open(config);
  try {
    switch (command) {
      case 'migrate':
        say(applied.length ? `Applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')} to ${maskUrl(engine.location)}.` : `Schema of ${maskUrl(engine.location)} is up to date.`);
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
        return await loadDemo(engine, number(values.scale, 'scale', 1), number(values.seed, 'seed', 1), values.replace ?? false);
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

run(process.argv.slice(2)).catch((error: unknown) => {
  // A setting that cannot be used: one line, and status 2, as for a usage error of most tools.
  if (error instanceof ConfigError) {
    say(`rsr-api: ${error.message}`);
    process.exit(2);
  }
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
