/**
 * Requests a hostile caller sends, generated from the resource declarations: every route, every
 * reserved parameter, filter paths through real and made-up relations with every lookup,
 * Python-literal dictionaries, malformed percent-encoding, NUL, lone surrogates, huge values,
 * repeated keys; and write bodies of every shape. `checkAnswer` holds the rules no answer may break.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { storedFields, type Entity } from '../../src/resources/define.ts';
import { ENTITY_BY_TABLE, RESOURCES } from '../../src/resources/index.ts';
import { LOOKUPS } from '../../src/query/filters.ts';
import { hostileText, jsonValue } from './arbitraries.ts';

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate goes as U+FFFD, as a browser sends it). */
const encode = (text: string) => [...Buffer.from(text, 'utf8')].map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** Raw pieces of a query string that no encoder would produce. */
const MALFORMED = ['%', '%z', '%zz', '%E9', '%ED%A0%80', '%C0%AF', '%00', '%FF%FE', '+', '&&', '=', '==', ';', '%25', '%2B'];

/** A dotted path of fields from `entity`, following foreign keys, ending in a lookup or nothing; sometimes made up. */
function fieldPath(entity: Entity): fc.Arbitrary<string> {
  return fc.tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 14 }), fc.oneof(fc.constant(''), fc.constantFrom(...LOOKUPS), hostileText(6)), fc.boolean()).map(([choices, lookup, madeUp]) => {
    const parts: string[] = [];
    let at: Entity | undefined = entity;
    for (const choice of choices) {
      if (!at) break;
      const fields = storedFields(at);
      const [name, field] = fields[choice % fields.length];
      parts.push(name);
      at = field.references ? ENTITY_BY_TABLE.get(field.references) : undefined;
    }
    if (madeUp) parts.push('nothing');
    if (lookup) parts.push(lookup);
    return parts.join('__');
  });
}

const number = fc.oneof(fc.integer(), fc.double().map(String), fc.constantFrom('2147483647', '2147483648', '-2147483649', '9223372036854775808', '1e21', '1e400', '-0', '0x10', '1_000', 'NaN', 'Infinity'));
const dateLike = fc.constantFrom('2023-01-01', '2023-02-30', '0000-01-01', '9999-12-31', '2024-01-15T09:30:00Z', '2024-01-15T10:30:00.123456+01:00', '2024-13-01', '10000-01-01');

/** A parameter value: numbers, dates, flags, lists, text of every kind, sometimes very long. */
const textValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: number.map(String) },
  { weight: 2, arbitrary: dateLike },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'True', 'None', 'null', '', ' ', 'last', '0', '-1') },
  { weight: 4, arbitrary: hostileText() },
  { weight: 1, arbitrary: fc.array(number.map(String), { maxLength: 5 }).map((items) => items.join(',')) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5000 }).map((length) => 'a'.repeat(length)) },
);

/** A Python literal as `filter=` holds it: a dictionary of paths to values, or text that only looks like one. */
function pythonLiteral(entity: Entity): fc.Arbitrary<string> {
  const value: fc.Arbitrary<string> = fc.oneof(
    number.map(String),
    fc.constantFrom('True', 'False', 'None', "'2023-01-01'", "'\\x00'", "'\\ud800'", "'\\n'", '[]', '(1, 2)', '[1, 2, 3]', "{'a': 1}", '1e400', "'" + '\\\\'.repeat(3) + "'"),
    hostileText(10).map((text) => JSON.stringify(text)),
    hostileText(10).map((text) => `'${text.replace(/['\\]/g, '')}'`),
  );
  const dictionary = fc.array(fc.tuple(fieldPath(entity), value), { maxLength: 6 }).map((entries) => `{${entries.map(([key, item]) => `'${key}': ${item}`).join(', ')}}`);
  return fc.oneof({ weight: 4, arbitrary: dictionary }, { weight: 1, arbitrary: hostileText(20) }, { weight: 1, arbitrary: fc.constantFrom('{', '{}}', "{'a':", '[' .repeat(100), "{'a': " + '['.repeat(60) + '}', '__import__("os")', "{'id': 1}" + '#') });
}

/** One `key=value` of a query string, well or badly encoded. */
function queryPair(entity: Entity): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 5, arbitrary: fieldPath(entity) },
    { weight: 2, arbitrary: fc.constantFrom('page', 'limit', 'offset', 'ordering', 'format', 'fields') },
    { weight: 1, arbitrary: hostileText(10) },
  );
  const plain = fc.tuple(key, textValue).map(([name, text]) => `${encode(name)}=${encode(text)}`);
  const ordering = fc.array(fc.tuple(fc.boolean(), fieldPath(entity)), { maxLength: 14 }).map((terms) => `ordering=${encode(terms.map(([down, path]) => (down ? '-' : '') + path).join(','))}`);
  const dictionary = fc.tuple(fc.constantFrom('filter', 'exclude', 'q_filter1', 'q_filter2', 'q_filter3'), pythonLiteral(entity)).map(([name, literal]) => `${name}=${encode(literal)}`);
  const malformed = fc.tuple(fc.constantFrom(...MALFORMED), fc.constantFrom(...MALFORMED)).map(([a, b]) => `${a}${b}`);
  return fc.oneof({ weight: 6, arbitrary: plain }, { weight: 2, arbitrary: ordering }, { weight: 3, arbitrary: dictionary }, { weight: 1, arbitrary: malformed });
}

