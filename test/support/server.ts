/**
 * A real server for tests: a fresh database file (or PostgreSQL database), the schema, a dataset
 * imported through the real import, and the Fastify app listening on a free port on 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { DEFAULT_REPORT_LIMITS } from '../../src/config.ts';
import { buildApp, type AppOptions } from '../../src/http/app.ts';
import { openEngine, type Engine, type EngineOptions } from '../../src/store/engine/index.ts';
import { Reader } from '../../src/store/reader.ts';
import { readDataset } from '../../src/store/dataset-files.ts';
import { importRecords, type DatasetSource } from '../../src/store/import.ts';
import { migrate } from '../../src/store/migrations.ts';

export const FIXTURE = new URL('../fixtures/small/', import.meta.url).pathname;

export interface TestStore {
  name: string;
  /** A new, empty database; `drop` removes it. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const sqliteStore: TestStore = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'rsr-test-'));
    return { url: `sqlite:${join(dir, 'test.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

/** A fresh PostgreSQL database per use, next to the one TEST_POSTGRES_URL names; dropped after. */
function postgresStore(adminUrl: string): TestStore {
  return {
    name: 'postgres',
    async create() {
      const name = `rsr_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`create database ${name} encoding 'UTF8' template template0`);
      await admin.end();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        async drop() {
          const client = new pg.Client({ connectionString: adminUrl });
          await client.connect();
          await client.query(`drop database if exists ${name} with (force)`);
          await client.end();
        },
      };
    },
  };
}

/** The stores every suite runs against: SQLite always, PostgreSQL too when TEST_POSTGRES_URL is set. */
export function testStores(): TestStore[] {
  const postgres = process.env.TEST_POSTGRES_URL;
  return postgres ? [sqliteStore, postgresStore(postgres)] : [sqliteStore];
}

/** Runs `use` on an engine of a new database of `store`, migrated and holding the fixture; drops it after. */
export async function withFixtureDatabase(store: TestStore, use: (engine: Engine) => Promise<void>): Promise<void> {
  const database = await store.create();
  const engine = openEngine(database.url);
  try {
    await migrate(engine);
    await importRecords(engine, readDataset(FIXTURE));
    await use(engine);
  } finally {
    await engine.close();
    await database.drop();
  }
}

export interface TestServer {
  base: string;
  /** The database's DATABASE_URL, for a second connection to it. */
  url: string;
  engine: Engine;
  /** What the app reads through (with its caches). */
  reader: Reader;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** What a test may set of the app beyond its database (a logger, limits, CORS origins…). */
export type ServerOptions = Partial<Omit<AppOptions, 'engine' | 'reader'>> & { engineOptions?: EngineOptions };

export async function startServer(store: TestStore, dataset: string | DatasetSource[] = FIXTURE, options: ServerOptions = {}): Promise<TestServer> {
  const database = await store.create();
  const { engineOptions, ...appOptions } = options;
  const engine = openEngine(database.url, engineOptions);
  await migrate(engine);
  await importRecords(engine, typeof dataset === 'string' ? readDataset(dataset) : dataset);
  const reader = new Reader(engine);
  const app = buildApp({ engine, reader, timeZone: 'Europe/Stockholm', reports: { ...DEFAULT_REPORT_LIMITS, databaseUrl: database.url }, ...appOptions });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    url: database.url,
    engine,
    reader,
    app,
    async close() {
      // A browser may hold a connection on which it never sent a request (a preconnect): closing
      // waits for no such socket past a second, which would otherwise keep the suite from ending.
      const stragglers = setTimeout(() => app.server.closeAllConnections(), 1000);
      await app.close();
      clearTimeout(stragglers);
      await engine.close();
      await database.drop();
    },
  };
}

/**
 * A server for the surrounding describe(): started before its tests, closed after them. The
 * object is filled in by `before`, so tests read `server.base` as usual.
 */
export function useServer(store: TestStore, dataset?: string | (() => DatasetSource[]), options: ServerOptions = {}): TestServer {
  const server = {} as TestServer;
  before(async () => {
    Object.assign(server, await startServer(store, typeof dataset === 'function' ? dataset() : dataset, options));
  });
  after(() => server.close());
  return server;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked by the tests
  body: any;
  /** The body's bytes as they came (raw requests only: compressed or chunked bodies are not text). */
  bytes?: Buffer;
}

/** fetch, uncompressed unless the test asks otherwise (fetch would ask for gzip on its own). */
export async function request(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers = { 'accept-encoding': 'identity', ...(init.headers as Record<string, string> | undefined) };
  const response = await fetch(base + path, { redirect: 'manual', ...init, headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A request through node:http, which (unlike fetch) may set any header, Host included. */
export function rawRequest(base: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(base + path, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers, text, body, bytes: Buffer.concat(chunks) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** Bytes written to the server as they are (no client library to tidy them up); its answer once it closes or after `waitMs`. */
export function rawExchange(base: string, bytes: string | Buffer, waitMs = 2000): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const body = rest.join('\r\n\r\n');
      let parsed: unknown;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        parsed = undefined;
      }
      const raw = Buffer.concat(chunks);
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, text: body, body: parsed, bytes: raw.subarray(raw.indexOf('\r\n\r\n') + 4) });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? finish() : reject(error)));
    socket.write(bytes);
  });
}
