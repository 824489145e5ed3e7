/**
 * The XML and CSV writers on any text (http.md, Formats): whatever a record holds (line breaks
 * of every kind, delimiters, quotes, control characters, lone surrogates, keys that are no XML
 * names), the document a client receives parses with a real parser and gives the values back.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { csvText, renderText, textParts, xmlText } from '../src/http/renderers.ts';
import { hostileText, jsonValue } from './support/arbitraries.ts';

/** The bytes a client receives, read back as UTF-8 (a lone surrogate arrives as U+FFFD). */
const received = (text: string) => Buffer.from(text).toString('utf8');

/** Elements as [path, text] pairs, read by a strict XML 1.0 parser that throws on anything malformed. */
function readXml(document: string): [string, string][] {
  const parser = new SaxesParser();
  const open: string[] = [];
  const leaves: [string, string][] = [];
  let text = '';
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    open.push(tag.name);
    text = '';
  });
  parser.on('text', (chunk) => (text += chunk));
  parser.on('closetag', () => {
    leaves.push([open.join('/'), text]);
    open.pop();
    text = '';
  });
  parser.write(document).close();
  return leaves;
}

/** What a spreadsheet shows of a text cell: formulas are neutralised with a leading quote (OWASP). */
const cell = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text).toWellFormed();

const XML_ALLOWED = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

describe('writers', () => {
  test('CSV: every cell comes back from a real CSV parser, one row per record', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ a: hostileText(), b: hostileText(), n: fc.oneof(fc.integer(), fc.constant(null)) }), { minLength: 1, maxLength: 5 }), async (records) => {
        const rows = parse(received(csvText(records)), { relax_column_count: false }) as string[][];
        assert.deepEqual(rows[0], ['a', 'b', 'n']);
        assert.equal(rows.length, records.length + 1);
        records.forEach((record, index) => {
          assert.deepEqual(rows[index + 1], [cell(record.a), cell(record.b), record.n === null ? '' : String(record.n)]);
        });
      }),
      { numRuns: 300 },
    );
  });

  test('CSV: a lone LF, a lone CR, CRLF, commas and quotes stay inside their cell', async () => {
    const records = [{ text: 'one\ntwo' }, { text: 'one\rtwo' }, { text: 'one\r\ntwo' }, { text: 'a, "quoted" b' }, { text: 'plain' }];
    const body = received(csvText(records));
    assert.equal(body, 'text\r\n"one\ntwo"\r\n"one\rtwo"\r\n"one\r\ntwo"\r\n"a, ""quoted"" b"\r\nplain\r\n');
    assert.deepEqual(parse(body, { columns: true }), records);
  });

  test('CSV: cells a spreadsheet would run as formulas start with a quote; numbers stay numbers', async () => {
    const records = [{ text: '=HYPERLINK("http://x","y")', n: -5 }, { text: '+1', n: 1 }, { text: '-2+3', n: 0 }, { text: '@SUM(A1)', n: 2 }, { text: '\t=1', n: 3 }, { text: 'a=b', n: 4 }];
    const rows = parse(received(csvText(records)), { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((row) => row.text), ["'=HYPERLINK(\"http://x\",\"y\")", "'+1", "'-2+3", "'@SUM(A1)", "'\t=1", 'a=b']);
    assert.deepEqual(rows.map((row) => row.n), ['-5', '1', '0', '2', '3', '4']);
  });

  test('XML: well-formed whatever the values and keys, with every value kept but what XML cannot hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ text: hostileText(), nested: jsonValue() }), { minLength: 1, maxLength: 4 }), async (records) => {
        const leaves = readXml(received(xmlText({ count: records.length, results: records })));
        const texts = leaves.filter(([path]) => path === 'root/results/list-item/text').map(([, text]) => text);
        // XML 1.0 readers receive every line end (CRLF, CR) as LF.
        assert.deepEqual(texts, records.map((record) => record.text.toWellFormed().replace(XML_ALLOWED, '\uFFFD').replace(/\r\n?/g, '\n')));
      }),
      { numRuns: 300 },
    );
  });

  test('a long list written a part at a time (a streamed answer) is the same bytes as written at once', async () => {
    const record = fc.record({ id: fc.integer(), text: hostileText(), nested: jsonValue() }, { requiredKeys: ['id'] });
    await fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom('xml' as const, 'csv' as const), (records, size, format) => {
        const body = { count: records.length, next: 'http://x/?a=1&b=<2>', previous: null, results: records };
        const { head, part, tail } = textParts(format, body, 'results');
        let text = head;
        for (let start = 0; start < records.length; start += size) text += part(start, Math.min(records.length, start + size));
        assert.equal(text + tail, renderText(format, body, { listKey: 'results', filename: 'x' }));
      }),
      { numRuns: 300 },
    );
  });

  test('XML: keys that are no element names are encoded, never read as markup', async () => {
    const body = received(xmlText({ options: { '<x>': 'y', '#text': 1, '?pi': 2, '@_attr': 3, '1st': 4, '': 5, 'plain-key': 6 } }));
    assert.equal(
      body,
      '<?xml version="1.0" encoding="utf-8"?><root><options><_x003C_x_x003E_>y</_x003C_x_x003E_><_x0023_text>1</_x0023_text><_x003F_pi>2</_x003F_pi>'
        + '<_x0040__attr>3</_x0040__attr><_x0031_st>4</_x0031_st><_>5</_><plain-key>6</plain-key></options></root>',
    );
    assert.deepEqual(readXml(body).map(([path]) => path.split('/').at(-1)), ['_x003C_x_x003E_', '_x0023_text', '_x003F_pi', '_x0040__attr', '_x0031_st', '_', 'plain-key', 'options', 'root']);
  });
});