/** A query string; now and then one pair repeated hundreds of times. */
function queryString(entity: Entity): fc.Arbitrary<string> {
  const pairs = fc.array(queryPair(entity), { maxLength: 8 });
  const repeated = fc.tuple(queryPair(entity), fc.integer({ min: 20, max: 600 })).map(([pair, times]) => Array.from({ length: times }, () => pair));
  return fc.oneof({ weight: 9, arbitrary: pairs }, { weight: 1, arbitrary: repeated }).map((items) => items.join('&'));
}

const id = fc.oneof(fc.nat(12).map(String), fc.integer().map(String), fc.constantFrom('2147483648', '99999999999999999999', 'abc', '%00', '1.5', '-1', '%20', '0'));
const suffix = fc.constantFrom('', '', '', '.json', '.xml', '.csv', '.api', '.yaml', '.');

/** A path of the API, or near one. */
export const readPath: fc.Arbitrary<string> = fc.constantFrom(...RESOURCES).chain((resource) => {
  const query = queryString(resource);
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(suffix, query).map(([end, text]) => (end ? `/rest/v1/${resource.name}${end}?${text}` : `/rest/v1/${resource.name}/?${text}`)) },
    { weight: 3, arbitrary: fc.tuple(id, suffix, fc.boolean(), query).map(([key, end, slash, text]) => `/rest/v1/${resource.name}/${key}${end}${slash ? '/' : ''}?${text}`) },
    { weight: 3, arbitrary: query.map((text) => `/api/v1/${resource.name}/?${text}`) },
    { weight: 1, arbitrary: fc.constantFrom('/rest/v1/', '/rest/v1', '/', '//', '/%', '/%zz/', '/rest/v1/%00/', `/rest/v1/${resource.name}//`, '/api/v1/', '/rest/v1/../rest/v1/') },
    { weight: 1, arbitrary: hostileText(12).map((text) => `/rest/v1/${encode(text)}/`) },
  );
});

/** Header values a client may send (printable ASCII: anything else never leaves a client). */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 30 });
export const accept = fc.oneof(fc.constantFrom(undefined, 'application/json', 'application/xml', 'text/csv', 'text/html,*/*;q=0.8', '*/*', 'text/csv;q=0, application/xml;q=0.1', ';;;', 'application/*'), headerText);

/** Who calls: nobody, a role of the test data (`keys[0]` an administrator), or a key that is wrong in some way. */
export function authorization(keys: readonly string[], anonymous = 4): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: anonymous, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constant(`Token ${keys[0]}`) },
    { weight: 4, arbitrary: fc.constantFrom(...keys).map((key) => `Token ${key}`) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom('Token', 'Token a b', 'token 0000000000000000000000000000000000000000', 'Bearer x', 'Token ' + 'f'.repeat(4000), 'Basic YTpi'), headerText.map((text) => `Token ${text}`)) },
  );
}

/** A record each resource accepts on the test fixture (test/fixtures/small): writes start from it and break a few fields. */
const VALID: Record<string, Record<string, unknown>> = {
  budget_item: { project: 1, label: 38, other_extra: 'Boats', amount: 1234.5, currency: 'USD', type: '1' },
  transaction: { project: 1, reference: 'TX-9', transaction_type: '3', value: 10, currency: 'EUR', provider_organisation: 2 },
  organisation: { name: 'Nuevo', long_name: 'Nuevo Instituto', currency: 'EUR', url: 'https://nuevo.example.org/' },
  indicator_period_data_comment: { data: 1, comment: 'Checked.' },
  recipient_region: { project: 1, region: '89', text: 'Europe, regional', percentage: 10 },
  project_custom_field: { project: 1, name: 'Phase', section: 2, order: 3, value: 'One', dropdown_options: { a: [1, 'b'] } },
  administrative_location: { location: 1, vocabulary: 'A4', code: 'KE', level: 2 },
  link: { project: 1, url: 'https://example.org/report', caption: 'Report' },
  disaggregation_target: { period: 1, dimension_value: 1, value: 5 },
  keyword: { label: 'Health' },
  reports: { name: 'budget-table', title: 'Budget table', url: '/py-reports/project/{project}/budget/?format={format}', formats: ['excel'] },
  my_projects: { title: 'Mine' },
  humanitarian_scope: { project: 1, code: 'FL-2024', type: '1', vocabulary: '1-2', text: 'Floods' },
};

