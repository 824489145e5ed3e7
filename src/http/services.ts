/** What route handlers work with, decorated once on the application (app.ts). */
import type { FastifyRequest } from 'fastify';
import type { Metrics } from '../ops/metrics.ts';
import type { ReportPool } from '../reports/pool.ts';
import type { Resource } from '../resources/define.ts';
import type { Engine } from '../store/engine/index.ts';
import type { Reader } from '../store/reader.ts';
import type { LargePages } from './callers.ts';
import type { ResponseCache } from './response-cache.ts';
import type { WriteHealth } from './write-health.ts';

export interface Services {
  engine: Engine;
  reader: Reader;
  responses: ResponseCache;
  metrics: Metrics;
  timeZone: string;
  /** Where report files are made off the event loop; none: in this thread (a database only this connection sees). */
  reports: ReportPool | null;
  /** The storage fault writes met lately (readiness). */
  writes: WriteHealth;
  /** Large list pages being made, per caller (callers.ts). */
  largePages: LargePages;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyContextConfig {
    /** The resource a route serves (routes.ts registers one plugin per resource). */
    resource?: Resource;
  }
}

/** The resource of the route a request was matched to. */
export function resourceOf(request: FastifyRequest): Resource {
  const resource = request.routeOptions.config.resource;
  if (!resource) throw new Error(`No resource on route ${request.routeOptions.url}`);
  return resource;
}
