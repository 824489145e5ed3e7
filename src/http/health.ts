/**
 * What an orchestrator probes: GET /healthz (the process answers) and GET /readyz (the database
 * answers, its schema is current and writes can succeed; 503 with the reason otherwise: reads
 * are still answered, but an instance whose writes fail is best left out of the pool). Neither waits for the
 * schema, checks the Host, or is kept by the response cache, and neither is logged below warn.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pendingMigrations } from '../store/migrations.ts';
import { notReady } from './errors.ts';
import { representJson, send } from './respond.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Probes answer before the schema is ready and whatever Host they name. */
    probe?: boolean;
  }
}

const options = { config: { probe: true }, logLevel: 'warn' } as const;

function answer(request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>) {
  reply.header('cache-control', 'no-store');
  return send(request, reply, representJson(reply, body));
}

async function ready(request: FastifyRequest, reply: FastifyReply) {
  const { engine } = request.server.services;
  let pending: number[];
  try {
    pending = await pendingMigrations(engine);
    if (pending.length === 0) await engine.version();
  } catch (error) {
    request.log.warn({ err: error }, 'readiness check failed');
    throw notReady(engine.isUnavailable(error) ? 'database unavailable' : 'database error');
  }
  if (pending.length) throw notReady(`migrations pending: ${pending.join(', ')}`);
  const blocked = await engine.writesBlocked(request.server.services.writes.recent()).catch(() => null);
  if (blocked) throw notReady(blocked === 'full' ? "writes cannot succeed: the database's storage is full" : 'writes cannot succeed: the database is read-only');
  return answer(request, reply, { status: 'ready' });
}

export function registerHealth(app: FastifyInstance): void {
  app.get('/healthz', options, (request, reply) => answer(request, reply, { status: 'ok' }));
  app.get('/readyz', options, ready);
}
