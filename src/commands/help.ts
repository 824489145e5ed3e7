/**
 * What each command takes and says about itself: its options (parsed by node:util's parseArgs,
 * so that what is documented is what is accepted), its usage, an example. `rsr-api --help` lists
 * them all; `rsr-api <command> --help` and `rsr-api help <command>` show one.
 */
import type { ParseArgsConfig } from 'node:util';
import { ROLES } from '../resources/caller.ts';

interface Option {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's name in the usage (--email E). */
  value?: string;
  help: string;
}

export interface Command {
  /** Its lines in the overall usage: how it is called, then what it does (a line or two). */
  overview: [string, ...string[]][];
  /** Its actions (user create, user list…), checked before any database is opened. */
  actions?: string[];
  /** How it is called, one line per form. */
  usage: string[];
  about: string;
  options: Record<string, Option>;
  examples: string[];
}

const HELP: Option = { type: 'boolean', short: 'h', help: 'this help' };
const REPLACE_ALL = 'remove every record first, users and API keys too';

export const COMMANDS: Record<string, Command> = {
  serve: {
    overview: [['serve [--demo]', 'start the API on PORT (default 8000); --demo fills an empty database with demo data']],
    usage: ['serve [--demo]'],
    about: 'Starts the API (WORKERS processes) on HOST:PORT, with the database of DATABASE_URL, migrating its schema first.',
    options: { demo: { type: 'boolean', help: 'an empty database is filled with the demo dataset (scale 1) and four demo users' } },
    examples: ['DATABASE_URL=sqlite:./data/rsr.sqlite rsr-api serve --demo'],
  },
  migrate: {
    overview: [['migrate', 'create or upgrade the schema of DATABASE_URL']],
    usage: ['migrate'],
    about: 'Creates or upgrades the schema of the database of DATABASE_URL; safe to run again (it then changes nothing).',
    options: {},
    examples: ['DATABASE_URL=postgres://rsr@db:5432/rsr rsr-api migrate'],
  },
  import: {
    overview: [['import DIR [--replace [--keep-users]]', 'import a dataset directory (all or nothing); --replace removes every record', 'first, users and API keys too unless --keep-users']],
    usage: ['import DIR [--replace [--keep-users]]'],
    about: 'Imports a dataset directory (one JSON file per resource, as export writes them) into the database of DATABASE_URL, all or nothing: the first problem stops it, naming file, record and field, and nothing is written.',
    options: {
      replace: { type: 'boolean', help: REPLACE_ALL },
      'keep-users': { type: 'boolean', help: 'with --replace: users, their employments and API keys stay' },
    },
    examples: ['rsr-api import ./data/demo', 'rsr-api import ./export --replace --keep-users'],
  },
  export: {
    overview: [['export DIR', 'write the database as a dataset directory (one snapshot; without API keys)']],
    usage: ['export DIR'],
    about: 'Writes the database of DATABASE_URL as a dataset directory, every file read from one snapshot while the service goes on. API keys are left out: an export is for sharing (use backup for a copy that keeps them).',
    options: {},
    examples: ['rsr-api export ./export'],
  },
  demo: {
    overview: [['demo [DIR] [--scale X] [--seed N] [--load] [--replace]', 'generate the demo dataset into DIR (default ./data/demo), or with --load into the database']],
    usage: ['demo [DIR] [--scale X] [--seed N]', 'demo --load [--scale X] [--seed N] [--replace]'],
    about: 'Generates the demo dataset (scale 1: 600 projects, about 120,000 records), the same for the same scale and seed: as files into DIR, or with --load into the database of DATABASE_URL.',
    options: {
      scale: { type: 'string', value: 'X', help: 'size, 1 as the original service (default 1; 0.05 is tiny, 100 a benchmark)' },
      seed: { type: 'string', value: 'N', help: 'another seed, another dataset (default 1)' },
      load: { type: 'boolean', help: 'into the database of DATABASE_URL instead of files' },
      replace: { type: 'boolean', help: `with --load: ${REPLACE_ALL}` },
    },
    examples: ['rsr-api demo ./data/demo --scale 0.1', 'rsr-api demo --load --scale 10'],
  },
  backup: {
    overview: [['backup FILE', 'write a consistent copy of the database, API keys included, to a new FILE (an SQLite database)']],
    usage: ['backup FILE'],
    about: 'Writes a consistent copy of the database of DATABASE_URL, taken at one moment while the service goes on, to FILE: an SQLite database of rsr-api, API keys (their hashes) included, whatever the database. It can be served as it is (DATABASE_URL=sqlite:FILE) and is loaded back with restore. FILE must not exist.',
    options: {},
    examples: ['rsr-api backup ./backups/rsr-$(date +%F).sqlite'],
  },
  restore: {
    overview: [['restore FILE [--replace]', 'load a backup into the database (all or nothing); a database holding data only with --replace']],
    usage: ['restore FILE [--replace]'],
    about: 'Loads a backup made by backup into the database of DATABASE_URL (SQLite or PostgreSQL), all or nothing. A database that holds data is refused unless --replace, which replaces all of it, users and API keys too. A backup of an older version is upgraded on a copy; the file itself is never changed.',
    options: { replace: { type: 'boolean', help: 'replace everything the database holds' } },
    examples: ['rsr-api restore ./backups/rsr-2025-01-31.sqlite', 'DATABASE_URL=postgres://rsr@db:5432/rsr rsr-api restore rsr.sqlite --replace'],
  },
  user: {
    overview: [
      ['user create --email E --first-name F --last-name L [--org ID --role ROLE] [--admin]', 'create a user (with an approved employment at organisation ID)'],
      ['user list', 'every user: e-mail, name, active, administrator, organisations and roles'],
      ['user deactivate --email E', "the user's API keys are refused from now on (user activate: again accepted)"],
    ],
    actions: ['create', 'list', 'deactivate', 'activate'],
    usage: ['user create --email E --first-name F --last-name L [--org ID --role ROLE] [--admin]', 'user list', 'user deactivate --email E', 'user activate --email E'],
    about: 'Creates users, lists them (id, e-mail, name, active, administrator, organisations and roles; a table on stdout), and makes one inactive, or active again: the API keys of an inactive user are refused ("User inactive or deleted."), and work again once the user is active.',
    options: {
      email: { type: 'string', value: 'E', help: "the user's e-mail (their name to every command)" },
      'first-name': { type: 'string', value: 'F', help: 'first name' },
      'last-name': { type: 'string', value: 'L', help: 'last name' },
      org: { type: 'string', value: 'ID', help: 'an approved employment at this organisation' },
      role: { type: 'string', value: 'ROLE', help: `the employment's role: ${ROLES.join(', ')} (default Users)` },
      admin: { type: 'boolean', help: 'an administrator (sees and edits everything)' },
    },
    examples: ['rsr-api user create --email ana@example.org --first-name Ana --last-name Lund --org 42 --role "Project Editors"', 'rsr-api user deactivate --email ana@example.org'],
  },
  token: {
    overview: [
      ['token create --email E', 'print a new API key for the user (shown this once, stored hashed)'],
      ['token list [--email E]', 'the keys (id, user, created, last used), of every user or of one'],
      ['token revoke (KEY | --id N | --email E)', 'remove one key, or every key of a user'],
    ],
    actions: ['create', 'list', 'revoke'],
    usage: ['token create --email E', 'token list [--email E]', 'token revoke (KEY | --id N | --email E)'],
    about: "Makes API keys (printed once on stdout: only a hash is stored), lists them (id, user, created; a table on stdout), and removes one, by the key or by its id, or every key of a user. A key's text cannot be shown again, nor is when it was last used recorded.",
    options: {
      email: { type: 'string', value: 'E', help: 'the user whose keys these are' },
      id: { type: 'string', value: 'N', help: 'the key with this id (as token list shows it)' },
    },
    examples: ['rsr-api token create --email ana@example.org', 'rsr-api token list --email ana@example.org', 'rsr-api token revoke --id 7'],
  },
  help: {
    overview: [['help [COMMAND]', "a command's usage, options and examples (as rsr-api COMMAND --help)"]],
    usage: ['help [COMMAND]'],
    about: 'Shows what a command takes and does, with examples; without a command, the list of commands.',
    options: {},
    examples: ['rsr-api help backup'],
  },
};

