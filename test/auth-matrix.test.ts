/**
 * Every role × every resource × every method × public, private and unpublished records, against
 * the table in auth-matrix.md (written once from the spec), on every store. LIST cells check the
 * same record in the JSON list and its count, /api/v1/, XML, CSV and a relation filter.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { projectPathOf, storedFields, type Resource } from '../src/resources/define.ts';
import { RESOURCE_BY_NAME } from '../src/resources/index.ts';
import comments from '../src/resources/indicator_period_data_comment.ts';
import { insertRecord } from '../src/store/columns.ts';
import { changeData } from '../src/store/data-version.ts';
import { fillProjects } from '../src/store/visibility.ts';
import { createToken } from '../src/store/users.ts';
import { MATRIX_PROJECTS, MATRIX_USERS, matrixDataset } from './support/datasets.ts';
import { request, testStores, useServer, type Answer } from './support/server.ts';

interface Row {
  resources: string[];
  record: string;
  method: string;
  expected: Map<string, string>;
}

/** The table of auth-matrix.md: one row per line that starts with `|`, after the header and its rule. */
function readMatrix(): { roles: string[]; rows: Row[] } {
  const lines = readFileSync(new URL('./auth-matrix.md', import.meta.url), 'utf8').split('\n').filter((line) => line.startsWith('|'));
  const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
  const [header, , ...body] = lines.map(cells);
  const roles = header.slice(3);
  const rows = body.map(([resources, record, method, ...outcomes]) => ({
    resources: resources.split(',').map((name) => name.trim()),
    record,
    method,
    expected: new Map(roles.map((role, index) => [role, outcomes[index]])),
  }));
  return { roles, rows };
}

const OTHER_IDS: Record<string, Record<string, number>> = {
  organisation: { own: 1, other: 2 },
  keyword: { keyword: 1 },
  reports: { public: 100, 'own-org': 101, 'other-org': 102 },
};

const recordId = (resource: string, record: string): number =>
  OTHER_IDS[resource]?.[record] ?? MATRIX_PROJECTS[record as keyof typeof MATRIX_PROJECTS] ?? assert.fail(`no record '${record}' of ${resource}`);

/** `public-partner (own)`: the project's record written by the caller themself (results comments). */
const OWN = ' (own)';

type Json = Record<string, unknown>;

/** What a caller writes of a record: its stored fields but the id, service fields and the organisation's primary location. */
function writable(resource: Resource, record: Json): Json {
  const service = new Set(['id', 'primary_location', ...Object.values(resource.serviceFields ?? {})]);
  return Object.fromEntries(storedFields(resource).filter(([name]) => !service.has(name)).map(([name]) => [name, record[name]]));
}

/** A copy that unique fields do not refuse. */
function copyOf(resource: Resource, record: Json, serial: number): Json {
  const copy = writable(resource, record);
  for (const [name, field] of storedFields(resource)) {
    if (!field.unique || !(name in copy)) continue;
    copy[name] = field.nullable ? null : `${String(copy[name]).slice(0, (field.maxLength ?? 100) - 6)} #${serial}`;
  }
  return copy;
}

const { roles, rows } = readMatrix();

