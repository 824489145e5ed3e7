/**
 * The OpenAPI document (/rest/v1/openapi.json): valid by a real OpenAPI validator, describing
 * every route the server has, and true of real answers: each resource's lists, records, writes
 * and errors are checked against the schema the document gives for their status; the headers,
 * statuses, media types and security it declares are those the server uses; and each line a
 * write schema draws (lengths, ranges, choices, formats, null, blank, required, defaults) is
 * where the server draws it. (Spectral, Redocly and a generated client: openapi-tools.test.ts.)
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { validate, dereference } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../src/http/openapi/document.ts';
import { REPORT_DOWNLOADS } from '../src/reports/catalogue.ts';
import { storedFields, type Resource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { createToken } from '../src/store/users.ts';
import { request, testStores, useServer, type Answer } from './support/server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a document read back

const [store] = testStores();

describe(`OpenAPI (${store.name})`, () => {
  const server = useServer(store);
  let document: Json;
  let resolved: Json;
  let admin: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  before(async () => {
    const answer = await request(server.base, '/rest/v1/openapi.json');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    document = answer.body;
    resolved = await dereference(structuredClone(document) as never);
    admin = await createToken(server.engine, 'ana@example.org');
  });

  /** The schema the document gives for an answer of `status` to `method` on `path` (a template). */
  function schemaFor(path: string, method: string, status: number): Json {
    const operation = resolved.paths[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    const response = operation.responses[String(status)];
    assert.ok(response, `${method.toUpperCase()} ${path} documents ${status}`);
    return response.content['application/json'].schema;
  }

  /** Checks an answer against the document's schema for it. */
  function conforms(path: string, method: string, answer: Answer): void {
    const check = ajv.compile(schemaFor(path, method, answer.status));
    assert.ok(check(answer.body), `${method.toUpperCase()} ${path} ${answer.status}: ${ajv.errorsText(check.errors)}`);
  }

  test('a real OpenAPI validator finds the document valid (3.1)', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await validate(structuredClone(document) as never);
    assert.deepEqual(result.valid ? [] : result.errors, []);
    assert.equal(result.valid, true);
  });

  test('every resource has its list, record, legacy list and (where writable) write operations, with its orderable fields and filters', () => {
    for (const resource of RESOURCES) {
      const list = document.paths[`/rest/v1/${resource.name}/`];
      const detail = document.paths[`/rest/v1/${resource.name}/{id}/`];
      assert.ok(list?.get && detail?.get && document.paths[`/api/v1/${resource.name}/`]?.get, resource.name);
      assert.equal(Boolean(list.post && detail.put && detail.patch && detail.delete), !resource.readOnly, `${resource.name} writes`);
      const ordering = list.get.parameters.find((parameter: Json) => parameter.name === 'ordering');
      assert.ok(ordering.schema.items.enum.includes('id') && ordering.schema.items.enum.includes('-id'), resource.name);
      const names = list.get.parameters.map((parameter: Json) => parameter.name ?? parameter.$ref);
      assert.ok(names.includes('id__in') && names.includes('#/components/parameters/page'), resource.name);
    }
    const budget = document.paths['/rest/v1/budget_item/'].get.parameters.map((parameter: Json) => parameter.name);
    for (const name of ['project', 'project__in', 'amount__gte', 'currency', 'other_extra__icontains', 'period_start__range']) assert.ok(budget.includes(name), name);
    assert.ok(!budget.includes('amount__icontains'), 'text lookups only on text fields');
    assert.deepEqual(Object.keys(document.components.securitySchemes), ['token']);
  });

  test('every report download is documented with its formats and media types', () => {
    const reports = Object.keys(document.paths).filter((path) => path.startsWith('/py-reports/'));
    assert.equal(reports.length, REPORT_DOWNLOADS.length);
    const overview = document.paths['/py-reports/organisation/{id}/org-projects-overview/'].get;
    assert.deepEqual(overview.parameters.find((parameter: Json) => parameter.name === 'format').schema.enum, ['pdf', 'excel']);
    // A PDF report previews as HTML (`show-html`).
    assert.deepEqual(Object.keys(overview.responses[200].content), ['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/html']);
  });

  test('every list, legacy list and record of every resource answers as its schema says (anonymous and administrator)', async () => {
    for (const resource of RESOURCES) {
      for (const key of [null, admin]) {
        const headers = key ? { authorization: `Token ${key}` } : undefined;
        const list = await request(server.base, `/rest/v1/${resource.name}/?limit=100`, { headers });
        assert.equal(list.status, 200);
        conforms(`/rest/v1/${resource.name}/`, 'get', list);
        conforms(`/api/v1/${resource.name}/`, 'get', await request(server.base, `/api/v1/${resource.name}/`, { headers }));
        for (const record of list.body.results.slice(0, 5)) {
          const one = await request(server.base, `/rest/v1/${resource.name}/${record.id}/`, { headers });
          assert.equal(one.status, 200);
          conforms(`/rest/v1/${resource.name}/{id}/`, 'get', one);
        }
        conforms(`/rest/v1/${resource.name}/{id}/`, 'get', await request(server.base, `/rest/v1/${resource.name}/999999/`, { headers }));
      }
    }
  });

  test('writes and their errors answer as the schemas say: 201, 200, 400 per field, 403, 415, 413', async () => {
    const auth = { authorization: `Token ${admin}`, 'content-type': 'application/json' };
    const created = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: auth, body: JSON.stringify({ project: 1, url: 'https://example.org/a' }) });
    assert.equal(created.status, 201);
    conforms('/rest/v1/link/', 'post', created);
    const changed = await request(server.base, `/rest/v1/link/${created.body.id}/`, { method: 'PATCH', headers: auth, body: JSON.stringify({ caption: 'A' }) });
    assert.equal(changed.status, 200);
    conforms('/rest/v1/link/{id}/', 'patch', changed);
    const invalid = await request(server.base, '/rest/v1/budget_item/', { method: 'POST', headers: auth, body: JSON.stringify({ amount: 'x' }) });
    assert.equal(invalid.status, 400);
    assert.ok(Array.isArray(invalid.body.project));
    conforms('/rest/v1/budget_item/', 'post', invalid);
    const anonymous = await request(server.base, '/rest/v1/budget_item/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(anonymous.status, 403);
    conforms('/rest/v1/budget_item/', 'post', anonymous);
    const text = await request(server.base, '/rest/v1/budget_item/', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(text.status, 415);
    conforms('/rest/v1/budget_item/', 'post', text);
    const huge = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: auth, body: JSON.stringify({ caption: 'x'.repeat(2 ** 21) }) });
    assert.equal(huge.status, 413);
    conforms('/rest/v1/link/', 'post', huge);
    const filter = await request(server.base, '/rest/v1/budget_item/?project=abc');
    assert.equal(filter.status, 400);
    conforms('/rest/v1/budget_item/', 'get', filter);
  });

  test("the explorer's project results and names answer as documented", async () => {
    conforms('/explorer/api/projects/{id}/results/', 'get', await request(server.base, '/explorer/api/projects/1/results/'));
    conforms('/explorer/api/projects/{id}/results/', 'get', await request(server.base, '/explorer/api/projects/3/results/'));
    conforms('/explorer/api/names/{scope}/', 'get', await request(server.base, '/explorer/api/names/program/?title=water'));
    conforms('/explorer/api/names/{scope}/', 'get', await request(server.base, '/explorer/api/names/project/'));
  });

  test('report downloads: 401 without a key, 400 for a missing format, as documented', async () => {
    const path = '/py-reports/project/{id}/results-indicators-table/';
    const anonymous = await request(server.base, '/py-reports/project/1/results-indicators-table/?format=excel');
    assert.equal(anonymous.status, 401);
    conforms(path, 'get', anonymous);
    const noFormat = await request(server.base, '/py-reports/project/1/results-indicators-table/', { headers: { authorization: `Token ${admin}` } });
    assert.equal(noFormat.status, 400);
    conforms(path, 'get', noFormat);
  });

  test('every documented operation is a route of the server', () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const method of Object.keys(item).filter((key) => key !== 'parameters')) {
        // A record's route names its segment `:segment` (`<id>` or `<id>.<format>`).
        const url = path.replace('{id}.{format}', ':segment').replace(/\{(\w+)\}/g, ':$1');
        const routed = [url, url.replace(':id/', ':segment/')].some((candidate) => server.app.hasRoute({ method: method.toUpperCase() as 'GET', url: candidate }));
        assert.ok(routed, `${method} ${path}`);
      }
    }
    // Per resource: the list and a record, each also with a format suffix, the legacy list and the whole list in two formats; and the explorer's three.
    assert.equal(Object.keys(document.paths).length, 1 + RESOURCES.length * 7 + REPORT_DOWNLOADS.length + 3);
  });

  test('reads take a token or none (it changes what they show), writes and report downloads need one: `Authorization: Token <key>`', () => {
    const { token } = document.components.securitySchemes;
    assert.deepEqual([token.type, token.in, token.name], ['apiKey', 'header', 'Authorization']);
    assert.match(token.description, /`Authorization: Token <key>`/);
    for (const [path, method, operation] of operations()) {
      const read = (method === 'get' || method === 'options') && !path.startsWith('/py-reports/');
      assert.deepEqual(operation.security, read ? [{}, { token: [] }] : [{ token: [] }], `${method} ${path}`);
    }
  });

  test("no default outside a create's body, no property typed null alone, no array whose items are left open", () => {
    const walk = (schema: unknown, where: string, visit: (node: Json, where: string) => void) => {
      if (typeof schema !== 'object' || schema === null) return;
      visit(schema as Json, where);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`, visit);
    };
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) {
      walk(schema, name, (node, where) => {
        assert.ok(!(name.endsWith('_patch') || name.endsWith('_replace')) || !('default' in node), `${where}: a PATCH or PUT applies no default`);
        // `{type: 'null'}` is an alternative of an anyOf (a nullable reference), nowhere a property's type.
        if (!/\/(anyOf|oneOf)\/\d+$/.test(where)) assert.notDeepEqual(node.type, 'null', `${where}: typed null alone`);
        if (node.type === 'array') assert.ok(node.items && Object.keys(node.items).length > 0, `${where}: items open`);
      });
    }
    // RSR's organisation fields this service keeps empty have RSR's types.
    const organisation = document.components.schemas.organisation.properties;
    assert.deepEqual(organisation.iati_prefixes.type, ['string', 'null']);
    for (const name of ['content_owner', 'original', 'password_policy', 'codelist']) assert.deepEqual(organisation[name].type, ['integer', 'null'], name);
    assert.ok(Object.values(document.components.schemas.link_write.properties).some((property) => 'default' in (property as Json)), 'a create shows its defaults');
  });

  test('every error answer is a shared response whose body is Error or FieldErrors, by reference', () => {
    for (const [path, method, operation] of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (Number(status) >= 400) assert.deepEqual(response, { $ref: `#/components/responses/${status}` }, `${method} ${path} ${status}`);
      }
    }
    for (const [status, response] of Object.entries(document.components.responses as Record<string, Json>)) {
      if (Number(status) >= 400) assert.ok(['#/components/schemas/Error', '#/components/schemas/FieldErrors'].includes(response.content['application/json'].schema.$ref), status);
    }
    assert.deepEqual(document.servers, [{ url: '/' }]);
    const tags = document.tags.map((tag: Json) => tag.name);
    assert.equal(new Set(tags).size, tags.length, 'one meaning per tag');
  });

  test('answers carry the headers documented for them, and each GET answers its ETag with 304', async () => {
    const auth = { authorization: `Token ${admin}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const created = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: json, body: JSON.stringify({ project: 1, url: 'https://example.org/headers' }) });
    const record = `/rest/v1/link/${created.body.id}/`;
    assert.equal(created.headers.get('location'), `${server.base}${record}`);
    sendsDocumentedHeaders('/rest/v1/link/', 'post', created, 'POST /rest/v1/link/');
    const report = '/py-reports/project/1/results-indicators-table/?format=excel&did=7';
    const cases: [method: string, url: string, path: string, init?: RequestInit][] = [
      ['get', '/rest/v1/', '/rest/v1/'],
      ['get', '/rest/v1/link/', '/rest/v1/link/'],
      ['get', '/rest/v1/link/?format=csv', '/rest/v1/link/'],
      ['get', '/rest/v1/link.csv', '/rest/v1/link.{format}'],
      ['get', '/rest/v1/link/1.xml', '/rest/v1/link/{id}.{format}'],
      ['get', '/api/v1/link/', '/api/v1/link/'],
      ['get', record, '/rest/v1/link/{id}/'],
      ['options', '/rest/v1/link/', '/rest/v1/link/', { method: 'OPTIONS', headers: auth }],
      ['options', record, '/rest/v1/link/{id}/', { method: 'OPTIONS' }],
      ['patch', record, '/rest/v1/link/{id}/', { method: 'PATCH', headers: json, body: '{"caption":"H"}' }],
      ['get', '/explorer/api/names/project/', '/explorer/api/names/{scope}/'],
      ['get', '/explorer/api/dimension-values/?format=csv', '/explorer/api/dimension-values/'],
      ['get', '/explorer/api/projects/1/results/', '/explorer/api/projects/{id}/results/'],
      ['get', report, '/py-reports/project/{id}/results-indicators-table/', { headers: auth }],
      ['delete', record, '/rest/v1/link/{id}/', { method: 'DELETE', headers: auth }],
      ['get', record, '/rest/v1/link/{id}/'],
    ];
    for (const [method, url, path, init] of cases) {
      const answer = await request(server.base, url, init);
      sendsDocumentedHeaders(path, method, answer, `${method} ${url}`);
      const etag = answer.headers.get('etag');
      if (method !== 'get' || !etag) continue;
      // A report file is made again for each request, and holds the time it was made: `*` matches whatever it is.
      const tag = url.startsWith('/py-reports/') ? '*' : etag;
      const again = await request(server.base, url, { headers: { ...(init?.headers as Record<string, string>), 'if-none-match': tag } });
      assert.equal(again.status, 304, url);
      assert.equal(again.text, '');
      sendsDocumentedHeaders(path, method, again, `${url} (304)`);
    }
  });

  /** Each header the document requires is sent, and each header of ours that is sent is documented for that answer. */
  function sendsDocumentedHeaders(path: string, method: string, answer: Answer, what: string): void {
    const response = resolved.paths[path]?.[method]?.responses[String(answer.status)];
    assert.ok(response, `${what}: ${answer.status} is documented`);
    const documented = new Map(Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, header]) => [name.toLowerCase(), header]));
    for (const [name, header] of documented) if (header.required) assert.ok(answer.headers.has(name), `${what}: ${name} is sent`);
    for (const name of ['etag', 'vary', 'allow', 'location', 'retry-after', 'content-disposition', 'set-cookie']) {
      if (answer.headers.has(name)) assert.ok(documented.has(name), `${what}: ${name} is documented`);
    }
    const type = answer.headers.get('content-type')?.split(';')[0];
    if (type && answer.status < 300) assert.ok(type in response.content, `${what}: ${type} is documented`);
  }

  test('the format suffixes and OPTIONS answer as documented', async () => {
    for (const [suffix, type] of [['json', 'application/json'], ['xml', 'application/xml'], ['csv', 'text/csv']]) {
      for (const [url, path] of [[`/rest/v1/budget_item.${suffix}`, '/rest/v1/budget_item.{format}'], [`/rest/v1/budget_item/1.${suffix}`, '/rest/v1/budget_item/{id}.{format}']]) {
        const answer = await request(server.base, url);
        assert.equal(answer.status, 200, url);
        assert.equal(answer.headers.get('content-type')?.split(';')[0], type, url);
        if (suffix === 'json') conforms(path, 'get', answer);
      }
    }
    assert.deepEqual(document.paths['/rest/v1/budget_item.{format}'].parameters[0].schema.enum, ['json', 'xml', 'csv']);
    assert.equal((await request(server.base, '/rest/v1/budget_item.api')).status, 404, 'no other suffix');
    const described = await request(server.base, '/rest/v1/budget_item/', { method: 'OPTIONS', headers: { authorization: `Token ${admin}` } });
    assert.ok(described.body.actions.POST.amount);
    conforms('/rest/v1/budget_item/', 'options', described);
    conforms('/rest/v1/budget_item/', 'options', await request(server.base, '/rest/v1/budget_item/', { method: 'OPTIONS' }));
    conforms('/rest/v1/budget_item/{id}/', 'options', await request(server.base, '/rest/v1/budget_item/1/', { method: 'OPTIONS' }));
  });

  test('writes take JSON, form and multipart bodies, and answer in JSON, or in XML or CSV when asked', async () => {
    for (const operation of [document.paths['/rest/v1/link/'].post, document.paths['/rest/v1/link/{id}/'].put, document.paths['/rest/v1/link/{id}/'].patch]) {
      assert.deepEqual(Object.keys(operation.requestBody.content), ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
      assert.deepEqual(Object.keys(operation.responses[operation.operationId === 'link_create' ? 201 : 200].content), ['application/json', 'application/xml', 'text/csv']);
    }
    const auth = { authorization: `Token ${admin}` };
    const form = new FormData();
    form.set('project', '1');
    form.set('url', 'https://example.org/multipart');
    const multipart = await request(server.base, '/rest/v1/link/', { method: 'POST', headers: auth, body: form });
    assert.equal(multipart.status, 201, multipart.text);
    conforms('/rest/v1/link/', 'post', multipart);
    const record = `/rest/v1/link/${multipart.body.id}/`;
    const urlencoded = await request(server.base, record, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'caption=Form' });
    assert.equal(urlencoded.body.caption, 'Form');
    const asked = [[`${record}?format=xml`, auth, 'application/xml'], [record, { ...auth, accept: 'application/xml' }, 'application/xml'], [`${record}?format=csv`, auth, 'text/csv']] as const;
    for (const [url, headers, type] of asked) {
      const answer = await request(server.base, url, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ caption: type }) });
      assert.equal(answer.status, 200, url);
      assert.equal(answer.headers.get('content-type')?.split(';')[0], type, url);
      assert.ok(answer.text.includes(type), url);
      sendsDocumentedHeaders('/rest/v1/link/{id}/', 'patch', answer, `PATCH ${url}`);
    }
  });

  test('each line a write schema draws is where the server draws it: lengths, ranges, choices, formats, null and blank', async () => {
    const headers = { authorization: `Token ${admin}`, 'content-type': 'application/json' };
    for (const resource of RESOURCES.filter((each) => !each.readOnly)) {
      const [target] = (await request(server.base, `/rest/v1/${resource.name}/?limit=1`, { headers })).body.results;
      assert.ok(target, `a ${resource.name} to change`);
      const properties = document.components.schemas[`${resource.name}_patch`].properties as Record<string, Json>;
      for (const [name, schema] of Object.entries(properties)) {
        for (const probe of probesOf(resource, name, schema)) {
          const answer = await request(server.base, `/rest/v1/${resource.name}/${target.id}/`, { method: 'PATCH', headers, body: JSON.stringify({ [name]: probe.value }) });
          const refused = answer.status === 400 && name in answer.body;
          assert.ok(answer.status === 200 || answer.status === 400, `${resource.name}.${name}: ${answer.status} ${answer.text}`);
          assert.equal(!refused, probe.accepted, `${resource.name}.${name} = ${JSON.stringify(probe.value).slice(0, 80)} (${probe.why}): ${answer.status} ${answer.text.slice(0, 300)}`);
        }
      }
    }
    // Legacy IATI 1.x transaction types are taken from imports only.
    const [transaction] = (await request(server.base, '/rest/v1/transaction/?limit=1', { headers })).body.results;
    const legacy = await request(server.base, `/rest/v1/transaction/${transaction.id}/`, { method: 'PATCH', headers, body: '{"transaction_type":"D"}' });
    assert.ok(legacy.status === 400 && 'transaction_type' in legacy.body, legacy.text);
    assert.ok(!document.components.schemas.transaction_write.properties.transaction_type.enum.includes('D'));
  });

  test("a create without fields names exactly the schema's required ones, and one with only them takes the schema's defaults", async () => {
    const headers = { authorization: `Token ${admin}`, 'content-type': 'application/json' };
    for (const resource of RESOURCES.filter((each) => !each.readOnly)) {
      const schema = document.components.schemas[`${resource.name}_write`];
      const empty = await request(server.base, `/rest/v1/${resource.name}/`, { method: 'POST', headers, body: '{}' });
      assert.equal(empty.status, 400, resource.name);
      assert.deepEqual(Object.keys(empty.body).sort(), [...(schema.required ?? [])].sort(), `${resource.name}: required`);
      const body = await requiredValues(resource, schema.required ?? []);
      const created = await request(server.base, `/rest/v1/${resource.name}/`, { method: 'POST', headers, body: JSON.stringify(body) });
      assert.equal(created.status, 201, `${resource.name}: ${created.text}`);
      for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) {
        if ('default' in property) assert.deepEqual(created.body[name], property.default, `${resource.name}.${name}`);
      }
      assert.equal((await request(server.base, `/rest/v1/${resource.name}/${created.body.id}/`, { method: 'DELETE', headers })).status, 204);
    }
  });

  /** A create's required fields: an existing record's values, fresh ones where they must be unique. */
  async function requiredValues(resource: Resource, required: string[]): Promise<Json> {
    const [existing] = (await request(server.base, `/rest/v1/${resource.name}/?limit=1`, { headers: { authorization: `Token ${admin}` } })).body.results;
    const fields = new Map(storedFields(resource));
    return Object.fromEntries(required.map((name) => [name, fields.get(name)?.unique ? `Fresh ${name}`.slice(0, fields.get(name)?.maxLength) : existing[name]]));
  }

  /** All operations of the document: path, method, operation. */
  function operations(): [string, string, Json][] {
    return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) => Object.entries(item).filter(([method]) => method !== 'parameters').map(([method, operation]): [string, string, Json] => [path, method, operation as Json]));
  }
});

describe(`OpenAPI: a rate limit's refusal (${store.name})`, () => {
  const server = useServer(store, undefined, { rateLimit: { max: 1, windowMs: 60_000 } });

  test('429 carries Retry-After, as every operation documents', async () => {
    assert.equal((await request(server.base, '/rest/v1/link/')).status, 200);
    const refused = await request(server.base, '/rest/v1/link/');
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    const document = openApiDocument() as Json;
    assert.deepEqual(document.paths['/rest/v1/link/'].get.responses[429], { $ref: '#/components/responses/429' });
    const response = document.components.responses[429];
    assert.deepEqual(response.headers['Retry-After'], { $ref: '#/components/headers/Retry-After' });
    assert.deepEqual(response.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    assert.equal(typeof refused.body.detail, 'string');
  });
});

/**
 * Fields whose accepted values also meet a rule of the record (the probes would be refused by it,
 * not by the line the schema draws): only null is probed there.
 */
const RECORD_RULES = new Set(['organisation.primary_location']);

interface Probe {
  value: unknown;
  accepted: boolean;
  why: string;
}

/** Values on either side of each line a property's schema draws, and whether it lets them through. */
function probesOf(resource: Resource, name: string, schema: Json): Probe[] {
  const types: string[] = [schema.type ?? []].flat();
  // A schema without a type (JSON of any shape) takes null too.
  const probes: Probe[] = [{ value: null, accepted: types.length === 0 || types.includes('null'), why: 'null' }];
  const field = storedFields(resource).find(([each]) => each === name)?.[1];
  // Ids of other records are checked against the database; JSON by its own declaration.
  if (RECORD_RULES.has(`${resource.name}.${name}`) || field?.references || field?.type === 'json') return probes;
  if (schema.enum) return [...probes, ...enumProbes(schema.enum, types)];
  if (types.includes('integer') || types.includes('number')) return [...probes, ...numberProbes(schema), { value: 'many', accepted: false, why: 'not a number' }];
  if (types.includes('string')) return [...probes, ...textProbes(schema)];
  return probes;
}

function enumProbes(values: unknown[], types: string[]): Probe[] {
  const choices = values.filter((value) => value !== null && value !== '');
  const some = choices.length ? [...new Set([choices[0], choices[Math.floor(choices.length / 2)], choices.at(-1)])] : [];
  return [
    ...some.map((value) => ({ value, accepted: true, why: 'a choice' })),
    { value: types.includes('integer') ? 987_654 : 'ZZ', accepted: false, why: 'no choice' },
    ...(types.includes('string') ? [{ value: '', accepted: values.includes(''), why: 'blank' }] : []),
  ];
}

/** Integers and decimals alike: a whole unit past an inclusive bound, a tenth of an exclusive one (a power of ten) inside it. */
function numberProbes(schema: Json): Probe[] {
  const probes: Probe[] = [];
  if (schema.maximum !== undefined) probes.push({ value: schema.maximum, accepted: true, why: 'maximum' }, { value: schema.maximum + 1, accepted: false, why: 'over the maximum' });
  if (schema.minimum !== undefined) probes.push({ value: schema.minimum, accepted: true, why: 'minimum' }, { value: schema.minimum - 1, accepted: false, why: 'under the minimum' });
  if (schema.exclusiveMaximum !== undefined) probes.push({ value: schema.exclusiveMaximum / 10, accepted: true, why: 'under the bound' }, { value: schema.exclusiveMaximum, accepted: false, why: 'the exclusive bound' });
  if (schema.exclusiveMinimum !== undefined) probes.push({ value: schema.exclusiveMinimum / 10, accepted: true, why: 'over the bound' }, { value: schema.exclusiveMinimum, accepted: false, why: 'the exclusive bound' });
  return probes;
}

function textProbes(schema: Json): Probe[] {
  const url = schema.format === 'uri' || schema.anyOf?.some((each: Json) => each.format === 'uri');
  // A format takes no blank text, unless the schema names it as the alternative.
  const blank = schema.anyOf ? schema.anyOf.some((each: Json) => each.const === '') : !schema.minLength && !schema.format;
  const probes: Probe[] = [{ value: '', accepted: blank, why: 'blank' }];
  // A text of `length` characters, shaped as a URL where one is asked for.
  const text = (length: number) => (url ? `https://example.org/${'a'.repeat(length - 20)}` : 'x'.repeat(length));
  if (schema.maxLength !== undefined) probes.push({ value: text(schema.maxLength), accepted: true, why: 'maxLength' }, { value: text(schema.maxLength + 1), accepted: false, why: 'over maxLength' });
  if (url) probes.push({ value: 'https://example.org/a', accepted: true, why: 'a URL' }, { value: 'no URL', accepted: false, why: 'not a URL' });
  if (schema.format === 'date') probes.push({ value: '2020-01-31', accepted: true, why: 'a date' }, { value: '2020-13-01', accepted: false, why: 'not a date' });
  if (schema.format === 'date-time') probes.push({ value: '2020-01-31T10:00:00Z', accepted: true, why: 'a timestamp' }, { value: 'noon', accepted: false, why: 'not a timestamp' });
  return probes;
}
