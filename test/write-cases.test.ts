/**
 * Writes answered as Django REST Framework answers them on RSR (issue 25): each case is a
 * request an RSR client sends and the status and body DRF gives it (its fields' parsing and
 * messages, RSR's model rules, Python's JSON errors), on both stores. A case that creates
 * checks what was stored by reading the record back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createToken } from '../src/store/users.ts';
import { request, startServer, testStores, type Answer, type TestServer } from './support/server.ts';

type Json = Record<string, unknown>;
type Body = { json: unknown } | { text: string } | { form: Record<string, string> } | { multipart: Record<string, string> };
/** A request, and either the 400 body DRF gives or the values a 201 stores. */
type Case = [name: string, resource: string, body: Body, expected: { refused: Json } | { stored: Json }];

const json = (value: unknown): Body => ({ json: value });

const CASES: Case[] = [
  // Decimals: digits counted as written, text and exponents read, blank text null where null is allowed.
  ['budget_item: 15 digits in a decimal(14,2)', 'budget_item', json({ project: 1, amount: '123456789012.345' }), { refused: { amount: ['Ensure that there are no more than 14 digits in total.'] } }],
  ['budget_item: 12.500 has three places as written', 'budget_item', json({ project: 1, amount: '12.500' }), { refused: { amount: ['Ensure that there are no more than 2 decimal places.'] } }],
  ['budget_item: 13 digits before the point', 'budget_item', json({ project: 1, amount: 1234567890123 }), { refused: { amount: ['Ensure that there are no more than 12 digits before the decimal point.'] } }],
  ['budget_item: 1e3 as text is 1000', 'budget_item', json({ project: 1, amount: '1e3' }), { stored: { amount: 1000 } }],
  ['budget_item: blank text is null', 'budget_item', json({ project: 1, amount: '' }), { stored: { amount: null } }],
  ['budget_item: NaN as text is no number', 'budget_item', json({ project: 1, amount: 'NaN' }), { refused: { amount: ['A valid number is required.'] } }],
  ['budget_item: a boolean is no number', 'budget_item', json({ project: 1, amount: true }), { refused: { amount: ['A valid number is required.'] } }],
  // Dates: ISO 8601 as Django parses it, and RSR's DD-MM-YYYY.
  ['budget_item: 25-12-2024 and 2025-1-5', 'budget_item', json({ project: 1, period_start: '25-12-2024', period_end: '2025-1-5' }), { stored: { period_start: '2024-12-25', period_end: '2025-01-05' } }],
  ['budget_item: 12/25/2024 in neither format', 'budget_item', json({ project: 1, period_start: '12/25/2024' }), { refused: { period_start: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD, DD-MM-YYYY.'] } }],
  // The label is a foreign key on RSR.
  ['budget_item: an unknown label', 'budget_item', json({ project: 1, label: '999999' }), { refused: { label: ['Invalid pk "999999" - object does not exist.'] } }],
  ['budget_item: a label of the wrong type', 'budget_item', json({ project: 1, label: true }), { refused: { label: ['Incorrect type. Expected pk value, received bool.'] } }],
  ['budget_item: a label as text', 'budget_item', json({ project: 1, label: '38' }), { stored: { label: 38 } }],
  // Choices: whatever the input, its Python str is named.
  ['budget_item: true as a currency', 'budget_item', json({ project: 1, currency: true }), { refused: { currency: ['"True" is not a valid choice.'] } }],
  ['budget_item: a currency too long', 'budget_item', json({ project: 1, currency: 'EURO' }), { refused: { currency: ['"EURO" is not a valid choice.'] } }],
  ['budget_item: a blank currency is allowed', 'budget_item', json({ project: 1, currency: '' }), { stored: { currency: '' } }],
  ['link: a blank kind is not', 'link', json({ project: 1, url: 'https://akvo.org', kind: '' }), { refused: { kind: ['"" is not a valid choice.'] } }],
  ['organisation: language 1.5', 'organisation', json({ name: 'Lang', long_name: 'Lang', language: 1.5 }), { refused: { language: ['"1.5" is not a valid choice.'] } }],
  ['organisation: an unknown organisation type', 'organisation', json({ name: 'Type', long_name: 'Type', new_organisation_type: 'abc' }), { refused: { new_organisation_type: ['"abc" is not a valid choice.'] } }],
  ['transaction: type D is IATI 1, accepted by imports only', 'transaction', json({ project: 1, transaction_type: 'D' }), { refused: { transaction_type: ['"D" is not a valid choice.'] } }],
  // Text: trimmed, blank after trimming, characters XML cannot hold.
  ['organisation: a name of spaces is blank', 'organisation', json({ name: '   ', long_name: 'Spaces' }), { refused: { name: ['This field may not be blank.'] } }],
  ['organisation: padded names are trimmed', 'organisation', json({ name: '  Padded  ', long_name: '\u3000Padded long\u00a0' }), { stored: { name: 'Padded', long_name: 'Padded long' } }],
  ['budget_item: a control character', 'budget_item', json({ project: 1, other_extra: 'a\u0001b' }), { refused: { other_extra: ['\u0001 is not an allowed character'] } }],
  ['budget_item: NUL', 'budget_item', json({ project: 1, other_extra: 'a\u0000b' }), { refused: { other_extra: ['\u0000 is not an allowed character', 'Null characters are not allowed.'] } }],
  ['budget_item: too long, and a control character', 'budget_item', json({ project: 1, other_extra: `\u0002${'x'.repeat(30)}` }), { refused: { other_extra: ['\u0002 is not an allowed character', 'Ensure this field has no more than 30 characters.'] } }],
  ['budget_item: a number as text', 'budget_item', json({ project: 1, other_extra: 12 }), { stored: { other_extra: '12' } }],
  // URLs as Django's URLValidator: ftp is a scheme, a host needs a dot.
  ['organisation: an ftp URL', 'organisation', json({ name: 'Ftp', long_name: 'Ftp', url: 'ftp://files.example.org/a' }), { stored: { url: 'ftp://files.example.org/a' } }],
  ['organisation: a host without a dot', 'organisation', json({ name: 'Dotless', long_name: 'Dotless', url: 'https://example' }), { refused: { url: ['Enter a valid URL.'] } }],
  // RSR's blank=True fields, and an e-mail field that is plain text there.
  ['organisation: blank IATI id and type', 'organisation', json({ name: 'Blank', long_name: 'Blank', iati_org_id: '', organisation_type: '', contact_email: 'reception' }), { stored: { iati_org_id: '', organisation_type: '', contact_email: 'reception' } }],
  // What RSR's organisation serializer stores besides.
  ['organisation: IATI prefixes and a content owner', 'organisation', json({ name: 'Owned', long_name: 'Owned', iati_prefixes: 'NL-KVK;GB-COH', content_owner: 1 }), { stored: { iati_prefixes: 'NL-KVK;GB-COH', content_owner: 1, original: null, password_policy: null, codelist: null } }],
  ['organisation: IATI prefixes too long', 'organisation', json({ name: 'Long', long_name: 'Long', iati_prefixes: 'x'.repeat(2001) }), { refused: { iati_prefixes: ['Ensure this field has no more than 2000 characters.'] } }],
  ['organisation: an unknown owner and policy', 'organisation', json({ name: 'Unknown', long_name: 'Unknown', content_owner: 999999, password_policy: 5 }), { refused: { content_owner: ['Invalid pk "999999" - object does not exist.'], password_policy: ['Invalid pk "5" - object does not exist.'] } }],
  // Integers: Django's ranges, whole numbers written as decimals.
  ['project_custom_field: order past a small integer', 'project_custom_field', json({ project: 1, name: 'n', section: 1, order: 40000 }), { refused: { order: ['Ensure this value is less than or equal to 32767.'] } }],
  ['project_custom_field: 12.0 as an order', 'project_custom_field', json({ project: 1, name: 'n', section: 1, order: '12.0' }), { stored: { order: 12 } }],
  ['project_custom_field: an integer past 2^31', 'project_custom_field', json({ project: 1, name: 'n', section: 1, order: 1, max_characters: 3000000000 }), { refused: { max_characters: ['Ensure this value is less than or equal to 2147483647.'] } }],
  ['project_custom_field: section 11', 'project_custom_field', json({ project: 1, name: 'n', section: 11, order: 1 }), { refused: { section: ['"11" is not a valid choice.'] } }],
  ['administrative_location: level past a small integer', 'administrative_location', json({ location: 1, level: 32768 }), { refused: { level: ['Ensure this value is less than or equal to 32767.'] } }],
  // Booleans: "" is null where null is allowed.
  ['transaction: a blank humanitarian flag is null', 'transaction', json({ project: 1, humanitarian: '' }), { stored: { humanitarian: null } }],
  // Kept on purpose: DRF would store project 1 for 1.5 (Django's int()); a fraction is no id.
  ['budget_item: a project id past the integer range', 'budget_item', json({ project: 1601149420910806 }), { refused: { project: ['Invalid pk "1601149420910806" - object does not exist.'] } }],
  ['budget_item: project 1.5', 'budget_item', json({ project: 1.5 }), { refused: { project: ['Incorrect type. Expected pk value, received float.'] } }],
  // The other resources: their decimals, codes, texts and keys as DRF reads them.
  ['recipient_region: 12.34 in a decimal(4,1)', 'recipient_region', json({ project: 1, percentage: '12.34' }), { refused: { percentage: ['Ensure that there are no more than 1 decimal places.'] } }],
  ['recipient_region: 1234.5 in a decimal(4,1)', 'recipient_region', json({ project: 1, percentage: '1234.5' }), { refused: { percentage: ['Ensure that there are no more than 4 digits in total.'] } }],
  ['recipient_region: 100.0 as text', 'recipient_region', json({ project: 1, percentage: '100.0', region: '298', text: ' Africa ' }), { stored: { percentage: 100, region: '298', text: 'Africa' } }],
  ['recipient_region: a region code of another list', 'recipient_region', json({ project: 1, region: 'NL' }), { refused: { region: ['"NL" is not a valid choice.'] } }],
  ['humanitarian_scope: a type of the code list, text trimmed', 'humanitarian_scope', json({ project: 1, type: '1', vocabulary: '1-2', code: ' EQ-2015 ' }), { stored: { type: '1', vocabulary: '1-2', code: 'EQ-2015' } }],
  ['humanitarian_scope: type 3', 'humanitarian_scope', json({ project: 1, type: 3 }), { refused: { type: ['"3" is not a valid choice.'] } }],
  ['disaggregation_target: 1e3 and a value id as text', 'disaggregation_target', json({ period: '1', dimension_value: '2', value: '1e3' }), { stored: { period: 1, dimension_value: 2, value: 1000 } }],
  ['disaggregation_target: a value past 18 digits before the point', 'disaggregation_target', json({ period: 1, value: '1234567890123456789' }), { refused: { value: ['Ensure that there are no more than 18 digits before the decimal point.'] } }],
  ['indicator_period_data_comment: a comment trimmed', 'indicator_period_data_comment', json({ data: 1, comment: '\n Looks right \n' }), { stored: { data: 1, comment: 'Looks right' } }],
  ['indicator_period_data_comment: a data point of the wrong type', 'indicator_period_data_comment', json({ data: [1], comment: 'x' }), { refused: { data: ['Incorrect type. Expected pk value, received list.'] } }],
  // Bodies.
  ['a null body', 'keyword', { text: 'null' }, { refused: { non_field_errors: ['No data provided'] } }],
  ['a form leaves a checkbox out: false', 'organisation', { form: { name: 'Form', long_name: 'Form' } }, { stored: { public_iati_file: false, enforce_2fa: false } }],
  ['a multipart form', 'keyword', { multipart: { label: 'Multipart', logo: '' } }, { stored: { label: 'Multipart', logo: '' } }],
];

/** DRF's JSONParser refuses malformed JSON in Python's words. */
const PARSE_ERRORS: [body: string, detail: string][] = [
  ['{a}', 'JSON parse error - Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
  ['{"label": NaN}', "JSON parse error - Out of range float values are not JSON compliant: 'NaN'"],
  ['{"label": "x",}', 'JSON parse error - Expecting property name enclosed in double quotes: line 1 column 15 (char 14)'],
  ['{"label":\n "x" "y"}', "JSON parse error - Expecting ',' delimiter: line 2 column 6 (char 15)"],
  ['\ufeff{}', 'JSON parse error - Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
];

for (const store of testStores()) {
  describe(`write cases as DRF answers them (${store.name})`, () => {
    let server: TestServer;
    let key = '';
    before(async () => {
      server = await startServer(store);
      key = await createToken(server.engine, 'ana@example.org');
    });
    after(() => server.close());

    function post(resource: string, body: Body, query = ''): Promise<Answer> {
      const headers: Record<string, string> = { authorization: `Token ${key}` };
      let payload: string | FormData;
      if ('multipart' in body) {
        payload = new FormData();
        for (const [name, value] of Object.entries(body.multipart)) payload.append(name, value);
      } else if ('form' in body) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = new URLSearchParams(body.form).toString();
      } else {
        headers['content-type'] = 'application/json';
        payload = 'text' in body ? body.text : JSON.stringify(body.json);
      }
      return request(server.base, `/rest/v1/${resource}/${query}`, { method: 'POST', headers, body: payload });
    }

    for (const [name, resource, body, expected] of CASES) {
      test(name, async () => {
        const before = (await request(server.base, `/rest/v1/${resource}/`, { headers: { authorization: `Token ${key}` } })).body.count;
        const answer = await post(resource, body);
        if ('refused' in expected) {
          assert.equal(answer.status, 400, answer.text);
          assert.equal(answer.text, JSON.stringify(expected.refused));
          const now = (await request(server.base, `/rest/v1/${resource}/`, { headers: { authorization: `Token ${key}` } })).body.count;
          assert.equal(now, before, 'nothing written');
          return;
        }
        assert.equal(answer.status, 201, answer.text);
        const stored = (await request(server.base, `/rest/v1/${resource}/${answer.body.id}/`, { headers: { authorization: `Token ${key}` } })).body;
        for (const [field, value] of Object.entries(expected.stored)) {
          assert.deepEqual(answer.body[field], value, `${field} as answered`);
          assert.deepEqual(stored[field], value, `${field} as stored`);
        }
      });
    }

    test('malformed JSON is refused in Python\'s words', async () => {
      for (const [body, detail] of PARSE_ERRORS) {
        const answer = await post('keyword', { text: body });
        assert.equal(answer.status, 400, body);
        assert.equal(answer.text, JSON.stringify({ detail }), body);
      }
    });

    test('a multipart body without a boundary is refused as Django refuses it', async () => {
      const answer = await request(server.base, '/rest/v1/keyword/', {
        method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'multipart/form-data' }, body: 'label=x',
      });
      assert.equal(answer.status, 400);
      assert.equal(answer.text, '{"detail":"Multipart form parse error - Invalid boundary in multipart: None"}');
    });

    test('a form PATCH leaves out what it does not name, checkboxes too', async () => {
      const created = await post('organisation', json({ name: 'Patched', long_name: 'Patched', public_iati_file: true }));
      const answer = await request(server.base, `/rest/v1/organisation/${created.body.id}/`, {
        method: 'PATCH', headers: { authorization: `Token ${key}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'phone=%2031%20',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.phone, '31');
      assert.equal(answer.body.public_iati_file, true);
    });

    test('unique fields are named by their verbose names', async () => {
      assert.equal((await post('organisation', json({ name: 'Iati', long_name: 'Iati', iati_org_id: 'NL-KVK-1' }))).status, 201);
      const again = await post('organisation', json({ name: 'Iati 2', long_name: 'Iati 2', iati_org_id: 'NL-KVK-1' }));
      assert.equal(again.text, '{"iati_org_id":["organisation with this IATI organisation ID already exists."]}');
      const report = await post('reports', json({ name: 'data-quality', title: 'Again', url: '/x/' }));
      assert.equal(report.text, '{"name":["report with this name already exists."]}');
    });

    test('a write answers in the format asked for, XML too', async () => {
      const created = await post('keyword', json({ label: 'In XML' }), '?format=xml');
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('content-type'), 'application/xml; charset=utf-8');
      assert.equal(created.text, `<?xml version="1.0" encoding="utf-8"?><root><id>${/<id>(\d+)<\/id>/.exec(created.text)?.[1]}</id><label>In XML</label><logo></logo></root>`);
      const id = /<id>(\d+)<\/id>/.exec(created.text)?.[1];
      const patched = await request(server.base, `/rest/v1/keyword/${id}/`, {
        method: 'PATCH', headers: { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/xml' }, body: '{"label":"Still XML"}',
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.text, `<?xml version="1.0" encoding="utf-8"?><root><id>${id}</id><label>Still XML</label><logo></logo></root>`);
    });
  });
}
