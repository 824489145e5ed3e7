/**
 * Who is calling: `Authorization: Token <key>` as DRF's TokenAuthentication reads it. Other
 * schemes are not ours (anonymous); a bad key is refused even on GET (http.md, Authentication).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ANONYMOUS, type Caller } from '../resources/define.ts';
import type { Engine } from '../store/engine/index.ts';
import { callerForKey } from '../store/users.ts';
import type { TokenFailures } from './callers.ts';
import { ApiError, badToken as refuse } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

async function authenticate(engine: Engine, request: FastifyRequest, failures: TokenFailures | null): Promise<Caller> {
  const parts = (request.headers.authorization ?? '').split(/\s+/).filter(Boolean);
  if (parts.length === 0 || parts[0].toLowerCase() !== 'token') return ANONYMOUS;
  // An address past its limit of wrong keys: a key not seen passing is refused unread (callers.ts).
  const check = failures?.begin(request, parts.slice(1).join(' '));
  if (check && 'refusal' in check) throw check.refusal;
  const outcome = (passed: boolean | null) => check?.done(passed);
  try {
    if (parts.length === 1) throw refuse('Invalid token header. No credentials provided.');
    if (parts.length > 2) throw refuse('Invalid token header. Token string should not contain spaces.');
    const found = await callerForKey(engine, parts[1]);
    if ('problem' in found) throw refuse(found.problem === 'inactive' ? 'User inactive or deleted.' : 'Invalid token.');
    outcome(true);
    return found.caller;
  } catch (error) {
    // A refusal is a failed check; the database away (503) is no word on the key.
    outcome(error instanceof ApiError ? false : null);
    throw error;
  }
}

/** `failures`: the limit on wrong keys per address (callers.ts); none: every key is looked up. */
export function registerAuthentication(app: FastifyInstance, engine: Engine, failures: TokenFailures | null = null): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', (request, reply, done) => {
    // Most requests carry no key: those are answered without a promise.
    if (!request.headers.authorization) {
      request.caller = ANONYMOUS;
      return done();
    }
    authenticate(engine, request, failures).then((caller) => {
      request.caller = caller;
      done();
    }, done);
  });
}
