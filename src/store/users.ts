/**
 * Users and their API keys (http.md, Authentication). A key is 40 random hex digits, shown once;
 * only its SHA-256 is stored, so a copy of the database gives nobody a working key.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Caller, Entity, Row, StoredField } from '../resources/define.ts';
import { importText } from '../resources/messages.ts';
import * as support from '../resources/support.ts';
import { cleanRecord } from '../resources/validate.ts';
import { changeData } from './data-version.ts';
import { nowCanonical } from '../text/time.ts';
import type { Engine } from './engine/index.ts';
import { fromColumns, insertRecord, updateRecord } from './columns.ts';

export class UserError extends Error {}

export interface NewUser {
  email: string;
  firstName: string;
  lastName: string;
  /** An approved employment at this organisation, with `role`. */
  organisation?: number;
  role?: string;
  admin?: boolean;
}

const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

async function userIdByEmail(engine: Engine, email: string): Promise<number> {
  const row = await engine.db.selectFrom('user').select('id').where('email', '=', email).executeTakeFirst();
  if (!row) throw new UserError(`no user with e-mail ${email}`);
  return row.id as number;
}

export async function createUser(engine: Engine, user: NewUser): Promise<number> {
  return changeData(engine, ['user', 'employment'], async (trx) => {
    if (await trx.selectFrom('user').select('id').where('email', '=', user.email).executeTakeFirst()) throw new UserError(`a user with e-mail ${user.email} exists already`);
    if (user.organisation !== undefined && !(await trx.selectFrom('organisation').select('id').where('id', '=', user.organisation).executeTakeFirst())) {
      throw new UserError(`no organisation with id ${user.organisation}`);
    }
    const id = await insertRecord(engine, trx, support.user, valid(support.user, {
      email: user.email, first_name: user.firstName, last_name: user.lastName, is_admin: user.admin ?? false,
    }));
    if (user.organisation !== undefined) {
      await insertRecord(engine, trx, support.employment, valid(support.employment, {
        user: id, organisation: user.organisation, group: user.role ?? 'Users', is_approved: true,
      }));
    }
    return id;
  });
}

/** The stored form of a record the command line builds; its problems as a message. */
function valid(entity: Entity, input: Row): Row {
  const { record, problems } = cleanRecord(entity, input, { ignore: new Set(['id']) });
  if (problems.length) throw new UserError(`${problems[0].field} ${importText(problems[0])}`);
  return record;
}

/** A new key for the user; the only time it is ever seen. */
export async function createToken(engine: Engine, email: string): Promise<string> {
  const user = await userIdByEmail(engine, email);
  const key = randomBytes(20).toString('hex');
  // A transaction of its own: a key's id, too, is taken from the table's sequence (Engine.nextId).
  await engine.db.transaction().execute((trx) => insertRecord(engine, trx, support.apiToken, { user, key_hash: hashOf(key), created_at: nowCanonical() }));
  return key;
}

