/**
 * rsr-api's command line: serve | migrate | import | export | demo | backup | restore | user | token | help.
 * Configuration comes from the environment (config.ts); messages go to stderr, data to files or stdout.
 * What each command takes is declared once, in commands/help.ts, for parsing and help alike.
 */
import { parseArgs } from 'node:util';
import cluster from 'node:cluster';
import { backupCommand, restoreCommand } from './commands/backup.ts';
import { superviseWorkers } from './commands/cluster.ts';
import { COMMANDS, commandHelp, commandUsage, overallUsage, parseOptions } from './commands/help.ts';
import { serve } from './commands/serve.ts';
import { loadDemo, writeDemoFiles } from './commands/demo.ts';
import { say, summary, Unavailable, UsageError } from './commands/messages.ts';
import { importProgress, unitOf, withProgress } from './commands/progress.ts';
import { tokenCommand, userCommand } from './commands/users.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { maskUrl } from './ops/redact.ts';
import { packageVersion } from './version.ts';
import { BackupError } from './store/backup.ts';
import { NotEmpty } from './store/copy-tables.ts';
import { openEngine, type Engine } from './store/engine/index.ts';
import { exportDataset, readDataset } from './store/dataset-files.ts';
import { ImportError, importRecords } from './store/import.ts';
import { migrate } from './store/migrations.ts';
import { UserError } from './store/users.ts';

type Values = Record<string, string | boolean | undefined>;

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
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`--${name} must be a positive number, not '${value}'`, 'demo');
  return parsed;
}

/** A command's own options and positionals; a mistake in them is answered with that command's usage. */
function parseCommand(command: string, args: string[]): { values: Values; positionals: string[] } {
  try {
    // No option is `multiple`: every value is one string or flag.
    return parseArgs({ args, allowPositionals: true, options: parseOptions(command) }) as { values: Values; positionals: string[] };
  } catch (error) {
    if (String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')) throw new UsageError((error as Error).message, command);
    throw error;
  }
}

async function run(argv: string[]): Promise<void> {
  // The command is the first word that is not an option: `rsr-api --help export` is export's help.
  const at = argv.findIndex((arg) => !arg.startsWith('-'));
  const command = at === -1 ? undefined : argv[at];
  const args = at === -1 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (command === undefined) return overall(args);
  // Before any configuration is read or database opened: a typo touches nothing.
  if (!(command in COMMANDS)) throw new UsageError(`unknown command '${command}'`);
  const { values, positionals } = parseCommand(command, args);
  if (values.help || command === 'help') return help(command === 'help' ? positionals[0] : command);
  const [first, second] = positionals;
  checkAction(command, first);
  const config = loadConfig();
  if (command === 'serve') return cluster.isPrimary && config.workers > 1 ? superviseWorkers(config, values.demo === true) : serve(config, values.demo === true);
  // Files only: no database of DATABASE_URL is opened.
  if (command === 'demo' && !values.load) return writeDemoFiles(first ?? './data/demo', number(values.scale as string | undefined, 'scale', 1), number(values.seed as string | undefined, 'seed', 1), config.timeZone);
  const { engine, applied } = await open(config);
  try {
    switch (command) {
      case 'migrate':
        say(applied.length ? `Applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')} to ${maskUrl(engine.location)}.` : `Schema of ${maskUrl(engine.location)} is up to date.`);
        return;
      case 'import':
        return await importCommand(engine, first, values);
      case 'export':
        return await exportCommand(engine, first, config.timeZone);
      case 'demo':
        return await loadDemo(engine, number(values.scale as string | undefined, 'scale', 1), number(values.seed as string | undefined, 'seed', 1), values.replace === true);
      case 'backup':
        return await backupCommand(engine, first);
      case 'restore':
        return await restoreCommand(engine, first, values.replace === true);
      case 'user':
        return await userCommand(engine, first, values);
      case 'token':
        return await tokenCommand(engine, first, second, values, config.timeZone);
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    await engine.close();
  }
}

/** The action of a command that has some (user create…): known before any database is opened. */
function checkAction(command: string, action: string | undefined): void {
  const actions = COMMANDS[command].actions;
  if (!actions || (action !== undefined && actions.includes(action))) return;
  throw new UsageError(action === undefined ? `${command} needs one of: ${actions.join(', ')}` : `unknown ${command} command '${action}'`, command);
}

/** No command: --version, or the overall usage. */
function overall(args: string[]): void {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } });
  process.stdout.write(`${values.version ? packageVersion() : overallUsage()}\n`);
}

/** `help [COMMAND]`, `COMMAND --help`: on stdout. */
function help(topic: string | undefined): void {
  if (topic !== undefined && !(topic in COMMANDS)) throw new UsageError(`unknown command '${topic}'`);
  process.stdout.write(`${topic === undefined ? overallUsage() : commandHelp(topic)}\n`);
}

async function importCommand(engine: Engine, dir: string | undefined, values: Values): Promise<void> {
  if (!dir) throw new UsageError('import needs a dataset directory', 'import');
  if (values['keep-users'] && !values.replace) throw new UsageError('--keep-users goes with --replace', 'import');
  const sources = readDataset(dir);
  const counts = await withProgress('Importing', unitOf(sources), (tell) =>
    importRecords(engine, sources, { replace: values.replace === true, keepUsers: values['keep-users'] === true, progress: importProgress(sources, tell) }));
  say(`Imported ${dir}: ${summary(counts)}`);
}

async function exportCommand(engine: Engine, dir: string | undefined, timeZone: string): Promise<void> {
  if (!dir) throw new UsageError('export needs a directory', 'export');
  const counts = await withProgress('Exporting', 'records', (tell) => exportDataset(engine, dir, timeZone, tell));
  say(`Exported to ${dir}: ${summary(counts)}`);
}

/** Our own refusals, and node:util's parseArgs errors: a user's mistake, said in its message alone. */
const REFUSALS = [ImportError, UsageError, UserError, Unavailable, BackupError, NotEmpty];

run(process.argv.slice(2)).catch((error: unknown) => {
  // A setting that cannot be used: one line, and status 2, as for a usage error of most tools.
  if (error instanceof ConfigError) {
    say(`rsr-api: ${error.message}`);
    process.exit(2);
  }
  const argumentError = error instanceof Error && String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');
  if (REFUSALS.some((kind) => error instanceof kind) || argumentError) {
    say(`rsr-api: ${(error as Error).message}`);
    if (error instanceof UsageError) say(error.command ? commandUsage(error.command) : overallUsage());
  } else {
    say(`rsr-api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  process.exit(1);
});
