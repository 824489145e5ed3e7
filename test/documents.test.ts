/**
 * Reports read back as a reader sees them (the PDFs through pdf.js with the position of each
 * line, the workbooks through exceljs, the Word file's XML through JSZip and an XML parser): no
 * word of the data broken across two lines of a PDF, amounts right-aligned with their currency,
 * "None." for an empty section, a table or a line under every indicator of the Word report, its
 * fonts, styles and page numbers, and spreadsheets that fit their content and print well.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import JSZip from 'jszip';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { generateDemo } from '../demo/generate.ts';
import { EXPORT_HEADERS } from '../src/reports/excel/organisation-export.ts';
import type { DatasetSource } from '../src/store/import.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { startServer, testStores, useServer, type TestServer } from './support/server.ts';

/** A line of text as drawn on a PDF page: its text, left and right edges, baseline and font size. */
interface PdfLine {
  page: number;
  text: string;
  x: number;
  right: number;
  y: number;
  size: number;
}

/** The lines of a PDF, in the order they are drawn (pdfmake draws a table cell by cell, each cell's lines top to bottom). */
async function pdfLines(bytes: Buffer): Promise<PdfLine[]> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  const lines: PdfLine[] = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const content = await (await document.getPage(number)).getTextContent();
    let line: PdfLine | null = null;
    for (const item of content.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      const [, , , size, x, y] = item.transform as number[];
      // The next piece of the same line: same baseline, starting where the last one ended (or a space further).
      if (line && line.page === number && Math.abs(line.y - y) < 0.5 && x >= line.right - 1 && x <= line.right + 0.35 * size) {
        line.text += (x > line.right + 0.5 && !line.text.endsWith(' ') ? ' ' : '') + item.str;
        line.right = x + item.width;
      } else {
        if (line) lines.push(line);
        line = { page: number, text: item.str, x, right: x + item.width, y, size };
      }
    }
    if (line) lines.push(line);
  }
  await document.destroy();
  return lines.map((line) => ({ ...line, text: line.text.trim() }));
}

/** Each page's width and height, in points. */
async function pdfPageSizes(bytes: Buffer): Promise<[number, number][]> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  const sizes: [number, number][] = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const [, , width, height] = (await document.getPage(number)).view;
    sizes.push([Math.round(width), Math.round(height)]);
  }
  await document.destroy();
  return sizes;
}

/** Punctuation around a word, as in `(Plurinational`, `Afghanistan,`: not part of it. */
const bare = (token: string) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/** The words of some texts: what a reader reads as one, so never to be broken across lines. */
function wordsOf(texts: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const text of texts) for (const token of text.split(/\s+/)) if (/\p{L}/u.test(token) && bare(token).length > 1) words.add(bare(token));
  return words;
}

/**
 * Words of `words` that a PDF breaks across two lines: where a line of a table cell (or a
 * paragraph) goes on under the last one, at the same left or right edge and one line lower,
 * and the last word of the first line and the first of the next make one word of the data.
 */
function splitWords(lines: readonly PdfLine[], words: ReadonlySet<string>): string[] {
  const split: string[] = [];
  for (let index = 1; index < lines.length; index += 1) {
    const [above, below] = [lines[index - 1], lines[index]];
    const drop = above.y - below.y;
    const sameEdge = Math.abs(above.x - below.x) < 1 || Math.abs(above.right - below.right) < 1;
    if (above.page !== below.page || !sameEdge || drop <= 0 || drop > 1.6 * above.size) continue;
    const end = above.text.split(/\s+/).at(-1)!;
    const start = below.text.split(/\s+/)[0];
    // A break inside a word: the first line ends in a letter, digit or hyphen, the next starts with a letter or digit.
    if (!/[\p{L}\p{N}\p{M}-]$/u.test(end) || !/^[\p{L}\p{N}]/u.test(start)) continue;
    const joined = bare(end + start);
    if (words.has(joined)) split.push(`${end}|${start}`);
  }
  return split;
}