/** A body for a write: a valid record with a few fields broken, any object at all, or not an object; form-encoded now and then. */
export const writeBody = fc.constantFrom(...RESOURCES).chain((resource) => {
  const fieldNames = Object.keys(resource.fields);
  const value = fc.oneof({ weight: 3, arbitrary: jsonValue() }, { weight: 2, arbitrary: textValue }, { weight: 1, arbitrary: fc.constantFrom(1, 2, 3, 4, 5, -1, 2 ** 31, 1e300, 'EUR', '38', 'https://example.org/') });
  const fields = fc.dictionary(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fieldNames) }, { weight: 1, arbitrary: hostileText(8) }), value, { maxKeys: 8 });
  const broken = fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 3 }).map((changes) => ({ ...VALID[resource.name], ...changes }));
  const record = fc.oneof({ weight: 3, arbitrary: broken }, { weight: 2, arbitrary: fields });
  const json = record.map((object) => ({ type: 'application/json', body: JSON.stringify(object) }));
  const form = record.map((object) => ({ type: 'application/x-www-form-urlencoded', body: Object.entries(object).map(([key, item]) => `${encode(key)}=${encode(typeof item === 'string' ? item : JSON.stringify(item) ?? '')}`).join('&') }));
  const odd = fc.oneof(
    jsonValue().map((item) => ({ type: 'application/json', body: JSON.stringify(item) ?? '' })),
    fc.constantFrom('{', '', '\u0000', '[1,', '{"a":1}{"b":2}').map((body) => ({ type: 'application/json', body })),
    fc.tuple(fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data', 'application/json; charset=latin1', ''), hostileText()).map(([type, body]) => ({ type, body })),
  );
  const payload = fc.oneof({ weight: 6, arbitrary: json }, { weight: 2, arbitrary: form }, { weight: 1, arbitrary: odd });
  const list = `/rest/v1/${resource.name}/`;
  const recordPath = fc.nat(12).map((key) => `/rest/v1/${resource.name}/${key}/`);
  const target = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ method: 'POST', path: list }) },
    { weight: 5, arbitrary: fc.tuple(fc.constantFrom('PUT', 'PATCH', 'PATCH', 'DELETE'), recordPath).map(([method, path]) => ({ method, path })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'), fc.oneof(fc.constant(list), id.map((key) => `/rest/v1/${resource.name}/${key}/`))).map(([method, path]) => ({ method, path })) },
  );
  return fc.tuple(target, payload).map(([{ method, path }, body]) => ({ method, path, payload: body }));
});

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request through node:http (the path goes exactly as generated); refuses to wait past `timeoutMs`. */
export function send(base: string, method: string, path: string, headers: Record<string, string | undefined>, body?: string, timeoutMs = 10_000): Promise<Reply> {
  const sent = Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return new Promise((resolve, reject) => {
    const outgoing = http.request(base + path, { method, headers: sent, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: ${method} ${path.slice(0, 200)}`));
    }, timeoutMs);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.end(body);
  });
}

/** Every answer: never a 5xx; every 4xx a JSON error body; every 2xx body readable in its format. */
export function checkAnswer(method: string, path: string, reply: Reply): void {
  const where = `${method} ${path.slice(0, 300)}`;
  assert.ok(reply.status >= 200 && reply.status < 500, `${where}: ${reply.status} ${reply.body.toString('utf8').slice(0, 300)}`);
  if (method === 'HEAD' || reply.status === 204 || reply.status === 304) return;
  const type = String(reply.headers['content-type'] ?? '');
  const text = reply.body.toString('utf8');
  if (reply.status === 301) {
    assert.ok(reply.headers.location, `${where}: 301 without Location`);
    return;
  }
  if (reply.status >= 400 || type === 'application/json') {
    assert.equal(type, 'application/json', `${where}: ${reply.status} as ${type}`);
    const body = JSON.parse(text) as unknown;
    if (reply.status >= 400) {
      assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `${where}: error body ${text.slice(0, 200)}`);
      const entries = Object.entries(body);
      const isDetail = entries.length === 1 && entries[0][0] === 'detail' && typeof entries[0][1] === 'string';
      const isFieldErrors = entries.length > 0 && entries.every(([, messages]) => Array.isArray(messages) && messages.every((message) => typeof message === 'string'));
      assert.ok(isDetail || isFieldErrors, `${where}: error body ${text.slice(0, 200)}`);
    }
    return;
  }
  if (type.startsWith('application/xml')) {
    const parser = new SaxesParser();
    parser.on('error', (error) => assert.fail(`${where}: malformed XML (${error.message})`));
    parser.write(text).close();
  } else if (type.startsWith('text/csv')) {
    parseCsv(text);
  } else if (type === 'text/html; charset=utf-8') {
    // The explorer's page (at /), or the page offered to a browser on an API address.
    assert.match(text, /^<!doctype html>/i, `${where}: not an HTML page`);
  } else assert.fail(`${where}: unexpected content type ${type}`);
}

