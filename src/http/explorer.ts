/**
 * The explorer (explorer/, built by Vite into dist/explorer/): its page at `/` and every
 * `/explore/...` address (the app reads the address itself), its hashed assets under `/assets/`,
 * all held in memory and sent through the respond step like any answer (ETag, 304, compression),
 * each with the page headers (page-security.ts: a Content-Security-Policy the build keeps to, no
 * inline code). And a browser that opens an API address is offered the same view in the
 * explorer. What the explorer reads besides the API's lists is in explorer-api.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import escapeHtml from 'escape-html';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound } from './errors.ts';
import { DIMENSION_VALUES, names, projectResultsData } from './explorer-api.ts';
import { PAGE_HEADERS, pageHeaders } from './page-security.ts';
import { list } from './read-handlers.ts';
import { representFile, send, type Representation } from './respond.ts';
import { pageSchema } from './schemas.ts';

/** dist/explorer/, as seen from src/http/ (a checkout) and from dist/src/http/ (a build). */
const CANDIDATES = ['../../dist/explorer/', '../../explorer/'].map((path) => new URL(path, import.meta.url).pathname);
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
};
/** Asset names carry a hash of their content: they never change, so browsers keep them. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const notBuilt = () => new ApiError(503, { detail: 'The explorer is not built: a production install (npm ci --omit=dev) leaves it out; npm ci, or npm run build:explorer where the dev packages are installed, builds it.' }, false);

interface Files {
  page: Buffer;
  assets: Map<string, Buffer>;
}

function readBuild(): Files | null {
  const root = CANDIDATES.find((path) => existsSync(join(path, 'index.html')) && existsSync(join(path, 'assets')));
  if (!root) return null;
  const assets = new Map<string, Buffer>();
  for (const name of readdirSync(join(root, 'assets'))) assets.set(name, readFileSync(join(root, 'assets', name)));
  return { page: readFileSync(join(root, 'index.html')), assets };
}

/** The explorer's address for an API address: the same list, record and query. */
function explorerPath(path: string, query: string): string {
  const [, , , name, id] = path.split('/');
  if (!name) return '/';
  const list = name.replace(/\.[a-z0-9]+$/, '');
  const search = new URLSearchParams(query);
  for (const key of ['format', 'offset']) search.delete(key);
  const rest = search.toString();
  return `/explore/${list}/${id ? `${id.replace(/\.[a-z0-9]+$/, '')}/` : ''}${rest ? `?${rest}` : ''}`;
}

/** A person's browser opening an address (not a script, not a fetch): it asks for a page. */
function isNavigation(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers['sec-fetch-dest'] === 'document' && (request.headers.accept ?? '').includes('text/html');
}

/** The offered page's look, in the page (it loads nothing else); allowed by its hash (page-security.ts). */
const API_PAGE_STYLE = 'body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1d2330}a{color:#0b5fa5}code{background:#f4f6f9;padding:0 .2rem}';
const API_PAGE_HEADERS = { 'content-type': TYPES['.html'], 'cache-control': REVALIDATE, ...pageHeaders([API_PAGE_STYLE]) };

function apiPage(path: string, query: string): Buffer {
  const explorer = explorerPath(path, query);
  const json = `${path}?${new URLSearchParams([...new URLSearchParams(query)].filter(([key]) => key !== 'format').concat([['format', 'json']]))}`;
  return Buffer.from(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rsr-api: ${escapeHtml(path)}</title>
<style>${API_PAGE_STYLE}</style></head>
<body><h1>This is an address of the rsr-api API</h1>
<p>Programs read it as JSON. To look at it as a table, open it in the explorer:</p>
<p><a id="explorer" href="${escapeHtml(explorer)}">${escapeHtml(explorer)}</a></p>
<p>Or see <a id="json" href="${escapeHtml(json)}">the JSON</a> (add <code>?format=json</code> to any API address), or read the <a href="/docs/">API reference</a>.</p>
</body></html>`);
}

export function registerExplorer(app: FastifyInstance): void {
  const files = readBuild();
  const answers = new Map<string, Representation>();
  /** A file as an answer, made once: its ETag and compressed forms are kept with it. */
  const file = (reply: FastifyReply, key: string, body: Buffer, type: string, caching: string) => {
    let answer = answers.get(key);
    if (!answer) answers.set(key, (answer = representFile(reply, body, { 'content-type': type, 'cache-control': caching, ...PAGE_HEADERS })));
    return answer;
  };
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!files) throw notBuilt();
    return send(request, reply, file(reply, '', files.page, TYPES['.html'], REVALIDATE));
  };
  app.get('/explorer/api/projects/:id/results/', projectResultsData);
  app.get('/explorer/api/names/:scope/', names);
  app.get('/explorer/api/dimension-values/', { config: { resource: DIMENSION_VALUES }, schema: { response: { 200: pageSchema(DIMENSION_VALUES) } } }, list);
  app.get('/', page);
  app.get('/explore/*', page);
  app.get('/assets/:name', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const body = files?.assets.get(request.params.name);
    if (!body) throw notFound(false);
    return send(request, reply, file(reply, request.params.name, body, TYPES[extname(request.params.name)] ?? 'application/octet-stream', IMMUTABLE));
  });
}

/**
 * A browser navigating to an API address (a pasted link) gets a small page pointing to the same
 * view in the explorer. Scripts, fetches and `?format=` requests get the API's answer as before
 * (JSON for `text/html` too, as the original; decision D1).
 */
export function offerExplorer(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!isNavigation(request)) return done();
    const [path, query = ''] = request.url.split('?');
    if (!/^\/(rest|api)\/v1\//.test(path) || /\.[a-z0-9]+\/?$/.test(path) || path.includes('/openapi.json') || new URLSearchParams(query).has('format')) return done();
    reply.header('vary', 'Sec-Fetch-Dest');
    void send(request, reply, representFile(reply, apiPage(path, query), API_PAGE_HEADERS));
  });
}
