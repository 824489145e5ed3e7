/**
 * Report downloads (spec/reports.md) on every store: who may download, formats, dates, the
 * file name and cookie, and the contents read back with exceljs against hand-checked numbers.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { EXPORT_HEADERS } from '../src/reports/excel/organisation-export.ts';
import { PROGRAM_HEADERS } from '../src/reports/excel/program-table.ts';
import { RESULT_HEADERS } from '../src/reports/excel/results-table.ts';
import { UPDATE_HEADERS } from '../src/reports/excel/updates-table.ts';
import { MEDIA_TYPES, type ReportFormat } from '../src/reports/catalogue.ts';
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
      // Program 1 (root project 1): project 3 contributes, and project 4 through it; private 5 is nobody's to count.
      { id: 3, title: 'Вода для Кисуму', subtitle: 'Pumps & pipes <"new">', is_public: true, publishing_status: 'published', parent: 1 },
      { id: 4, title: 'Wells in Siaya', is_public: true, publishing_status: 'published', parent: 3 },
      { id: 5, title: 'Hidden wells', is_public: false, publishing_status: 'published', parent: 1 },
    ]),
    records('project_location', [{ id: 1, project: 1, name: 'Kisumu', country: 'KE' }, { id: 2, project: 3, name: 'አዲስ አበባ', country: 'ET' }, { id: 3, project: 3, name: 'Dire Dawa', country: 'ET' }]),
    records('user', [{ id: 1, email: 'reporter@example.org', first_name: 'Rita', last_name: 'Reporter' }, { id: 2, email: 'ann@example.org', first_name: 'Ann', last_name: 'Updater' }]),
    records('employment', [{ id: 1, user: 1, organisation: 1, group: 'Users', is_approved: true }]),
    records('partnership', [
      { id: 1, project: 1, organisation: 1, iati_organisation_role: 101 }, { id: 2, project: 2, organisation: 2, iati_organisation_role: 101 },
      { id: 3, project: 1, organisation: 1, iati_organisation_role: 4 }, { id: 4, project: 1, organisation: 2, iati_organisation_role: 1 },
      { id: 5, project: 3, organisation: 1, iati_organisation_role: 4 }, { id: 6, project: 5, organisation: 1, iati_organisation_role: 4 },
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
      { id: 4, project: 3, title: 'Clean water', type: '1' }, { id: 5, project: 4, title: 'Clean water', type: '1' }, { id: 6, project: 5, title: 'Clean water', type: '1' },
    ]),
    records('indicator', [
      { id: 1, result: 1, title: 'Wells dug', baseline_year: 2020, baseline_value: 2, measure: '1' },
      { id: 2, result: 1, title: 'No periods' },
      { id: 3, result: 2, title: 'Diarrhoea cases', measure: '2' },
      { id: 4, result: 4, title: 'Wells dug', measure: '1' }, { id: 5, result: 5, title: 'Wells dug', measure: '1' }, { id: 6, result: 6, title: 'Wells dug', measure: '1' },
    ]),
    records('indicator_period', [
      { id: 1, indicator: 1, period_start: '2024-01-01', period_end: '2024-06-30', target_value: '10', actual_value: '1' },
      { id: 2, indicator: 1, period_start: '2024-07-01', period_end: '2024-12-31', target_value: '10', actual_value: '4', actual_comment: 'On track' },
      { id: 3, indicator: 1, period_start: '1990-01-01', period_end: '1990-12-31', target_value: '' },
      { id: 4, indicator: 3, period_start: '2024-01-01', period_end: '2024-12-31', target_value: '50' },
      // The root's first period's dates: these count toward it. Other dates do not.
      { id: 5, indicator: 4, period_start: '2024-01-01', period_end: '2024-06-30', target_value: '5', actual_value: '2' },
      { id: 6, indicator: 4, period_start: '2024-07-01', period_end: '2024-09-30', target_value: '5', actual_value: '9' },
      { id: 7, indicator: 5, period_start: '2024-01-01', period_end: '2024-06-30', target_value: '1' },
      { id: 8, indicator: 6, period_start: '2024-01-01', period_end: '2024-06-30', actual_value: '100' },
    ]),
    records('indicator_period_data', [
      { id: 1, period: 1, user: 2, value: 3, status: 'A' },
      { id: 2, period: 1, user: 2, value: 4.5, status: 'A' },
      { id: 3, period: 1, user: 2, value: 100, status: 'P' },
      { id: 4, period: 4, user: 2, value: 20, status: 'A' },
      { id: 5, period: 7, user: 2, value: 0.5, status: 'A' },
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

/** The text of a PDF, page by page, read back by pdf.js. */
async function pdfPages(bytes: Buffer): Promise<string[]> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const content = await (await document.getPage(number)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : ' ') : '')).join('').replace(/ +\n/g, '\n'));
  }
  await document.destroy();
  return pages;
}

