/**
 * Program aggregation (spec/reports.md, D16) with figures computed by hand: a linked program
 * (parent_indicator / parent_period over three levels, links that cross the order of equal
 * titles, a private contributor) and an unlinked one (matched by result title, indicator title,
 * position among equal titles and period dates), units added up and percentages averaged, the
 * same in the PDF, its HTML preview and the Excel table, on every store.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PROGRAM_HEADERS } from '../src/reports/excel/program-table.ts';
import type { DatasetSource } from '../src/store/import.ts';
import { createToken } from '../src/store/users.ts';
import { testStores, useServer } from './support/server.ts';

const YEAR = { period_start: '2024-01-01', period_end: '2024-12-31' };
const NEXT_YEAR = { period_start: '2025-01-01', period_end: '2025-12-31' };

/**
 * Program 10 is linked: 11 and private 13 contribute to 10, 12 to 11. Program 20 carries no link:
 * 21 contributes to 20 and 22 to 21 by place. Each root's result has two unit indicators with one
 * title and a percentage.
 */
function programDataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  const project = (id: number, title: string, parent: number | null, isPublic = true) => ({ id, title, parent, is_public: isPublic, publishing_status: 'published' });
  const indicator = (id: number, result: number, title: string, measure: '1' | '2', order: number, parent: number | null = null) => ({ id, result, title, measure, order, parent_indicator: parent });
  const period = (id: number, indicatorId: number, actual: string, parent: number | null = null, dates = YEAR) => ({ id, indicator: indicatorId, ...dates, target_value: '100', actual_value: actual, parent_period: parent });
  return [
    records('organisation', [{ id: 1, name: 'Partner', long_name: 'Partner Organisation' }]),
    records('user', [{ id: 1, email: 'partner@example.org' }, { id: 2, email: 'outsider@example.org' }]),
    records('employment', [{ id: 1, user: 1, organisation: 1, group: 'Users', is_approved: true }]),
    records('project', [
      project(10, 'Linked root', null), project(11, 'Linked child', 10), project(12, 'Linked grandchild', 11), project(13, 'Private child', 10, false),
      project(20, 'Unlinked root', null), project(21, 'Unlinked child', 20), project(22, 'Unlinked grandchild', 21),
    ]),
    records('partnership', [{ id: 1, project: 13, organisation: 1, iati_organisation_role: 4 }]),
    records('program', [{ id: 10, title: 'Linked programme' }, { id: 20, title: 'Unlinked programme' }]),
    records('result', [
      { id: 10, project: 10, title: 'Access', type: '1' }, { id: 11, project: 11, title: 'Access', type: '1' },
      { id: 12, project: 12, title: 'Access', type: '1' }, { id: 13, project: 13, title: 'Access', type: '1' },
      { id: 20, project: 20, title: 'Access', type: '1' }, { id: 21, project: 21, title: 'Access', type: '1' },
      { id: 29, project: 21, title: 'Other things', type: '1' }, { id: 22, project: 22, title: 'Access', type: '1' },
    ]),
    records('indicator', [
      indicator(101, 10, 'People reached', '1', 1), indicator(102, 10, 'People reached', '1', 2), indicator(103, 10, 'Share of households', '2', 3),
      // The child's first "People reached" names the root's second, and its second the first: links decide, not titles.
      indicator(111, 11, 'People reached', '1', 1, 102), indicator(112, 11, 'People reached', '1', 2, 101), indicator(113, 11, 'Share of households', '2', 3, 103),
      indicator(121, 12, 'People reached', '1', 1, 111), indicator(123, 12, 'Share of households', '2', 3, 113),
      indicator(131, 13, 'People reached', '1', 1, 101),
      indicator(201, 20, 'People reached', '1', 1), indicator(202, 20, 'People reached', '1', 2), indicator(203, 20, 'Share of households', '2', 3),
      indicator(211, 21, 'People reached', '1', 1), indicator(212, 21, 'People reached', '1', 2), indicator(213, 21, 'Share of households', '2', 3),
      indicator(219, 29, 'People reached', '1', 1),
      indicator(221, 22, 'People reached', '1', 1), indicator(223, 22, 'Share of households', '2', 3),
    ]),
    records('indicator_period', [
      period(1011, 101, '100'), period(1021, 102, '7'), period(1031, 103, '40'),
      period(1111, 111, '999', 1021), period(1121, 112, '30', 1011), period(1131, 113, '50', 1031),
      // 2025: no such period above, by link or by date; it counts toward nothing.
      period(1211, 121, '3', 1111), period(1212, 121, '8', null, NEXT_YEAR), period(1231, 123, '61', 1131),
      period(1311, 131, '1000', 1011),
      period(2011, 201, '10'), period(2021, 202, '20'), period(2031, 203, '30'),
      period(2111, 211, '1'), period(2121, 212, '2'), period(2131, 213, '50'), period(2191, 219, '999'),
      period(2211, 221, '4'), period(2231, 223, ''),
    ]),
    // Approved updates replace the stored actual (999): 20 + 5; a draft does not count.
    records('indicator_period_data', [
      { id: 1, period: 1111, user: 1, value: 20, status: 'A' }, { id: 2, period: 1111, user: 1, value: 5, status: 'A' }, { id: 3, period: 1111, user: 1, value: 70, status: 'D' },
    ]),
  ];
}

