/**
 * A client of the API as a third party would write one: types generated from the served OpenAPI
 * document by openapi-typescript (the module `rsr-api-openapi`, which the test maps to them) and
 * calls made through openapi-fetch. It lists, filters, reads, creates, changes and deletes a link
 * with a token, and prints what it saw as JSON. test/openapi-tools.test.ts type-checks it
 * strictly against the document of the day and runs it against a test server:
 * `node --import tsx test/typed-client/client.ts <base URL> <API key>`.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from 'rsr-api-openapi';

type Link = components['schemas']['link'];

const [baseUrl, key] = process.argv.slice(2);
if (!baseUrl || !key) throw new Error('usage: client.ts <base URL> <API key>');

// JSON only (the lists also answer in XML and CSV); `ordering` is one comma-separated value, as
// the document says (style form, explode false).
const client = createClient<paths, 'application/json'>({
  baseUrl,
  headers: { Authorization: `Token ${key}` },
  querySerializer: { array: { style: 'form', explode: false } },
});

/** The body of a successful answer; anything else stops the script with what the server said. */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

const listed = ok(await client.GET('/rest/v1/link/', { params: { query: { ordering: ['-project', 'id'], limit: 10 } } }));
const filtered = ok(await client.GET('/rest/v1/link/', { params: { query: { project: 1, url__icontains: 'AKVO' } } }));

const creation = await client.POST('/rest/v1/link/', { body: { project: 2, url: 'https://example.org/typed-client', caption: 'Typed' } });
const created = ok(creation);
const path = { params: { path: { id: created.id } } };
const read = ok(await client.GET('/rest/v1/link/{id}/', path));
const patched = ok(await client.PATCH('/rest/v1/link/{id}/', { ...path, body: { caption: 'Typed, then patched', kind: 'A' } }));
const deletion = await client.DELETE('/rest/v1/link/{id}/', path);
const gone = await client.GET('/rest/v1/link/{id}/', path);

console.log(JSON.stringify({
  list: { count: listed.count, next: listed.next, ids: listed.results.map((link: Link) => link.id) },
  filtered: filtered.results.map((link: Link) => `${link.id} ${link.url} ${link.caption}`),
  created: { status: creation.response.status, location: creation.response.headers.get('location') === `${baseUrl}/rest/v1/link/${created.id}/`, kind: created.kind, caption: created.caption },
  read: { same: read.id === created.id, url: read.url },
  patched: { kind: patched.kind, caption: patched.caption, url: patched.url },
  deleted: deletion.response.status,
  gone: { status: gone.response.status, detail: gone.error?.detail },
}));