const ENVIRONMENT = `environment (docs/operations.md, Configuration):
  PORT (8000)  HOST (127.0.0.1)  DATABASE_URL (sqlite:./data/rsr.sqlite, or postgres://user:password@host:5432/name)
  DATABASE_POOL_SIZE (10)  WORKERS (one per CPU the process may use)  TIME_ZONE (Europe/Stockholm)
  TRUST_PROXY (off)  ALLOWED_HOSTS (any)  LOG_LEVEL (info)  LOG_FORMAT (pretty in a terminal, else json)  CORS_ORIGINS (none)
  METRICS_PORT (none: /metrics on no listener of its own)  METRICS_HOST (127.0.0.1)  METRICS_TOKEN (none: no /metrics on PORT)
  RATE_LIMIT (off, e.g. 600/minute)  REQUEST_TIMEOUT (30 s)  HEADERS_TIMEOUT (10 s)  KEEP_ALIVE_TIMEOUT (65 s)
  STATEMENT_TIMEOUT_MS (10000)  MAX_EVENT_LOOP_DELAY_MS (200)  SHUTDOWN_TIMEOUT (25 s)
  LARGE_PAGE_SIZE (300)  LARGE_PAGES_PER_CALLER (6 per worker)  TOKEN_FAILURE_LIMIT (20/minute per address)
  REPORT_THREADS (1 per worker)  REPORTS_PER_CALLER (2)  REPORT_QUEUE (32)`;