/** Text without its white space: what a PDF or page says, in order, whatever its line breaks and word gaps. */
const squash = (text: string) => text.replace(/\s+/g, '');
const says = (text: string, expected: string) => assert.ok(squash(text).includes(squash(expected)), `${JSON.stringify(expected)} in ${JSON.stringify(text)}`);

/** The visible text of an HTML page, cells and blocks as lines. */
const htmlText = (html: string) => html.replace(/<style>[^<]*<\/style>/, '').replace(/<\/(td|th|h\d|p|li|tr)>/g, '\n').replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/[ \t]+/g, ' ').replace(/ ?\n ?/g, '\n');

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
    /** Ann works for no organisation: she sees public projects only. */
    let outsiderKey = '';
    before(async () => {
      outsiderKey = await createToken(server.engine, 'ann@example.org');
    });
    const download = async (path: string, as: string | false = key) => {
      const answer = await fetch(`${server.base}${path}`, { headers: as ? { authorization: `Token ${as}` } : {} });
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
      // The page number and count are Word fields: their digits are no text of the file.
      assert.deepEqual(await paragraphs(answer.body, 'word/footer1.xml'), [`rsr-api report ${todayIn('Europe/Stockholm')}Page  of `]);
      const ranged = await paragraphs((await download('/py-reports/project/1/kickstart-report/?format=word&period_start=2024-07-01&period_end=2024-12-31')).body, 'word/document.xml');
      assert.deepEqual(ranged.slice(ranged.indexOf('Summary of results') + 2, ranged.indexOf('Summary of results') + 5), ['Diarrhoea cases: no target', 'Wells dug: 40.0 % (low)', 'No periods: no target']);
    });

    test('the results framework PDF: title block, partners, places in any script, periods with progress, disaggregations, comments on request', async () => {
      const answer = await download('/py-reports/project/1/results-indicators-overview/?format=pdf&download=true&period_start={period_start}&period_end={period_end}&comment=true');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/pdf');
      assert.equal(answer.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'results-indicators-overview', 'pdf')}"`);
      const pages = await pdfPages(answer.body);
      assert.ok(pages.length >= 1 && pages.length <= 3, String(pages.length));
      const text = pages.join('\n');
      for (const line of [
        'Water for Kisumu\nWells\n', 'Project #1\nPlanned 2024-01-01 – 2025-12-31\nActual 2024-01-15 – …\n', 'Other funding\nPartner implementing, reporting\n', 'Kisumu Kenya\n',
        'Healthier families\nOutcome\nDiarrhoea cases\nMeasure: Percentage. Baseline: none.\n', '2024-01-01 – 2024-12-31 50 20.00 40.0 %',
        'Wells dug\nMeasure: Unit. Baseline: 2 (2020).\n', 'Period Target Actual Progress Target comment Actual comment\n',
        '2024-01-01 – 2024-06-30 10 7.50 75.0 %', 'Gender: Women 6\n', 'Gender: Men 4\n', '2024-07-01 – 2024-12-31 10 4 40.0 % On track\n',
        'No periods\nMeasure: Unit. Baseline: none.\nNo periods in the range shown.\n', `rsr-api report ${todayIn('Europe/Stockholm')} Page 1 of ${pages.length}`,
      ]) says(text, line);
      const plain = (await pdfPages((await download('/py-reports/project/1/results-indicators-overview/?format=pdf&period_start=2024-07-01&comment=no')).body)).join('\n');
      says(plain, 'Period Target Actual Progress 2024-07-01 – 2024-12-31 10 4 40.0 %');
      assert.ok(!plain.includes('Target comment') && !plain.includes('On track') && !plain.includes('2024-01-01 – 2024-06-30'), plain);
    });

    test('show-html=1 previews a PDF report as a page with the same values', async () => {
      const answer = await download('/py-reports/project/1/results-indicators-overview/?format=pdf&show-html=1&comment=true');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(answer.headers.get('content-disposition'), null);
      const text = htmlText(answer.body.toString());
      for (const line of ['Water for Kisumu\nWells\n', '2024-01-01 – 2024-06-30\n10\n7.50\n75.0 %\n\n\n', 'Gender: Women\n6\n', '2024-07-01 – 2024-12-31\n10\n4\n40.0 %\n\nOn track\n']) {
        assert.ok(text.includes(line), `${JSON.stringify(line)} in ${JSON.stringify(text)}`);
      }
      assert.ok(answer.body.toString().includes('<rect class="medium" width="75%" height="100%"/>'));
    });

    test('the projects overview, PDF and Excel: statistics, funding per currency, status, years, countries and the projects the caller may see', async () => {
      const pdf = await download('/py-reports/organisation/1/org-projects-overview/?format=pdf');
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'org-projects-overview', 'pdf')}"`);
      const text = (await pdfPages(pdf.body)).join('\n');
      for (const line of [
        'Partner\nPartner Organisation\n', 'Projects (as a partner) 3\nPublished projects 3\nUnpublished projects 0\nUpdates of published projects 4\nUsers 1\n',
        'EUR 13,000.50\nUSD 1,000.00\n', 'Planned (not started) 2\nActive (started, not ended) 1\nCompleted (ended) 0\n', '2024 1\nnot set 2\n',
        'Ethiopia 1 0\nKenya 1 4\n', 'Ethiopia Вода для Кисуму Pumps & pipes <"new"> 3 planned 0.00 EUR 0\n',
        'Kenya Water for Kisumu Wells 1 active 13,000.50 EUR\n1,000.00 USD\n2024-01-01 2025-12-31 4\n', 'Hidden wells 5 planned 0.00 EUR 0\n',
      ]) says(text, line);
      const book = await workbook((await download('/py-reports/organisation/1/org-projects-overview/?format=excel')).body);
      assert.deepEqual(book.worksheets.map((sheet) => sheet.name), ['Overview']);
      const sheet = book.getWorksheet('Overview')!;
      const all = rows(sheet, 1, 10);
      const at = (first: unknown) => all.findIndex((row) => row[0] === first);
      assert.deepEqual(all.slice(at('Statistic'), at('Statistic') + 6).map((row) => row.slice(0, 2)), [['Statistic', 'Count'], ['Projects (as a partner)', 3], ['Published projects', 3], ['Unpublished projects', 0], ['Updates of published projects', 4], ['Users', 1]]);
      assert.equal(sheet.getRow(at('Statistic') + 1).font?.bold, true);
      assert.deepEqual(all.slice(at('Currency') + 1, at('Currency') + 3).map((row) => row.slice(0, 2)), [['EUR', 13000.5], ['USD', 1000]]);
      assert.deepEqual(all.slice(at('Countries') + 1, at('Countries') + 4), [
        ['Ethiopia', 'Вода для Кисуму', 'Pumps & pipes <"new">', 3, 'planned', 0, 'EUR', null, null, 0],
        ['Kenya', 'Water for Kisumu', 'Wells', 1, 'active', 'EUR 13,000.50; USD 1,000.00', 'EUR, USD', '2024-01-01', '2025-12-31', 4],
        [null, 'Hidden wells', null, 5, 'planned', 0, 'EUR', null, null, 0],
      ]);
      // Someone who works for no partner sees neither the private project nor what it would add.
      const outsider = (await pdfPages((await download('/py-reports/organisation/1/org-projects-overview/?format=pdf', outsiderKey)).body)).join('\n');
      says(outsider, 'Projects (as a partner) 2\nPublished projects 2\n');
      assert.ok(!outsider.includes('Hidden'), outsider);
    });

    test('data quality, PDF and Excel: the four lists of published projects, by country then id', async () => {
      const text = (await pdfPages((await download('/py-reports/organisation/1/data-quality-overview/?format=pdf')).body)).join('\n');
      for (const line of [
        'Data quality report for Partner\n', 'Planned end date passed, not ended 1\nNo update in the last 3 months 3\nNeeding funding (budget zero or none) 2\nNo location 1\n',
        'Planned end date passed, not ended (1)\nId Title Planned start Planned end Country\n1 Water for Kisumu 2024-01-01 2025-12-31 Kenya\n',
        'No update in the last 3 months (3)\nId Title Planned start Planned end Country\n3 Вода для Кисуму Ethiopia\n1 Water for Kisumu 2024-01-01 2025-12-31 Kenya\n5 Hidden wells\n',
        'Needing funding (budget zero or none) (2)\nId Title Planned start Planned end Country\n3 Вода для Кисуму Ethiopia\n5 Hidden wells\n', 'No location (1)\nId Title Planned start Planned end Country\n5 Hidden wells\n',
      ]) says(text, line);
      const book = await workbook((await download('/py-reports/organisation/1/data-quality-overview/?format=excel')).body);
      assert.deepEqual(book.worksheets.map((sheet) => sheet.name), ['Summary', 'Ended late', 'No recent updates', 'Needing funding', 'No location']);
      assert.deepEqual(rows(book.getWorksheet('Summary')!, 1, 2), [['Data quality report for Partner', null], [`3 published projects, ${todayIn('Europe/Stockholm')}`, null], ['Check', 'Projects'], ['Planned end date passed, not ended', 1], ['No update in the last 3 months', 3], ['Needing funding (budget zero or none)', 2], ['No location', 1]]);
      assert.deepEqual(rows(book.getWorksheet('Needing funding')!, 1, 5), [['Needing funding (budget zero or none) (2)', null, null, null, null], ['Id', 'Title', 'Planned start', 'Planned end', 'Country'], [3, 'Вода для Кисуму', null, null, 'Ethiopia'], [5, 'Hidden wells', null, null, null]]);
    });

    test('the organisation export streams one row per period of every project, in project, result, indicator and period order', async () => {
      const answer = await download('/py-reports/organisation/1/results-indicators-table/?format=excel');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), XLSX);
      assert.equal(answer.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'results-indicators-table', 'xlsx')}"`);
      // Sent as it is written: chunked, with neither a length nor an ETag known beforehand.
      assert.deepEqual([answer.headers.get('transfer-encoding'), answer.headers.get('content-length'), answer.headers.get('etag')], ['chunked', null, null]);
      const sheet = (await workbook(answer.body)).getWorksheet('ProjectList')!;
      assert.equal(sheet.getCell('A1').value, 'Organisation results and indicators');
      assert.deepEqual(rows(sheet, 3, EXPORT_HEADERS.length)[0], EXPORT_HEADERS);
      const kisumu = ['Water for Kisumu', 'Wells', '2024-01-01', '2025-12-31'];
      const cyrillic = ['Вода для Кисуму', 'Pumps & pipes <"new">', null, null];
      assert.deepEqual(rows(sheet, 4, EXPORT_HEADERS.length), [
        [...kisumu, 'Healthier families', 'Outcome', 'Diarrhoea cases', 'Percentage', null, null, null, '2024-01-01', '2024-12-31', 50, 20, null, 'Kenya', 1, 2, 3, 4],
        [...kisumu, 'Clean water', 'Output', 'Wells dug', 'Unit', null, 2020, 2, '1990-01-01', '1990-12-31', null, null, null, 'Kenya', 1, 1, 1, 3],
        [...kisumu, 'Clean water', 'Output', 'Wells dug', 'Unit', null, 2020, 2, '2024-01-01', '2024-06-30', 10, 7.5, null, 'Kenya', 1, 1, 1, 1],
        [...kisumu, 'Clean water', 'Output', 'Wells dug', 'Unit', null, 2020, 2, '2024-07-01', '2024-12-31', 10, 4, 'On track', 'Kenya', 1, 1, 1, 2],
        [...cyrillic, 'Clean water', 'Output', 'Wells dug', 'Unit', null, null, null, '2024-01-01', '2024-06-30', 5, 2, null, 'Ethiopia', 3, 4, 4, 5],
        [...cyrillic, 'Clean water', 'Output', 'Wells dug', 'Unit', null, null, null, '2024-07-01', '2024-09-30', 5, 9, null, 'Ethiopia', 3, 4, 4, 6],
        ['Hidden wells', null, null, null, 'Clean water', 'Output', 'Wells dug', 'Unit', null, null, null, '2024-01-01', '2024-06-30', null, 100, null, null, 5, 6, 6, 8],
      ]);
    });

    test('the program overview adds up the root and every project below it that the caller may see, for periods with the same dates', async () => {
      const pdf = await download('/py-reports/program/1/program-overview/?format=pdf&period_start=2024-01-01', outsiderKey);
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-disposition'), `attachment; filename="${reportFilename(todayIn('Europe/Stockholm'), 1, 'program-overview', 'pdf')}"`);
      const text = (await pdfPages(pdf.body)).join('\n');
      for (const line of [
        'Open programme\n', '2024-01-01 – 2024-06-30: target 10, aggregated actual 10.00\nLevel Project Countries Actual Share\n0 Water for Kisumu Kenya 7.50\n75.0 %\n1 Вода для Кисуму Ethiopia 2\n20.0 %\n2 Wells in Siaya 0.50\n5.0 %\n',
        '2024-07-01 – 2024-12-31: target 10, aggregated actual 4.00\nLevel Project Countries Actual Share\n0 Water for Kisumu Kenya 4\n100.0 %\n',
      ]) says(text, line);
      assert.ok(!text.includes('1990'), 'the period filter applies');
      // Shares are drawn as bars of one colour: a small share is no poor progress.
      const preview = (await download('/py-reports/program/1/program-overview/?format=pdf&period_start=2024-01-01&show-html=1', outsiderKey)).body.toString();
      for (const width of [75, 20, 5]) assert.ok(preview.includes(`<rect class="share" width="${width}%" height="100%"/>`), String(width));
      assert.ok(!/class="(high|medium|low)"/.test(preview));
      // A partner of the private contributor sees it, and its 100 counts.
      const partner = (await pdfPages((await download('/py-reports/program/1/program-overview/?format=pdf')).body)).join('\n');
      says(partner, 'aggregated actual 110.00');
      says(partner, 'Hidden wells 100\n90.9 %\n');
      const book = await workbook((await download('/py-reports/program/1/program-overview-table/?format=excel&period_start={period_start}', outsiderKey)).body);
      assert.deepEqual(book.worksheets.map((sheet) => sheet.name), ['Output', 'Outcome']);
      assert.deepEqual(rows(book.getWorksheet('Output')!, 1, PROGRAM_HEADERS.length), [
        PROGRAM_HEADERS,
        ['Clean water', 'Wells dug', '1990-01-01 - 1990-12-31', 0, 'Water for Kisumu', 'Kenya', null, null, null, null],
        ['Clean water', 'Wells dug', '2024-01-01 - 2024-06-30', 0, 'Water for Kisumu', 'Kenya', 10, 10, 7.5, 75],
        ['Clean water', 'Wells dug', '2024-01-01 - 2024-06-30', 1, 'Вода для Кисуму', 'Ethiopia', 10, 10, 2, 20],
        ['Clean water', 'Wells dug', '2024-01-01 - 2024-06-30', 2, 'Wells in Siaya', null, 10, 10, 0.5, 5],
        ['Clean water', 'Wells dug', '2024-07-01 - 2024-12-31', 0, 'Water for Kisumu', 'Kenya', 10, 4, 4, 100],
      ]);
      assert.deepEqual(rows(book.getWorksheet('Outcome')!, 2, PROGRAM_HEADERS.length), [['Healthier families', 'Diarrhoea cases', '2024-01-01 - 2024-12-31', 0, 'Water for Kisumu', 'Kenya', 50, 20, 20, null]]); // a percentage: its mean, no share
    });

    test('every definition of /rest/v1/reports/, its url filled as a client fills it, downloads in each of its formats', async () => {
      const { results: definitions } = (await (await fetch(`${server.base}/rest/v1/reports/?limit=100`)).json()) as { results: { url: string; formats: { name: ReportFormat }[] }[] };
      assert.equal(definitions.length, 9);
      const downloads: string[] = [];
      for (const definition of definitions) {
        for (const { name } of definition.formats) {
          // Ids and format filled in; dates left as the placeholders real clients leave.
          const path = definition.url.replace('{project}', '1').replace('{organisation}', '1').replace('{program}', '1').replace('{format}', name).replace('{comment}', 'true');
          const answer = await download(path);
          assert.equal(answer.status, 200, path);
          assert.equal(answer.headers.get('content-type'), MEDIA_TYPES[name].type, path);
          assert.match(answer.headers.get('content-disposition') ?? '', new RegExp(`^attachment; filename="\\d{4}[A-Z][a-z]{2}\\d{2}-1-[a-z-]+\\.${MEDIA_TYPES[name].extension}"$`), path);
          downloads.push(`${name} ${path.split('?')[0]}`);
        }
      }
      assert.equal(downloads.length, 11);
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
      for (const other of ['/py-reports/organisation/1/org-projects-overview/?format=pdf', '/py-reports/program/1/program-overview/?format=pdf']) assert.equal((await download(other, false)).status, 401, other);
      assert.deepEqual([anonymous.status, JSON.parse(anonymous.body.toString())], [401, { detail: 'Authentication credentials were not provided.' }]);
      for (const path of ['/project/2/updates-table/', '/project/999/updates-table/', '/project/99999999999/updates-table/', '/organisation/999/org-projects-overview/', '/program/2/program-overview/', '/program/3/program-overview/']) {
        const hidden = await download(`/py-reports${path}?format=${path.includes('program') || path.includes('overview') ? 'pdf' : 'excel'}`);
        assert.deepEqual([hidden.status, JSON.parse(hidden.body.toString())], [404, { detail: 'Not found.' }], path);
      }
      const excelOnly = await download('/py-reports/program/1/program-overview/?format=excel');
      assert.deepEqual([excelOnly.status, JSON.parse(excelOnly.body.toString())], [400, { format: ['"excel" is not a valid choice.'] }]);
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