async function workbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  return book;
}

/** The print and view settings of a sheet that lists rows under a header at `headerRow`. */
function assertPrintsWell(sheet: ExcelJS.Worksheet, headerRow: number, where: string): void {
  assert.equal(sheet.pageSetup.orientation, 'landscape', where);
  assert.equal(sheet.pageSetup.fitToPage, true, where);
  assert.equal(sheet.pageSetup.fitToWidth, 1, where);
  assert.equal(sheet.pageSetup.fitToHeight, 0, where);
  assert.equal(sheet.pageSetup.printTitlesRow, `${headerRow}:${headerRow}`, where);
  assert.deepEqual(sheet.views.map((view) => [view.state, (view as ExcelJS.WorksheetViewFrozen).ySplit]), [['frozen', headerRow]], where);
  const header = sheet.getRow(headerRow);
  header.eachCell((cell, column) => {
    assert.equal(cell.font?.bold, true, `${where} header ${column} bold`);
    assert.equal(cell.alignment?.wrapText, true, `${where} header ${column} wrapped`);
    // Wide enough for its title, up to the cap (a longer title wraps).
    const width = sheet.getColumn(column).width ?? 0;
    assert.ok(width >= Math.min(String(cell.value).length + 1, 50), `${where}: column ${column} (${String(cell.value)}) is ${width} wide`);
    assert.ok(width <= 52, `${where}: column ${column} is ${width} wide`);
  });
}

/** The body of a .docx in order: paragraphs (style and text) and tables. */
type DocxPart = { kind: 'paragraph'; style: string; text: string } | { kind: 'table'; rows: string[][] };

const orderedXml = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', trimValues: false });
type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };
const tag = (node: XmlNode) => Object.keys(node).find((key) => key !== ':@')!;
const children = (node: XmlNode): XmlNode[] => {
  const value = node[tag(node)];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
};

function textOf(node: XmlNode): string {
  const name = tag(node);
  if (name === '#text') return String(node['#text']);
  if (name === 'w:instrText') return '';
  return children(node).map(textOf).join('');
}

function find(node: XmlNode, name: string): XmlNode[] {
  return children(node).flatMap((child) => (tag(child) === name ? [child] : find(child, name)));
}

async function docxPart(bytes: Buffer, part: string): Promise<XmlNode[]> {
  const xml = await (await JSZip.loadAsync(bytes)).file(part)!.async('string');
  return orderedXml.parse(xml) as XmlNode[];
}

async function docxBody(bytes: Buffer): Promise<DocxPart[]> {
  const document = (await docxPart(bytes, 'word/document.xml')).find((node) => tag(node) === 'w:document')!;
  const body = children(document).find((node) => tag(node) === 'w:body')!;
  return children(body).flatMap((node): DocxPart[] => {
    if (tag(node) === 'w:p') {
      const style = find(node, 'w:pStyle')[0]?.[':@']?.['w:val'] ?? '';
      return [{ kind: 'paragraph', style, text: textOf(node) }];
    }
    if (tag(node) === 'w:tbl') return [{ kind: 'table', rows: find(node, 'w:tr').map((row) => find(row, 'w:tc').map(textOf)) }];
    return [];
  });
}

/**
 * Organisation 1 a partner of projects with long words (in titles and country names), a
 * hyphenated place, budgets in several currencies and one without any; organisation 2 a partner
 * of none; organisation 3 of a project whose words are too long for a portrait page. Every
 * project has a location: the data-quality list "No location" is empty.
 */
function documentsDataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  const published = { is_public: true, publishing_status: 'published' };
  return [
    records('organisation', [
      { id: 1, name: 'Partner', long_name: 'Partner Organisation' }, { id: 2, name: 'Empty', long_name: 'An organisation without projects' },
      { id: 3, name: 'Lexicon', long_name: 'Long words' },
    ]),
    records('project', [
      { id: 1, title: 'Internationalisation of telecommunications infrastructure', subtitle: 'Interoperability for decentralised municipalities', ...published, date_start_planned: '2020-01-01', date_end_planned: '2021-12-31', date_start_actual: '2020-02-01', date_end_actual: '2021-12-01' },
      { id: 2, title: 'Water for Guinea-Bissau and the Democratic Republic', subtitle: 'Wells', ...published, date_start_planned: '2024-01-01', date_end_planned: '2025-12-31', date_start_actual: '2024-01-15' },
      { id: 3, title: 'Вода для Кисуму', subtitle: 'Pumps & pipes', ...published },
      { id: 4, title: 'Pneumonoultramicroscopicsilicovolcanoconiosis prevention', subtitle: 'Supercalifragilisticexpialidocious Honorificabilitudinitatibus', ...published },
    ]),
    records('project_location', [
      { id: 1, project: 1, name: 'La Paz', country: 'BO' }, { id: 2, project: 1, name: 'Palikir', country: 'FM' },
      { id: 3, project: 2, name: 'Bissau', country: 'GW' }, { id: 4, project: 2, name: 'Kinshasa', country: 'CD' }, { id: 5, project: 3, name: 'Vientiane', country: 'LA' },
      { id: 6, project: 4, name: 'Kingstown', country: 'VC' },
    ]),
    records('user', [{ id: 1, email: 'reporter@example.org', first_name: 'Rita', last_name: 'Reporter' }]),
    records('employment', [{ id: 1, user: 1, organisation: 1, group: 'Users', is_approved: true }]),
    records('partnership', [1, 2, 3, 4].map((project) => ({ id: project, project, organisation: project === 4 ? 3 : 1, iati_organisation_role: 101 }))),
    records('budget_item', [
      { id: 1, project: 1, other_extra: 'Cables', amount: 12500, currency: 'EUR' },
      { id: 2, project: 1, other_extra: 'Training', amount: 1000, currency: 'USD' },
      { id: 3, project: 1, other_extra: 'Towers', amount: 2345678.9, currency: 'SEK' },
      { id: 4, project: 2, other_extra: 'Wells', amount: 500.5, currency: 'EUR' },
    ]),
    records('result', [{ id: 1, project: 1, title: 'Connected municipalities', type: '1' }, { id: 2, project: 1, title: 'Better services', type: '2' }]),
    records('indicator', [
      { id: 1, result: 1, title: 'Towers built', measure: '1' },
      { id: 2, result: 1, title: 'No periods', measure: '1' },
      { id: 3, result: 2, title: 'Satisfied citizens', measure: '2' },
    ]),
    records('indicator_period', [
      { id: 1, indicator: 1, period_start: '2020-01-01', period_end: '2020-12-31', target_value: '10', actual_value: '4' },
      { id: 2, indicator: 1, period_start: '2021-01-01', period_end: '2021-12-31', target_value: '10', actual_value: '9' },
      { id: 3, indicator: 3, period_start: '2021-01-01', period_end: '2021-12-31', target_value: '80', actual_value: '70' },
    ]),
    records('project_update', [{ id: 1, project: 1, user: 1, title: 'First tower', text: 'Built in La Paz.', event_date: '2020-06-01', created_at: '2020-06-02T10:00:00Z' }]),
  ];
}

const countryNames = (JSON.parse(readFileSync(new URL('../codelists/country.json', import.meta.url), 'utf8')) as { name: string }[]).map((country) => country.name);

