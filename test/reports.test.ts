/**
 * Report downloads (spec/reports.md) on every store: who may download, formats, dates, the
 * file name and cookie, and the contents read back with exceljs against hand-checked numbers.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { RESULT_HEADERS } from '../src/reports/excel/results-table.ts';
import { UPDATE_HEADERS } from '../src/reports/excel/updates-table.ts';
import { reportFilename, todayIn } from '../src/reports/params.ts';
import type { DatasetSource } from '../src/store/import.ts';
import { SERVICE } from '../src/resources/define.ts';
import { callerForKey, createToken } from '../src/store/users.ts';
import { testStores, useServer } from './support/server.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The paragraphs of a part of a .docx, as text (table cells are paragraphs too). */
async function paragraphs(docx: Buffer, part: string): Promise<string[]> {
  const xml = await (await JSZip.loadAsync(docx)).file(part)!.async('string');
  const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return xml.split('</w:p>').slice(0, -1).map((paragraph) => unescape([...paragraph.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]).join('')));
}

/** Project 1 (public, organisation 1 a partner) with results, periods, updates; project 2 private elsewhere. */
function reportDataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  return [
    records('organisation', [{ id: 1, name: 'Partner', long_name: 'Partner Organisation' }, { id: 2, name: 'Other', long_name: 'Other Organisation' }]),
    records('project', [
      { id: 1, title: 'Water for Kisumu', subtitle: 'Wells', is_public: true, publishing_status: 'published', date_start_planned: '2024-01-01', date_end_planned: '2025-12-31', date_start_actual: '2024-01-15' },
      { id: 2, title: 'Private', is_public: false, publishing_status: 'published' },
    ]),
    records('user', [{ id: 1, email: 'reporter@example.org', first_name: 'Rita', last_name: 'Reporter' }, { id: 2, email: 'ann@example.org', first_name: 'Ann', last_name: 'Updater' }]),
    records('employment', [{ id: 1, user: 1, organisation: 1, group: 'Users', is_approved: true }]),
    records('partnership', [
      { id: 1, project: 1, organisation: 1, iati_organisation_role: 101 }, { id: 2, project: 2, organisation: 2, iati_organisation_role: 101 },
      { id: 3, project: 1, organisation: 1, iati_organisation_role: 4 }, { id: 4, project: 1, organisation: 2, iati_organisation_role: 1 },
    ]),
    records('budget_item', [
      { id: 1, project: 1, other_extra: 'Wells', amount: 12500, currency: 'EUR', period_start: '2024-01-01', period_end: '2024-12-31' },
      { id: 2, project: 1, other_extra: 'Pumps', amount: 500.5, currency: 'EUR' },
      { id: 3, project: 1, other_extra: 'Training', amount: 1000, currency: 'USD' },
    ]),
    records('result', [
      { id: 1, project: 1, title: 'Clean water', type: '1', order: 2 },
      { id: 2, project: 1, title: 'Healthier families', type: '2', order: 1 },
      { id: 3, project: 1, title: 'No indicators', type: '1', order: null },
    ]),
    records('indicator', [
      { id: 1, result: 1, title: 'Wells dug', baseline_year: 2020, baseline_value: 2, measure: '1' },
      { id: 2, result: 1, title: 'No periods' },
      { id: 3, result: 2, title: 'Diarrhoea cases', measure: '2' },
    ]),
    records('indicator_period', [
      { id: 1, indicator: 1, period_start: '2024-01-01', period_end: '2024-06-30', target_value: '10', actual_value: '1' },
      { id: 2, indicator: 1, period_start: '2024-07-01', period_end: '2024-12-31', target_value: '10', actual_value: '4', actual_comment: 'On track' },
      { id: 3, indicator: 1, period_start: '1990-01-01', period_end: '1990-12-31', target_value: '' },
      { id: 4, indicator: 3, period_start: '2024-01-01', period_end: '2024-12-31', target_value: '50' },
    ]),
    records('indicator_period_data', [
      { id: 1, period: 1, user: 2, value: 3, status: 'A' },
      { id: 2, period: 1, user: 2, value: 4.5, status: 'A' },
      { id: 3, period: 1, user: 2, value: 100, status: 'P' },
      { id: 4, period: 4, user: 2, value: 20, status: 'A' },
    ]),
    records('program', [{ id: 1, title: 'Open programme' }, { id: 2, title: 'Closed programme' }]),
    records('indicator_dimension_name', [{ id: 1, project: 1, name: 'Gender' }]),
    records('indicator_dimension_value', [{ id: 1, name: 1, value: 'Women' }, { id: 2, name: 1, value: 'Men' }]),
    records('project_update', [
      { id: 1, project: 1, user: 2, title: 'Started', text: 'Digging began.', event_date: '2024-02-01', created_at: '2024-02-02T10:00:00Z' },
      { id: 2, project: 1, user: 2, title: 'Halfway', text: 'Five wells.', event_date: '2024-07-15', created_at: '2024-07-16T10:00:00Z' },
      { id: 3, project: 1, user: 2, title: 'Old', text: '', event_date: '2019-05-01', created_at: '2019-05-02T10:00:00Z' },
      { id: 4, project: 1, user: 1, title: 'No date', text: '', event_date: null, created_at: null },
    ]),
    records('disaggregation_target', [{ id: 1, period: 1, dimension_value: 1, value: 6 }, { id: 2, period: 1, dimension_value: 2, value: 4 }]),
  ];
}

