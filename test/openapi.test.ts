/**
 * The OpenAPI document (/rest/v1/openapi.json): valid by a real OpenAPI validator, describing
 * every route the server has, and true of real answers: each resource's lists, records, writes
 * and errors are checked against the schema the document gives for their status.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { validate, dereference } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { REPORT_DOWNLOADS } from '../src/reports/catalogue.ts';
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
    assert.deepEqual(Object.keys(overview.responses[200].content), ['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
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
        // A record's route names its segment `:segment` (it may carry a format suffix).
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        const routed = [url, url.replace(':id/', ':segment/')].some((candidate) => server.app.hasRoute({ method: method.toUpperCase() as 'GET', url: candidate }));
        assert.ok(routed, `${method} ${path}`);
      }
    }
    assert.equal(Object.keys(document.paths).length, 1 + RESOURCES.length * 3 + REPORT_DOWNLOADS.length + 3); // and the explorer's three
  });
});
