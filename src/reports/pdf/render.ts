/**
 * A report document as a PDF, laid out by pdfmake: A4, a footer with the date and page numbers,
 * tables that repeat their header row across pages, bars drawn as vector rectangles. Fonts are
 * embedded (fonts.ts), chosen run by run, so every character of the data is drawn.
 */
import pdfmake, { type Content, type DocumentDefinition } from 'pdfmake';
import { cellText, isBar, isNumeric, type Bar, type Block, type ReportDocument, type TableCell } from '../document.ts';
import type { Grade } from '../numbers.ts';
import { FONTS, fontRuns } from './fonts.ts';

pdfmake.setFonts(FONTS);
// A document is made from data, never from addresses in it: no file or URL is ever read but the fonts.
const FONT_FILES = new Set(Object.values(FONTS).flatMap((files) => Object.values(files)));
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((path) => FONT_FILES.has(path));

const ACCENT = '#1f5f8b';
const BAR_WIDTH = 70;
const RULE = '#c8d3dd';
const MARGIN = 40;
/** A4 is 595.28 points wide. */
const TEXT_WIDTH = 595.28 - 2 * MARGIN;
/** pdfmake adds 4 points either side of a cell. */
const CELL_PADDING = 8;

/** Text with each run in the font that has its glyphs. */
function runs(text: string): string | Content[] {
  const cut = fontRuns(text);
  if (cut.length === 1 && cut[0][1] === 'Roboto') return text;
  return cut.map(([part, font]) => ({ text: part, font }));
}

const GRADE_COLOURS: Record<Grade, string> = { high: '#2e8540', medium: '#e0a526', low: '#c0392b' };

function barCell({ bar, grade, label }: Bar): Content {
  if (bar === null) return { text: '' };
  const filled = (Math.max(0, Math.min(bar, 100)) / 100) * BAR_WIDTH;
  return {
    stack: [
      { canvas: [{ type: 'rect', x: 0, y: 0, w: BAR_WIDTH, h: 6, color: '#e3e8ee' }, { type: 'rect', x: 0, y: 0, w: filled, h: 6, color: grade ? GRADE_COLOURS[grade] : ACCENT }] },
      { text: label, fontSize: 7, color: '#555555', margin: [0, 1, 0, 0] },
    ],
  };
}

function tableCell(cell: TableCell): Content {
  if (isBar(cell)) return barCell(cell);
  return { text: runs(cellText(cell)), alignment: isNumeric(cell) ? 'right' : 'left' };
}

function table(block: Extract<Block, { kind: 'table' }>): Content {
  // Relative widths as points of the text width (pdfmake takes '*' for equal shares only).
  const total = block.widths?.reduce((sum, width) => sum + width, 0) ?? 0;
  const widths = block.widths ? block.widths.map((width) => (width / total) * TEXT_WIDTH - CELL_PADDING) : block.headers.map(() => '*');
  // A column of numbers has its header over the numbers.
  const right = block.headers.map((_, column) => block.rows.length > 0 && block.rows.every((row) => row[column] === null || row[column] === '' || isNumeric(row[column])));
  const header = block.headers.map((text, column) => ({ text, bold: true, fillColor: '#e8eef4', alignment: right[column] ? 'right' : 'left' }));
  return {
    table: { headerRows: 1, dontBreakRows: true, widths, body: [header, ...block.rows.map((row) => row.map(tableCell))] },
    layout: { hLineWidth: () => 0.5, vLineWidth: () => 0, hLineColor: () => RULE, paddingTop: () => 3, paddingBottom: () => 3 },
    fontSize: 8,
    margin: [0, 2, 0, 10],
  };
}

function content(block: Block): Content {
  switch (block.kind) {
    case 'title':
      return { stack: [{ text: runs(block.text), fontSize: 18, bold: true, color: ACCENT }, ...(block.subtitle ? [{ text: runs(block.subtitle), fontSize: 11, color: '#555555' }] : [])], margin: [0, 0, 0, 12] };
    case 'heading':
      return { text: runs(block.text), fontSize: [15, 12, 10][block.level - 1], bold: true, color: block.level === 1 ? ACCENT : '#222222', margin: [0, block.level === 1 ? 14 : 8, 0, 4], headlineLevel: block.level };
    case 'paragraph':
      return { text: runs(block.text), fontSize: 9, color: block.muted ? '#666666' : '#222222', margin: [0, 0, 0, 6] };
    case 'facts':
      return {
        table: { widths: [110, '*'], body: block.rows.map(([label, value]) => [{ text: label, bold: true, color: '#555555' }, { text: runs(value) }]) },
        layout: 'noBorders',
        fontSize: 9,
        margin: [0, 0, 0, 8],
      };
    case 'table':
      return table(block);
    case 'list':
      return { ul: block.items.map((item) => ({ text: runs(item) })), fontSize: 9, margin: [0, 0, 0, 6] };
  }
}

export async function pdfBytes(document: ReportDocument): Promise<Buffer> {
  const definition: DocumentDefinition = {
    info: { title: document.title, creator: 'rsr-api', producer: 'rsr-api' },
    pageSize: 'A4',
    pageMargins: [MARGIN, MARGIN, MARGIN, 50],
    defaultStyle: { font: 'Roboto', fontSize: 9, lineHeight: 1.15 },
    content: document.blocks.map(content),
    // A heading never ends a page: it moves to the next with what it introduces.
    pageBreakBefore: (node, queries) => Boolean(node.headlineLevel) && queries.getFollowingNodesOnPage().length === 0,
    footer: (page, pages) => ({
      columns: [{ text: `rsr-api report ${document.today}`, color: '#777777' }, { text: `Page ${page} of ${pages}`, alignment: 'right', color: '#777777' }],
      fontSize: 7,
      margin: [40, 20, 40, 0],
    }),
  };
  return pdfmake.createPdf(definition).getBuffer();
}