/** Removes one key (by itself or by its id), or every key of a user; the number removed. */
export async function revokeTokens(engine: Engine, which: { key?: string; email?: string; id?: number }): Promise<number> {
  let query = engine.db.deleteFrom('api_token');
  if (which.key) query = query.where('key_hash', '=', hashOf(which.key));
  else if (which.id !== undefined) query = query.where('id', '=', which.id);
  else if (which.email) query = query.where('user', '=', await userIdByEmail(engine, which.email));
  else throw new UserError('token revoke needs a key, --id or --email');
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A user as `user list` shows them, with their employments. */
export interface UserListing {
  id: number;
  email: string;
  name: string;
  active: boolean;
  admin: boolean;
  employments: { organisation: number; role: string; approved: boolean }[];
}

const userFlag = (engine: Engine, value: unknown) => engine.dialect.fromDb(support.user.fields.is_active as StoredField, value) === true;

/** Every user, in id order. */
export async function listUsers(engine: Engine): Promise<UserListing[]> {
  const users = (await engine.db.selectFrom('user').selectAll().orderBy('id').execute()).map((row) => fromColumns(support.user, engine.dialect, row as Row));
  const employments = (await engine.db.selectFrom('employment').selectAll().orderBy('organisation').orderBy('id').execute())
    .map((row) => fromColumns(support.employment, engine.dialect, row as Row));
  return users.map((user) => ({
    id: user.id as number,
    email: user.email as string,
    name: [user.first_name, user.last_name].filter(Boolean).join(' '),
    active: user.is_active === true,
    admin: user.is_admin === true || user.is_superuser === true,
    employments: employments.filter((employment) => employment.user === user.id)
      .map((employment) => ({ organisation: employment.organisation as number, role: employment.group as string, approved: employment.is_approved === true })),
  }));
}

/**
 * Lets a user sign in, or no longer: an inactive user's keys are refused at once (callerForKey
 * reads is_active on every request) and work again if the user is made active again. The user's
 * id, and whether anything changed.
 */
export async function setUserActive(engine: Engine, email: string, active: boolean): Promise<{ id: number; changed: boolean }> {
  return changeData(engine, ['user'], async (trx) => {
    const row = await trx.selectFrom('user').select(['id', 'is_active']).where('email', '=', email).executeTakeFirst();
    if (!row) throw new UserError(`no user with e-mail ${email}`);
    if (userFlag(engine, row.is_active) === active) return { id: row.id as number, changed: false };
    await updateRecord(engine, trx, support.user, row.id as number, { is_active: active });
    return { id: row.id as number, changed: true };
  });
}

/**
 * A key as `token list` shows it. Only its hash is stored, so no part of the key itself can be
 * shown; its id names it (token revoke --id). `lastUsed` is exact to USE_NOTED_EVERY_MS.
 */
export interface TokenListing {
  id: number;
  user: number;
  email: string;
  created: string;
  lastUsed: string | null;
}

/** Every key, or those of one user, in id order. */
export async function listTokens(engine: Engine, email?: string): Promise<TokenListing[]> {
  let query = engine.db.selectFrom('api_token as k').innerJoin('user as u', 'u.id', 'k.user')
    .select(['k.id as id', 'k.user as user', 'u.email as email', 'k.created_at as created', 'k.last_used_at as last_used']).orderBy('k.id');
  if (email !== undefined) query = query.where('k.user', '=', await userIdByEmail(engine, email));
  return (await query.execute()).map((row) => ({
    id: Number(row.id),
    user: Number(row.user),
    email: String(row.email),
    created: storedTime(engine, 'created_at', row.created) as string,
    lastUsed: storedTime(engine, 'last_used_at', row.last_used),
  }));
}

const storedTime = (engine: Engine, field: 'created_at' | 'last_used_at', value: unknown) =>
  engine.dialect.fromDb(support.apiToken.fields[field] as StoredField, value) as string | null;

/**
 * A key's use is written at most this often: enough for an operator deciding which keys are
 * dead, without a write on the hot path of every authenticated request.
 */
const USE_NOTED_EVERY_MS = 5 * 60 * 1000;

/**
 * Notes that a key was used now, unless it was noted less than USE_NOTED_EVERY_MS ago. A
 * database that cannot take the write (a full disk, a read-only replica) does not refuse the
 * key: the note is left for a later request.
 */
async function noteUse(engine: Engine, id: number, lastUsed: string | null): Promise<void> {
  const now = nowCanonical();
  if (lastUsed !== null && Date.parse(now) - Date.parse(lastUsed) < USE_NOTED_EVERY_MS) return;
  try {
    await updateRecord(engine, engine.db, support.apiToken, id, { last_used_at: now });
  } catch {
    // Deliberately silent: see above.
  }
}

export type KeyCheck = { caller: Caller } | { problem: 'invalid' | 'inactive' };

/** The caller a key belongs to, with the roles of their approved employments. */
export async function callerForKey(engine: Engine, key: string): Promise<KeyCheck> {
  const { db, dialect } = engine;
  const user = await db
    .selectFrom('api_token as k')
    .innerJoin('user as u', 'u.id', 'k.user')
    .select(['u.id as id', 'u.is_active as is_active', 'u.is_admin as is_admin', 'u.is_superuser as is_superuser', 'k.id as key', 'k.last_used_at as last_used'])
    .where('k.key_hash', '=', hashOf(key))
    .executeTakeFirst();
  if (!user) return { problem: 'invalid' };
  const flag = (value: unknown) => userFlag(engine, value);
  if (!flag(user.is_active)) return { problem: 'inactive' };
  await noteUse(engine, Number(user.key), storedTime(engine, 'last_used_at', user.last_used));
  const employments = (await db.selectFrom('employment').selectAll().where('user', '=', user.id).execute())
    .map((row) => fromColumns(support.employment, dialect, row as Row));
  const organisations = new Map<number, Set<string>>();
  for (const employment of employments) {
    if (!employment.is_approved) continue;
    const groups = organisations.get(employment.organisation as number) ?? new Set<string>();
    groups.add(employment.group as string);
    organisations.set(employment.organisation as number, groups);
  }
  return { caller: { userId: user.id as number, isAdmin: flag(user.is_admin) || flag(user.is_superuser), organisations } };
}