async function workbook(text: Buffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(text as unknown as ArrayBuffer);
  return book;
}

/** A sheet's rows from `from` on, as plain values (empty cells null). */
function rows(sheet: ExcelJS.Worksheet, from: number, width: number): unknown[][] {
  const out: unknown[][] = [];
  for (let index = from; index <= sheet.rowCount; index += 1) {
    const row = sheet.getRow(index);
    out.push(Array.from({ length: width }, (_, column) => row.getCell(column + 1).value ?? null));
  }
  return out;
}

for (const store of testStores()) {
  describe(`reports (${store.name})`, () => {
    const server = useServer(store, reportDataset);
    let key = '';
    before(async () => {
      key = await createToken(server.engine, 'reporter@example.org');
    });
    const download = async (path: string, signedIn = true) => {
      const answer = await fetch(`${server.base}${path}`, { headers: signedIn ? { authorization: `Token ${key}` } : {} });
      return { status: answer.status, headers: answer.headers, body: Buffer.from(await answer.arrayBuffer()) };
    };

    test('a partner downloads the results table: one sheet per result type, one row per period, values as hand-checked', async () => {
      const answer = await download('/py-reports/project/1/results-indicators-table/?format=excel&download=true');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), XLSX);
      assert.equal(answer.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'results-indicators-table', 'xlsx')}"`);
      const book = await workbook(answer.body);
      assert.deepEqual(book.worksheets.map((sheet) => sheet.name), ['Output', 'Outcome']);
      const headers = [...RESULT_HEADERS, 'Gender: Women — value', 'Gender: Women — target', 'Gender: Men — value', 'Gender: Men — target'];
      const output = book.getWorksheet('Output')!;
      assert.deepEqual(rows(output, 1, headers.length)[0], headers);
      assert.equal(output.getRow(1).font?.bold, true);
      const project = 'Water for Kisumu';
      assert.deepEqual(rows(output, 2, headers.length), [
        [project, 'Clean water', null, 'Wells dug', null, 2020, 2, '1990-01-01 - 1990-12-31', null, null, null, null, null, null, null],
        [project, 'Clean water', null, 'Wells dug', null, 2020, 2, '2024-01-01 - 2024-06-30', 10, 7.5, null, null, 6, null, 4],
        [project, 'Clean water', null, 'Wells dug', null, 2020, 2, '2024-07-01 - 2024-12-31', 10, 4, 'On track', null, null, null, null],
        [project, 'Clean water', null, 'No periods', null, null, null, null, null, null, null, null, null, null, null],
        [project, 'No indicators', null, null, null, null, null, null, null, null, null, null, null, null, null],
      ]);
      assert.deepEqual(rows(book.getWorksheet('Outcome')!, 2, 11), [[project, 'Healthier families', null, 'Diarrhoea cases', null, null, null, '2024-01-01 - 2024-12-31', 50, 20, null]]);
    });

    test('the period filter keeps periods inside the dates; a placeholder left in the URL means the default', async () => {
      const filtered = await workbook((await download('/py-reports/project/1/results-indicators-table/?format=excel&period_start=2024-01-01&period_end=2024-06-30')).body);
      assert.deepEqual(rows(filtered.getWorksheet('Output')!, 2, 8).map((row) => row[7]), ['2024-01-01 - 2024-06-30', null, null]);
      const literal = await workbook((await download('/py-reports/project/1/results-indicators-table/?format=excel&period_start={period_start}&period_end=')).body);
      assert.equal(literal.getWorksheet('Output')!.rowCount, 6);
    });

    test('the updates table: title block, headers on row 5, updates in range newest first', async () => {
      const answer = await download('/py-reports/project/1/updates-table/?format=excel&download=true&start_date=2024-01-01&end_date=2024-12-31');
      assert.equal(answer.status, 200);
      const sheet = (await workbook(answer.body)).getWorksheet('UpdatesTable')!;
      assert.equal(sheet.getCell('A1').value, 'Project Updates Review');
      assert.equal(sheet.getCell('A1').font?.bold, true);
      assert.deepEqual(sheet.model.merges, ['A1:B1']);
      assert.deepEqual(rows(sheet, 2, 2).slice(0, 2), [['Project title', 'Water for Kisumu'], ['Project #', 1]]);
      assert.deepEqual(rows(sheet, 5, 7), [
        UPDATE_HEADERS,
        ['Halfway', 'Five wells.', '2024-07-16T12:00:00+02:00', '2024-07-15', 'Ann', 'Updater', '/en/project/1/update/2/'],
        ['Started', 'Digging began.', '2024-02-02T11:00:00+01:00', '2024-02-01', 'Ann', 'Updater', '/en/project/1/update/1/'],
        ['No date', null, null, null, 'Rita', 'Reporter', '/en/project/1/update/4/'],
      ]);
      const all = (await workbook((await download('/py-reports/project/1/updates-table/?format=excel&start_date={start_date}&end_date={end_date}')).body)).getWorksheet('UpdatesTable')!;
      assert.deepEqual(rows(all, 6, 1).map(([title]) => title), ['Halfway', 'Started', 'Old', 'No date']);
    });

    test('the Word project report: partners by name with their roles, budget totals per currency, grades, periods, updates, footer', async () => {
      const answer = await download('/py-reports/project/1/kickstart-report/?format=word&download=true&period_start={period_start}&period_end={period_end}');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), DOCX);
      assert.equal(answer.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'kickstart-report', 'docx')}"`);
      const text = await paragraphs(answer.body, 'word/document.xml');
      const after = (title: string, count: number) => text.slice(text.indexOf(title) + 1, text.indexOf(title) + 1 + count);
      assert.deepEqual(text.slice(0, 3), ['Water for Kisumu', 'Wells', 'Planned: 2024-01-01 – 2025-12-31. Actual: 2024-01-15 – ….']);
      assert.deepEqual(after('Project partners', 6), ['Organisation', 'Roles', 'Other', 'funding', 'Partner', 'implementing, reporting']);
      assert.deepEqual(after('Project budget', 25), [
        'Label', 'Period start', 'Period end', 'Amount', 'Currency',
        'Wells', '2024-01-01', '2024-12-31', '12,500.00', 'EUR',
        'Pumps', '', '', '500.50', 'EUR',
        'Training', '', '', '1,000.00', 'USD',
        'Total', '', '', '13,000.50', 'EUR',
      ]);
      assert.deepEqual(after('Project budget', 30).slice(25), ['Total', '', '', '1,000.00', 'USD']);
      assert.deepEqual(after('Summary of results', 4), ['Progress: high 85–100 %, medium 50–84 %, low 0–49 %.', 'Diarrhoea cases: 40.0 % (low)', 'Wells dug: 57.5 % (medium)', 'No periods: no target']);
      assert.deepEqual(after('Wells dug', 12).slice(4), ['1990-01-01 – 1990-12-31', '', '', '', '2024-01-01 – 2024-06-30', '10', '7.50', '75.0 %']);
      assert.deepEqual(after('Project updates', 8), ['Halfway  2024-07-15', 'Five wells.', 'Started  2024-02-01', 'Digging began.', 'Old  2019-05-01', '', 'No date  ', '']);
      assert.deepEqual(await paragraphs(answer.body, 'word/footer1.xml'), [`rsr-api report ${todayIn('Europe/Stockholm')}`]);
      const ranged = await paragraphs((await download('/py-reports/project/1/kickstart-report/?format=word&period_start=2024-07-01&period_end=2024-12-31')).body, 'word/document.xml');
      assert.deepEqual(ranged.slice(ranged.indexOf('Summary of results') + 2, ranged.indexOf('Summary of results') + 5), ['Diarrhoea cases: no target', 'Wells dug: 40.0 % (low)', 'No periods: no target']);
    });

    test('a program is seen where its root project is: by the partner for project 1, by nobody outside for private project 2', async () => {
      const found = await callerForKey(server.engine, key);
      assert.ok('caller' in found);
      assert.deepEqual([...await server.reader.lookup(found.caller).visible('program', [1, 2])], [1]);
      assert.deepEqual([...await server.reader.lookup(SERVICE).visible('program', [1, 2])].sort(), [1, 2]);
    });

    test('anonymous 401, a project the caller may not see or that does not exist 404, a format the report lacks 400', async () => {
      const path = '/py-reports/project/1/updates-table/?format=excel';
      const anonymous = await download(path, false);
      assert.deepEqual([anonymous.status, JSON.parse(anonymous.body.toString())], [401, { detail: 'Authentication credentials were not provided.' }]);
      for (const id of [2, 999, 99999999999]) {
        const hidden = await download(`/py-reports/project/${id}/updates-table/?format=excel`);
        assert.deepEqual([hidden.status, JSON.parse(hidden.body.toString())], [404, { detail: 'Not found.' }], String(id));
      }
      for (const [query, message] of [['format=pdf', '"pdf" is not a valid choice.'], ['format=', '"" is not a valid choice.'], ['download=true', 'This field is required.']]) {
        const refused = await download(`/py-reports/project/1/updates-table/?${query}`);
        assert.deepEqual([refused.status, JSON.parse(refused.body.toString())], [400, { format: [message] }], query);
      }
    });

    test('did=<token> sets the download cookie; a token of other characters sets none', async () => {
      const answer = await download('/py-reports/project/1/updates-table/?format=excel&did=dl_42-x');
      assert.deepEqual(answer.headers.getSetCookie(), ['dl_42-x=True; Path=/']);
      const odd = await download(`/py-reports/project/1/updates-table/?format=excel&did=${'x'.repeat(65)}`);
      assert.equal(odd.status, 200);
      assert.equal(odd.headers.get('set-cookie'), null);
    });
  });
}
