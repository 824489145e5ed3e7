/** `user …` and `token …`: users and their API keys; lists as aligned tables on stdout, the rest said on stderr. */
import { renderTimestamp } from '../text/time.ts';
import type { Engine } from '../store/engine/index.ts';
import { createToken, createUser, listTokens, listUsers, revokeTokens, setUserActive, type UserListing } from '../store/users.ts';
import { say, table, UsageError } from './messages.ts';

type Values = Record<string, string | boolean | undefined>;

const text = (values: Values, name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
const yesNo = (flag: boolean) => (flag ? 'yes' : 'no');

/** A positive whole number given as --name. */
export function wholeNumber(value: string, name: string, command: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new UsageError(`--${name} must be a positive whole number, not '${value}'`, command);
  return parsed;
}

function needEmail(values: Values, what: string): string {
  const email = text(values, 'email');
  if (!email) throw new UsageError(`${what} needs --email`, what.split(' ')[0]);
  return email;
}

export async function userCommand(engine: Engine, action: string | undefined, values: Values): Promise<void> {
  switch (action) {
    case 'create':
      return create(engine, values);
    case 'list':
      process.stdout.write(`${usersTable(await listUsers(engine))}\n`);
      return;
    case 'deactivate':
    case 'activate': {
      const email = needEmail(values, `user ${action}`);
      const { id, changed } = await setUserActive(engine, email, action === 'activate');
      if (!changed) say(`User ${id} (${email}) is ${action === 'activate' ? 'active' : 'inactive'} already.`);
      else if (action === 'activate') say(`Activated user ${id} (${email}): their API keys work again.`);
      else say(`Deactivated user ${id} (${email}): their API keys are refused from now on (user activate undoes it).`);
      return;
    }
    default:
      throw new UsageError(`unknown user command '${action ?? ''}'`, 'user');
  }
}

async function create(engine: Engine, values: Values): Promise<void> {
  const email = needEmail(values, 'user create');
  const organisation = values.org === undefined ? undefined : wholeNumber(text(values, 'org'), 'org', 'user');
  const role = values.role === undefined ? undefined : text(values, 'role');
  const id = await createUser(engine, { email, firstName: text(values, 'first-name'), lastName: text(values, 'last-name'), organisation, role, admin: values.admin === true });
  say(`Created user ${id} (${email})${values.admin ? ', an administrator' : ''}${organisation === undefined ? '' : `, ${role || 'Users'} at organisation ${organisation}`}.`);
}

/** Employments as "4 Project Editors, 7 Users (not approved)". */
const employmentsOf = (user: UserListing) =>
  user.employments.map((employment) => `${employment.organisation} ${employment.role}${employment.approved ? '' : ' (not approved)'}`).join(', ') || '-';

function usersTable(users: UserListing[]): string {
  return table(['id', 'email', 'name', 'active', 'admin', 'organisations'], users.map((user) => [
    String(user.id), user.email, user.name || '-', yesNo(user.active), yesNo(user.admin), employmentsOf(user),
  ]));
}

export async function tokenCommand(engine: Engine, action: string | undefined, key: string | undefined, values: Values, timeZone: string): Promise<void> {
  switch (action) {
    case 'create':
      process.stdout.write(`${await createToken(engine, needEmail(values, 'token create'))}\n`);
      say('This key is shown once: keep it (only its hash is stored).');
      return;
    case 'list': {
      const tokens = await listTokens(engine, values.email === undefined ? undefined : text(values, 'email'));
      // A stored instant in TIME_ZONE, to the second.
      const created = (canonical: string) => renderTimestamp(canonical, timeZone).replace(/\.\d+/, '');
      const rows = tokens.map((token) => [String(token.id), String(token.user), token.email, created(token.created), token.lastUsed === null ? 'never' : created(token.lastUsed)]);
      process.stdout.write(`${table(['id', 'user', 'email', 'created', 'last used'], rows)}\n`);
      return;
    }
    case 'revoke': {
      const id = values.id === undefined ? undefined : wholeNumber(text(values, 'id'), 'id', 'token');
      if ([key, id, values.email].filter((given) => given !== undefined).length !== 1) throw new UsageError('token revoke needs one of a key, --id or --email', 'token');
      say(`Revoked ${await revokeTokens(engine, { key, id, email: values.email === undefined ? undefined : text(values, 'email') })} key(s).`);
      return;
    }
    default:
      throw new UsageError(`unknown token command '${action ?? ''}'`, 'token');
  }
}