for (const store of testStores()) {
  describe(`authorisation matrix (${store.name})`, () => {
    const server = useServer(store, matrixDataset);
    const keys = new Map<string, string | null>([['anonymous', null]]);
    let serial = 0;
    before(async () => {
      for (const user of MATRIX_USERS) keys.set(user.role, await createToken(server.engine, user.email));
    });

    const call = (role: string, method: string, path: string, body?: Json): Promise<Answer> => {
      const key = keys.get(role);
      const headers: Record<string, string> = key ? { authorization: `Token ${key}` } : {};
      if (body) headers['content-type'] = 'application/json';
      return request(server.base, path, { method, headers, body: body && JSON.stringify(body) });
    };
    const asAdmin = async (method: string, path: string, body?: Json, status = 200) => {
      const answer = await call('administrator', method, path, body);
      assert.equal(answer.status, status, `administrator ${method} ${path}: ${answer.text}`);
      return answer.body as Json;
    };

    /** Whether `role` finds record `id` in every listing of it. */
    async function listed(role: string, resource: Resource, id: number, project: number | undefined): Promise<boolean> {
      const list = (await call(role, 'GET', `/rest/v1/${resource.name}/?id=${id}`)).body;
      const found = list.count === 1;
      assert.deepEqual(list.results.map((record: Json) => record.id), found ? [id] : []);
      assert.equal((await call(role, 'GET', `/api/v1/${resource.name}/?id=${id}`)).body.meta.total_count, list.count, '/api/v1/');
      assert.ok((await call(role, 'GET', `/rest/v1/${resource.name}/?id=${id}&format=xml`)).text.includes(`<count>${list.count}</count>`), 'XML');
      const csv = parse((await call(role, 'GET', `/rest/v1/${resource.name}/?id=${id}&format=csv`)).text, { columns: true }) as Json[];
      assert.deepEqual(csv.map((record) => Number(record.id)), found ? [id] : [], 'CSV');
      const path = projectPathOf(resource);
      if (path && path.length && project !== undefined) {
        const related = (await call(role, 'GET', `/rest/v1/${resource.name}/?${path.join('__')}=${project}`)).body;
        assert.equal(related.results.some((record: Json) => record.id === id), found, 'relation filter');
      }
      return found;
    }

    async function outcome(role: string, resource: Resource, method: string, id: number, project: number | undefined): Promise<string> {
      const detail = `/rest/v1/${resource.name}/${id}/`;
      if (method === 'LIST') return (await listed(role, resource, id, project)) ? 'yes' : 'no';
      if (method === 'GET') return String((await call(role, 'GET', detail)).status);
      if (resource.readOnly) return String((await call(role, method, method === 'POST' ? `/rest/v1/${resource.name}/` : detail, {})).status);
      const record = await asAdmin('GET', detail);
      if (method === 'PUT' || method === 'PATCH') return String((await call(role, method, detail, writable(resource, record))).status);
      if (method === 'POST') {
        const created = await call(role, 'POST', `/rest/v1/${resource.name}/`, copyOf(resource, record, (serial += 1)));
        if (created.status === 201) await asAdmin('DELETE', `/rest/v1/${resource.name}/${created.body.id}/`, undefined, 204);
        return String(created.status);
      }
      return String((await call(role, 'DELETE', detail)).status);
    }

    /** A comment on the project's update, written by `role` (anonymous callers get the administrator's). */
    async function commentBy(role: string, project: number): Promise<number> {
      const author = MATRIX_USERS.findIndex((user) => user.role === (role === 'anonymous' ? 'administrator' : role)) + 1;
      const stamp = '2024-06-01T10:00:00.000000Z';
      const record = { data: project, user: author, comment: `By ${role}`, created_at: stamp, last_modified_at: stamp };
      return changeData(server.engine, [comments.table], async (trx) => {
        const id = await insertRecord(server.engine, trx, comments, record);
        await fillProjects(trx, comments, [id]); // as the service's own writes do
        return id;
      });
    }

    for (const row of rows) {
      for (const name of row.resources) {
        test(`${name} ${row.record} ${row.method}`, async () => {
          const resource = RESOURCE_BY_NAME.get(name) ?? assert.fail(`unknown resource ${name}`);
          const own = row.record.endsWith(OWN);
          const base = own ? row.record.slice(0, -OWN.length) : row.record;
          const id = recordId(name, base);
          const project = MATRIX_PROJECTS[base as keyof typeof MATRIX_PROJECTS];
          const seen: string[] = [];
          for (const role of roles) {
            const expected = row.expected.get(role);
            let target = own ? await commentBy(role, project) : id;
            // A deletion that should succeed removes a copy, so that the record stays for the other cells.
            if (row.method === 'DELETE' && expected === '204' && !own) {
              target = (await asAdmin('POST', `/rest/v1/${name}/`, copyOf(resource, await asAdmin('GET', `/rest/v1/${name}/${id}/`), (serial += 1)), 201)).id as number;
            }
            seen.push(`${role}: ${await outcome(role, resource, row.method, target, project)}`);
          }
          assert.deepEqual(seen, roles.map((role) => `${role}: ${row.expected.get(role)}`));
        });
      }
    }
  });
}