/** The synopsis column of the overall usage is this wide; a longer synopsis has its summary below. */
const SYNOPSIS_WIDTH = 31;

/** `rsr-api --help`: every command in a line or two, and the environment. */
export function overallUsage(): string {
  const lines = ['usage: rsr-api <command>'];
  for (const [synopsis, first, ...rest] of Object.values(COMMANDS).flatMap((command) => command.overview)) {
    if (synopsis.length < SYNOPSIS_WIDTH) lines.push(`  ${synopsis.padEnd(SYNOPSIS_WIDTH)}${first}`);
    else lines.push(`  ${synopsis}`, `  ${' '.repeat(SYNOPSIS_WIDTH)}${first}`);
    for (const line of rest) lines.push(`  ${' '.repeat(SYNOPSIS_WIDTH)}${line}`);
  }
  lines.push('  --help, --version', '  rsr-api <command> --help       that command\'s usage, options and examples', '', ENVIRONMENT);
  return lines.join('\n');
}

/** The options of a command as parseArgs takes them, --help included. */
export function parseOptions(name: string): NonNullable<ParseArgsConfig['options']> {
  const options = { ...COMMANDS[name].options, help: HELP };
  return Object.fromEntries(Object.entries(options).map(([option, { type, short }]) => [option, short ? { type, short } : { type }]));
}

function optionLines(command: Command): string[] {
  const entries = Object.entries({ ...command.options, help: HELP }).map(([name, option]) => [`--${name}${option.value ? ` ${option.value}` : ''}${option.short ? `, -${option.short}` : ''}`, option.help]);
  const width = Math.max(...entries.map(([flag]) => flag.length)) + 2;
  return entries.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`);
}

/** How a command is called, and its options: shown after a mistake in calling it. */
export function commandUsage(name: string): string {
  const command = COMMANDS[name];
  return [...command.usage.map((line, index) => `${index === 0 ? 'usage:' : '      '} rsr-api ${line}`), 'options:', ...optionLines(command), `more: rsr-api help ${name}`].join('\n');
}

/** `rsr-api <command> --help`: its usage, what it does, its options and examples. */
export function commandHelp(name: string): string {
  const command = COMMANDS[name];
  return [
    ...command.usage.map((line, index) => `${index === 0 ? 'usage:' : '      '} rsr-api ${line}`),
    '',
    wrap(command.about, 100),
    '',
    'options:',
    ...optionLines(command),
    '',
    `example${command.examples.length > 1 ? 's' : ''}:`,
    ...command.examples.map((example) => `  ${example}`),
  ].join('\n');
}

/** Text broken into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join('\n');
}