for (const store of testStores()) {
  describe(`documents of the demo data read well (${store.name})`, () => {
    let server: TestServer;
    let key = '';
    /** Every word of the demo's projects, organisations, results and indicators, and of the country names. */
    let words = new Set<string>();
    before(async () => {
      const demo = generateDemo({ scale: 1, seed: 1 });
      const texts: string[] = [...countryNames, 'planned', 'active', 'completed'];
      for (const { entity, records } of demo) {
        if (!['project', 'organisation', 'result', 'indicator', 'project_location'].includes(entity)) continue;
        for (const record of records) for (const field of ['title', 'subtitle', 'name', 'long_name']) if (typeof record[field] === 'string') texts.push(record[field] as string);
      }
      words = wordsOf(texts);
      server = await startServer(store, demo.map(({ entity, records }) => ({ file: entity, label: entity, records })));
      await createUser(server.engine, { email: 'admin@example.org', firstName: 'Ada', lastName: 'Admin', admin: true });
      key = await createToken(server.engine, 'admin@example.org');
    });
    after(() => server?.close());
    const download = async (path: string) => {
      const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` } });
      assert.equal(answer.status, 200, path);
      return Buffer.from(await answer.arrayBuffer());
    };

    test('no PDF report breaks a word of the data across two lines', async () => {
      const split: string[] = [];
      const paths = [
        ...[1, 2, 3, 4, 5].flatMap((organisation) => [`/py-reports/organisation/${organisation}/org-projects-overview/?format=pdf`, `/py-reports/organisation/${organisation}/data-quality-overview/?format=pdf`]),
        ...[24, 202, 512].map((project) => `/py-reports/project/${project}/results-indicators-overview/?format=pdf&comment=true`),
      ];
      let lines = 0;
      for (const path of paths) {
        const read = await pdfLines(await download(path));
        lines += read.length;
        split.push(...splitWords(read, words).map((word) => `${path}: ${word}`));
      }
      const counts = new Map<string, number>();
      for (const word of split) counts.set(word.split(': ')[1], (counts.get(word.split(': ')[1]) ?? 0) + 1);
      console.log(`${split.length} words split across lines in ${paths.length} PDFs (${lines} lines): ${[...counts].map(([word, count]) => `${word} ×${count}`).join(', ')}`);
      assert.ok(lines > 2000, `${lines} lines read`);
      assert.deepEqual(split, []);
    });

    test('the Word reports of demo projects: under every indicator its periods or "No period in range."', async () => {
      let tables = 0;
      let none = 0;
      for (const project of [24, 202, 512]) {
        for (const range of ['', '&period_start=2025-01-01&period_end=2025-12-31']) {
          const body = await docxBody(await download(`/py-reports/project/${project}/kickstart-report/?format=word${range}`));
          const indicators = body.flatMap((part, index) => (part.kind === 'paragraph' && part.style === 'Heading3' ? [index] : []));
          assert.ok(indicators.length >= 5, `project ${project}: ${indicators.length} indicators`);
          for (const index of indicators) {
            const next = body[index + 1];
            assert.ok(next.kind === 'table' || next.text === 'No period in range.', `project ${project}${range}: ${JSON.stringify(body[index])} is followed by ${JSON.stringify(next)}`);
            if (next.kind === 'table') tables += 1;
            else none += 1;
          }
        }
      }
      assert.ok(tables > 10 && none > 0, `${tables} tables, ${none} without periods`);
    });

    test('the organisation export of the largest demo organisation: columns fit their titles, the header frozen and printed on each page', async () => {
      const sheet = (await workbook(await download('/py-reports/organisation/1/results-indicators-table/?format=excel'))).getWorksheet('ProjectList')!;
      assertPrintsWell(sheet, 3, 'organisation export');
      assert.ok(sheet.rowCount > 1000, String(sheet.rowCount));
    });
  });
}

for (const store of testStores()) {
  describe(`documents read well (${store.name})`, () => {
    const server = useServer(store, documentsDataset);
    let key = '';
    before(async () => {
      key = await createToken(server.engine, 'reporter@example.org');
    });
    const download = async (path: string) => {
      const answer = await fetch(`${server.base}${path}`, { headers: { authorization: `Token ${key}` } });
      assert.equal(answer.status, 200, path);
      return Buffer.from(await answer.arrayBuffer());
    };
    const words = wordsOf([...countryNames, ...documentsDataset().flatMap((source) => (source.records as object[]).flatMap((record) => Object.values(record).filter((value): value is string => typeof value === 'string')))]);

    test('the projects overview PDF: words whole, each amount right-aligned with its currency on a line of its own, no currency column', async () => {
      const lines = await pdfLines(await download('/py-reports/organisation/1/org-projects-overview/?format=pdf'));
      assert.deepEqual(splitWords(lines, words), []);
      const overview = lines.slice(lines.findIndex((line) => line.text === 'Published project overview'));
      const budget = overview.find((line) => line.text === 'Budget')!;
      const amounts = ['12,500.00 EUR', '2,345,678.90 SEK', '1,000.00 USD', '500.50 EUR', '0.00 EUR'].map((text) => {
        const found = overview.find((line) => line.text === text);
        assert.ok(found, `${text} on a line of its own in ${JSON.stringify(overview.map((line) => line.text))}`);
        return found;
      });
      // One right edge: the header's and every amount's.
      for (const amount of amounts) assert.ok(Math.abs(amount.right - budget.right) < 0.5, `${amount.text} ends at ${amount.right}, Budget at ${budget.right}`);
      // A project's amounts one under the other, in currency order.
      assert.ok(amounts[0].y > amounts[1].y && amounts[1].y > amounts[2].y && amounts[0].y - amounts[2].y < 3 * amounts[0].size, 'EUR, SEK, USD one line each');
      assert.ok(!overview.some((line) => /^(Currency|EUR, SEK, USD)$/.test(line.text)), 'no currency column');
      // The country names, whole, where they begin their cell.
      for (const name of ['Bolivia (Plurinational State Of), Micronesia (Federated States Of)', 'Guinea-Bissau']) {
        const [first] = name.split(' ');
        assert.ok(overview.some((line) => line.text.startsWith(first)), name);
      }
    });

    test('a table whose words do not fit across a portrait page gets a landscape page, with the heading before it; its words stay whole', async () => {
      const bytes = await download('/py-reports/organisation/3/org-projects-overview/?format=pdf');
      const [sizes, lines] = [await pdfPageSizes(bytes), await pdfLines(bytes)];
      assert.deepEqual(splitWords(lines, words), []);
      const heading = lines.find((line) => line.text === 'Published project overview')!;
      const word = lines.find((line) => line.text.startsWith('Pneumonoultramicroscopicsilicovolcanoconiosis'))!;
      assert.ok(heading && word, JSON.stringify(lines.map((line) => line.text)));
      assert.deepEqual([sizes[0], sizes[heading.page - 1], sizes[word.page - 1]], [[595, 842], [842, 595], [842, 595]]);
      assert.equal(heading.page, word.page);
      // Everything before the table stays on portrait pages.
      assert.ok(sizes.slice(0, heading.page - 1).every(([width]) => width === 595), JSON.stringify(sizes));
    });

    test('an organisation without projects: each empty section says "None." in one line, in the PDF and its preview', async () => {
      const lines = (await pdfLines(await download('/py-reports/organisation/2/org-projects-overview/?format=pdf'))).map((line) => line.text);
      const sections = ['Published project funding', 'Published projects by start year', 'Published project statistics by country', 'Published project overview'];
      for (const section of sections) assert.equal(lines[lines.indexOf(section) + 1], 'None.', section);
      for (const header of ['Currency', 'Planned start year', 'Country', 'Countries']) assert.ok(!lines.includes(header), header);
      assert.deepEqual(lines.slice(lines.indexOf('Projects by status') + 1, lines.indexOf('Projects by status') + 5), ['Status', 'Projects', 'Planned (not started)', '0']);
      const html = (await download('/py-reports/organisation/2/org-projects-overview/?format=pdf&show-html=1')).toString();
      assert.equal(html.match(/<p class="muted">None\.<\/p>/g)?.length, 4);
      const full = (await download('/py-reports/organisation/1/org-projects-overview/?format=pdf&show-html=1')).toString();
      assert.ok(full.includes('<td class="number"><div class="whole">12,500.00 EUR</div><div class="whole">2,345,678.90 SEK</div><div class="whole">1,000.00 USD</div></td>'), full);
      // The overview's amounts name their currency: no Currency column after them; no fixed column widths.
      assert.ok(full.includes('<th scope="col" class="number">Budget</th><th scope="col">Planned start</th>') && !full.includes('<colgroup>'), 'the preview sizes its columns from their content and has no Currency column');
    });

    test('data quality: an empty list is one line "None." in the PDF and on its sheet; the lists line up', async () => {
      const lines = await pdfLines(await download('/py-reports/organisation/1/data-quality-overview/?format=pdf'));
      const texts = lines.map((line) => line.text);
      assert.equal(texts[texts.indexOf('No location (0)') + 1], 'None.');
      // One set of column widths for the lists: each list's Title and Country columns at the same place.
      for (const header of ['Title', 'Country']) {
        const places = new Set(lines.filter((line) => line.text === header).map((line) => line.x.toFixed(1)));
        assert.equal(lines.filter((line) => line.text === header).length, 3, header);
        assert.equal(places.size, 1, `${header} at ${[...places].join(', ')}`);
      }
      const book = await workbook(await download('/py-reports/organisation/1/data-quality-overview/?format=excel'));
      const empty = book.getWorksheet('No location')!;
      assert.deepEqual([empty.getCell('A1').value, empty.getCell('A2').value, empty.rowCount], ['No location (0)', 'None.', 2]);
      assertPrintsWell(book.getWorksheet('Summary')!, 3, 'Summary');
      assertPrintsWell(book.getWorksheet('No recent updates')!, 2, 'No recent updates');
      assert.equal(empty.pageSetup.orientation, 'landscape');
    });

    test('the projects overview workbook: amounts as numbers beside a currency column, several as one text; columns fit; prints landscape', async () => {
      const book = await workbook(await download('/py-reports/organisation/1/org-projects-overview/?format=excel'));
      const sheet = book.getWorksheet('Overview')!;
      const header = [...Array(sheet.rowCount).keys()].map((index) => sheet.getRow(index + 1)).find((row) => row.getCell(1).value === 'Countries')!;
      const next = (offset: number) => sheet.getRow(header.number + offset);
      assert.deepEqual([next(1).getCell(6).value, next(1).getCell(7).value], ['EUR 12,500.00; SEK 2,345,678.90; USD 1,000.00', 'EUR, SEK, USD']);
      const single = [1, 2, 3].map(next).find((row) => row.getCell(6).value === 500.5)!;
      assert.deepEqual([single.getCell(6).numFmt, single.getCell(7).value], ['#,##0.00', 'EUR']);
      assert.equal(header.getCell(1).font?.bold, true);
      assert.equal(header.getCell(1).alignment?.wrapText, true);
      // Columns as wide as their longest text and a little more, up to the cap; a longer text wraps, its row taller.
      assert.deepEqual([1, 2, 4, 5].map((column) => sheet.getColumn(column).width), [50, 50, 8, 'completed'.length + 2]);
      assert.equal(next(1).getCell(1).alignment?.wrapText, true);
      assert.ok(next(1).height >= 30, String(next(1).height));
      assert.deepEqual([sheet.pageSetup.orientation, sheet.pageSetup.fitToWidth, sheet.pageSetup.fitToHeight], ['landscape', 1, 0]);
    });

    test('the Word report: a table or "No period in range." under every indicator, fonts and heading sizes in the styles, page numbers in the footer', async () => {
      for (const range of ['', '&period_start=2030-01-01']) {
        const body = await docxBody(await download(`/py-reports/project/1/kickstart-report/?format=word${range}`));
        const indicators = body.flatMap((part, index) => (part.kind === 'paragraph' && part.style === 'Heading3' ? [index] : []));
        assert.deepEqual(indicators.map((index) => (body[index] as { text: string }).text), ['Towers built', 'No periods', 'Satisfied citizens'], range);
        for (const index of indicators) {
          const next = body[index + 1];
          assert.ok(next.kind === 'table' || next.text === 'No period in range.', `${JSON.stringify(body[index])} is followed by ${JSON.stringify(next)}`);
        }
        const under = indicators.map((index) => body[index + 1]);
        if (range === '') {
          assert.deepEqual(under.map((part) => part.kind), ['table', 'paragraph', 'table']);
          assert.deepEqual((under[0] as { rows: string[][] }).rows, [['Period', 'Target', 'Actual', 'Progress'], ['2020-01-01 – 2020-12-31', '10', '4', '40.0 %'], ['2021-01-01 – 2021-12-31', '10', '9', '90.0 %']]);
        } else assert.deepEqual(under.map((part) => part.kind === 'paragraph' && part.text), ['No period in range.', 'No period in range.', 'No period in range.']);
        // Results are headings one level up, sections one more.
        assert.deepEqual(body.filter((part) => part.kind === 'paragraph' && part.style === 'Heading2').map((part) => (part as { text: string }).text), ['Output: Connected municipalities', 'Outcome: Better services']);
        assert.deepEqual(body.filter((part) => part.kind === 'paragraph' && part.style === 'Heading1').map((part) => (part as { text: string }).text), ['Project partners', 'Project budget', 'Summary of results', 'Results and indicators', 'Project updates']);
      }
      const bytes = await download('/py-reports/project/1/kickstart-report/?format=word');
      const styles = (await docxPart(bytes, 'word/styles.xml')).find((node) => tag(node) === 'w:styles')!;
      const attributes = (node: XmlNode | undefined) => node?.[':@'] ?? {};
      const defaults = find(styles, 'w:docDefaults')[0];
      assert.deepEqual(attributes(find(defaults, 'w:rFonts')[0]), { 'w:ascii': 'Arial', 'w:cs': 'Arial', 'w:eastAsia': 'Arial', 'w:hAnsi': 'Arial' });
      assert.equal(attributes(find(defaults, 'w:sz')[0])['w:val'], '20');
      const style = (id: string) => find(styles, 'w:style').find((node) => attributes(node)['w:styleId'] === id)!;
      const sizes = ['Title', 'Heading1', 'Heading2', 'Heading3'].map((id) => {
        assert.equal(attributes(find(style(id), 'w:rFonts')[0])['w:ascii'], 'Arial', id);
        return Number(attributes(find(style(id), 'w:sz')[0])['w:val']);
      });
      assert.ok(sizes.every((size, index) => index === 0 || size < sizes[index - 1]) && sizes[3] > 20, `sizes ${sizes.join(', ')}`);
      const footer = (await docxPart(bytes, 'word/footer1.xml')).find((node) => tag(node) === 'w:ftr')!;
      assert.deepEqual(find(footer, 'w:instrText').map((node) => textOf({ '#': children(node) } as XmlNode).trim()), ['PAGE', 'NUMPAGES']);
      assert.ok(textOf(footer).includes('Page  of '), textOf(footer));
    });

    test('spreadsheets fit their columns to their titles, freeze and repeat their header row, print landscape across one page width', async () => {
      const exported = (await workbook(await download('/py-reports/organisation/1/results-indicators-table/?format=excel'))).getWorksheet('ProjectList')!;
      assertPrintsWell(exported, 3, 'organisation export');
      // Streamed: sized from the header and the first projects (here all of them), a long title at the cap.
      assert.equal(exported.getColumn(1).width, 50);
      assert.equal(exported.getColumn(EXPORT_HEADERS.indexOf('Indicator title') + 1).width, 'Satisfied citizens'.length + 2);
      const results = await workbook(await download('/py-reports/project/1/results-indicators-table/?format=excel'));
      for (const sheet of results.worksheets) assertPrintsWell(sheet, 1, `results table ${sheet.name}`);
      const updates = (await workbook(await download('/py-reports/project/1/updates-table/?format=excel'))).getWorksheet('UpdatesTable')!;
      assertPrintsWell(updates, 5, 'updates table');
      assert.equal(updates.headerFooter.oddFooter, '&L&8rsr-api report&R&8Page &P of &N');
    });
  });
}
