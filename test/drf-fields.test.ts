/**
 * Written values as Django REST Framework reads them (issue 25): every value of a hostile list,
 * for fields of each kind, is run through the real DRF (test/drf/fields.py: Debian's Django 3.2
 * and DRF 3.14, models with RSR's field rules) and through this service's reading of writes;
 * the stored value or the messages must be the same. .ci/run installs python3-djangorestframework.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { storedFields } from '../src/resources/define.ts';
import { apiText } from '../src/resources/messages.ts';
import { RESOURCES } from '../src/resources/index.ts';
import { cleanRecord } from '../src/resources/validate.ts';
import { formValues } from '../src/resources/written-values.ts';

const FIELDS: [resource: string, field: string][] = [
  ['budget_item', 'other_extra'], ['budget_item', 'amount'], ['budget_item', 'type'], ['budget_item', 'period_start'], ['budget_item', 'currency'],
  ['organisation', 'name'], ['organisation', 'language'], ['organisation', 'organisation_type'], ['organisation', 'new_organisation_type'],
  ['organisation', 'iati_org_id'], ['organisation', 'url'], ['organisation', 'contact_email'], ['organisation', 'description'], ['organisation', 'public_iati_file'],
  ['project_custom_field', 'section'], ['project_custom_field', 'max_characters'], ['project_custom_field', 'order'],
  ['transaction', 'transaction_type'], ['transaction', 'humanitarian'], ['transaction', 'value'], ['link', 'kind'], ['link', 'url'], ['link', 'caption'],
];

const VALUES: unknown[] = [
  '', ' ', '   x  ', 'x', 'EUR', 'eur', ' EUR', 'USD', '1', '2', '1.0', '12.0', '12.5', '12.500', '1e3', '1E-2', '-0', '+5', '1_000', '0012.50', '.5', '5.', 'NaN', 'inf',
  '123456789012.345', '99999999999999', '999999999999.99', '0.001', 1, 0, -1, 1.5, 22, 10, 80, 2147483647, 2147483648, -2147483649, 32767, 32768, 1e20, true, false,
  [1], { a: 1 }, 'true', 'True', 'yes', 'on', 'off', 'null', 't', 'n', '2024-01-05', '2024-1-5', '25-12-2024', '5-1-2024', '31-02-2024', '2024-02-30', '2024/01/05',
  '2024-01-05\n', 'https://akvo.org', 'http://localhost:8000/x', 'ftp://files.example.org/a', 'https://example', 'akvo.org', 'https://akvo.org/a b', 'mailto:x@y.org',
  'http://1.2.3.4/', 'http://[::1]/', 'a\u0001b', 'a\u0000b', 'a\u007fb', 'a\u0085b', 'a\ufdd0b', 'a\ud800b', 'x'.repeat(41), `\u0002${'x'.repeat(50)}`,
  '\u00a0padded\u3000', '\u001cx\u001f', 'a\tb\nc', 'D', 'A', 'E', 'e', 'en', 'EN', 'N', 'n', 'D1', '10', '13', '14',
];

type DrfCase = { resource: string; field: string } & ({ value: unknown } | { form?: string; partial: boolean });

function drf(cases: DrfCase[]): unknown[] {
  const script = new URL('drf/fields.py', import.meta.url).pathname;
  const codelists = new URL('../codelists/', import.meta.url).pathname;
  const output = execFileSync('/usr/bin/python3', [script, codelists], { input: JSON.stringify(cases), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(output.toString()) as unknown[];
}

test('every written value is stored or refused as DRF stores or refuses it', () => {
  const cases = FIELDS.flatMap(([resource, field]) => VALUES.map((value) => ({ resource, field, value })));
  const expected = drf(cases);
  const differences = cases.flatMap((each, index) => {
    const resource = RESOURCES.find((candidate) => candidate.name === each.resource)!;
    const { record, problems } = cleanRecord(resource, { [each.field]: each.value }, { partial: true, source: 'api' });
    const ours = problems.length ? { errors: problems.map((problem) => apiText(problem, resource)) } : { value: record[each.field] };
    return JSON.stringify(ours) === JSON.stringify(expected[index]) ? [] : [`${each.resource}.${each.field} ${JSON.stringify(each.value)}: ours ${JSON.stringify(ours)}, DRF ${JSON.stringify(expected[index])}`];
  });
  assert.deepEqual(differences, []);
  assert.equal(cases.length, FIELDS.length * VALUES.length);
});

/** What this service makes of one form field: left out (the model's default), a value, or messages. */
function ourForm(resourceName: string, name: string, form: string | undefined, partial: boolean): unknown {
  const resource = RESOURCES.find((candidate) => candidate.name === resourceName)!;
  const fields = storedFields(resource).filter(([each]) => each === name);
  const input = formValues(fields, form === undefined ? {} : { [name]: form }, partial);
  if (!(name in input)) return partial || !fields[0][1].required ? { omitted: true } : { errors: ['This field is required.'] };
  const { record, problems } = cleanRecord(resource, input, { partial: true, source: 'api' });
  return problems.length ? { errors: problems.map((problem) => apiText(problem, resource)) } : { value: record[name] };
}

test('form fields, given, empty or left out, in full and partial writes, as DRF reads HTML input', () => {
  const cases = FIELDS.flatMap(([resource, field]) => [false, true].flatMap((partial) =>
    [undefined, '', ' ', 'x', '1', 'true', 'off', '12.0'].map((form) => ({ resource, field, partial, ...(form === undefined ? {} : { form }) }))));
  const expected = drf(cases);
  const differences = cases.flatMap((each, index) => {
    const ours = ourForm(each.resource, each.field, each.form, each.partial);
    return JSON.stringify(ours) === JSON.stringify(expected[index]) ? [] : [`${JSON.stringify(each)}: ours ${JSON.stringify(ours)}, DRF ${JSON.stringify(expected[index])}`];
  });
  assert.deepEqual(differences, []);
});