async function pdfText(bytes: Buffer): Promise<string> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  let text = '';
  for (let number = 1; number <= document.numPages; number += 1) {
    const content = await (await document.getPage(number)).getTextContent();
    text += content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
  }
  await document.destroy();
  return text.replace(/\s+/g, ' ');
}

/** The preview's rows and headings as lines of cells joined by ' | '. */
const previewLines = (html: string) =>
  html
    .replace(/<style>[^<]*<\/style>/, '')
    .replace(/<\/t[dh]>/g, ' | ')
    .replace(/<\/(tr|h\d|p)>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .split('\n')
    .map((line) => line.trim().replace(/ \|$/, '').trimEnd())
    .filter(Boolean);

/** The lines of one period's heading and table in the preview. */
function periodSection(lines: readonly string[], indicatorTitle: string, occurrence: number, period: string): string[] {
  const starts = lines.flatMap((line, index) => (line === indicatorTitle ? [index] : []));
  const from = lines.indexOf(lines.find((line, index) => index > starts[occurrence] && line.startsWith(period))!, starts[occurrence]);
  const end = lines.findIndex((line, index) => index > from + 1 && !/^\d+ \|/.test(line));
  return lines.slice(from, end === -1 ? undefined : end);
}

for (const store of testStores()) {
  describe(`program aggregation (${store.name})`, () => {
    const server = useServer(store, programDataset);
    const keys = { partner: '', outsider: '' };
    before(async () => {
      keys.partner = await createToken(server.engine, 'partner@example.org');
      keys.outsider = await createToken(server.engine, 'outsider@example.org');
    });
    const download = async (path: string, key: string) => {
      const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` } });
      assert.equal(answer.status, 200, path);
      return Buffer.from(await answer.arrayBuffer());
    };
    const preview = async (program: number, key: string) => previewLines((await download(`/py-reports/program/${program}/program-overview/?format=pdf&show-html=1`, key)).toString());

    test('linked: each contributor counts toward the indicator and period it names, over three levels, never by title', async () => {
      const lines = await preview(10, keys.outsider);
      // 101: the root's 100 and the child's second indicator (30), which names it.
      assert.deepEqual(periodSection(lines, 'People reached', 0, '2024'), [
        '2024-01-01 – 2024-12-31: target 100, aggregated actual 130.00',
        'Level | Project | Countries | Actual | Share',
        '0 | Linked root |  | 100 | 76.9 %',
        '1 | Linked child |  | 30 | 23.1 %',
      ]);
      // 102: the root's 7, the child's first indicator (approved 20 + 5, not the stored 999) and the grandchild's 3 through it.
      assert.deepEqual(periodSection(lines, 'People reached', 1, '2024'), [
        '2024-01-01 – 2024-12-31: target 100, aggregated actual 35.00',
        'Level | Project | Countries | Actual | Share',
        '0 | Linked root |  | 7 | 20.0 %',
        '1 | Linked child |  | 25.00 | 71.4 %',
        '2 | Linked grandchild |  | 3 | 8.6 %',
      ]);
      // A percentage: (40 + 50 + 61) / 3 = 50.33, no shares.
      assert.deepEqual(periodSection(lines, 'Share of households', 0, '2024'), [
        '2024-01-01 – 2024-12-31: target 100 %, aggregated actual 50.33 % (mean of 3 projects)',
        'Level | Project | Countries | Actual %',
        '0 | Linked root |  | 40',
        '1 | Linked child |  | 50',
        '2 | Linked grandchild |  | 61',
      ]);
      assert.ok(!lines.some((line) => line.includes('Private child') || line.includes('1130')), 'the private contributor neither shows nor counts');
      assert.ok(!lines.some((line) => line.startsWith('2 | Linked grandchild') && line.endsWith('| 8')), 'the grandchild\u2019s 2025 has nowhere to count');
    });

    test('a contributor the caller may see counts; one it may not see changes nothing it is told', async () => {
      const partner = await preview(10, keys.partner);
      assert.deepEqual(periodSection(partner, 'People reached', 0, '2024'), [
        '2024-01-01 – 2024-12-31: target 100, aggregated actual 1130.00',
        'Level | Project | Countries | Actual | Share',
        '0 | Linked root |  | 100 | 8.8 %',
        '1 | Linked child |  | 30 | 2.7 %',
        '1 | Private child |  | 1000 | 88.5 %',
      ]);
      const outsider = await preview(10, keys.outsider);
      // Every line but the period the private project counts toward is the same for both.
      const differ = partner.filter((line) => !outsider.includes(line));
      assert.deepEqual(differ, ['2024-01-01 – 2024-12-31: target 100, aggregated actual 1130.00', '0 | Linked root |  | 100 | 8.8 %', '1 | Linked child |  | 30 | 2.7 %', '1 | Private child |  | 1000 | 88.5 %']);
    });

    test('unlinked: matched by result title, indicator title, position among equal titles and dates; two indicators of a project never merge', async () => {
      const lines = await preview(20, keys.outsider);
      assert.deepEqual(periodSection(lines, 'People reached', 0, '2024'), [
        '2024-01-01 – 2024-12-31: target 100, aggregated actual 15.00',
        'Level | Project | Countries | Actual | Share',
        '0 | Unlinked root |  | 10 | 66.7 %',
        '1 | Unlinked child |  | 1 | 6.7 %',
        '2 | Unlinked grandchild |  | 4 | 26.7 %',
      ]);
      assert.deepEqual(periodSection(lines, 'People reached', 1, '2024'), [
        '2024-01-01 – 2024-12-31: target 100, aggregated actual 22.00',
        'Level | Project | Countries | Actual | Share',
        '0 | Unlinked root |  | 20 | 90.9 %',
        '1 | Unlinked child |  | 2 | 9.1 %',
      ]);
      // The grandchild reported no value: the mean is of the two that exist.
      assert.deepEqual(periodSection(lines, 'Share of households', 0, '2024'), [
        '2024-01-01 – 2024-12-31: target 100 %, aggregated actual 40.00 % (mean of 2 projects)',
        'Level | Project | Countries | Actual %',
        '0 | Unlinked root |  | 30',
        '1 | Unlinked child |  | 50',
        '2 | Unlinked grandchild |  |',
      ]);
      assert.ok(!lines.some((line) => line.includes('999')), 'an indicator of another result does not count');
    });

    test('the PDF says what the preview says', async () => {
      const text = await pdfText(await download('/py-reports/program/10/program-overview/?format=pdf', keys.outsider));
      for (const expected of ['aggregated actual 130.00', 'aggregated actual 35.00', 'aggregated actual 50.33 % (mean of 3 projects)', 'Linked grandchild']) assert.ok(text.includes(expected), expected);
      assert.ok(!text.includes('Private child'));
    });

    test('the Excel table: the same figures, a percentage\u2019s aggregate a mean (said in its note) with no shares', async () => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.load((await download('/py-reports/program/10/program-overview-table/?format=excel', keys.outsider)) as unknown as ArrayBuffer);
      const sheet = book.getWorksheet('Output')!;
      const rows = Array.from({ length: sheet.rowCount }, (_, index) => Array.from({ length: PROGRAM_HEADERS.length }, (__, column) => sheet.getRow(index + 1).getCell(column + 1).value ?? null));
      const period = '2024-01-01 - 2024-12-31';
      assert.deepEqual(rows, [
        PROGRAM_HEADERS,
        ['Access', 'People reached', period, 0, 'Linked root', null, 100, 130, 100, 76.9],
        ['Access', 'People reached', period, 1, 'Linked child', null, 100, 130, 30, 23.1],
        ['Access', 'People reached', period, 0, 'Linked root', null, 100, 35, 7, 20],
        ['Access', 'People reached', period, 1, 'Linked child', null, 100, 35, 25, 71.4],
        ['Access', 'People reached', period, 2, 'Linked grandchild', null, 100, 35, 3, 8.6],
        ['Access', 'Share of households', period, 0, 'Linked root', null, 100, 50.33, 40, null],
        ['Access', 'Share of households', period, 1, 'Linked child', null, 100, 50.33, 50, null],
        ['Access', 'Share of households', period, 2, 'Linked grandchild', null, 100, 50.33, 61, null],
      ]);
      assert.equal(sheet.getRow(7).getCell(8).note, 'Aggregated actual: 50.33 % (mean of 3 projects)');
      assert.equal(sheet.getRow(2).getCell(8).note, undefined);
    });
  });
}
