/**
 * A report document as a PDF, laid out by pdfmake: A4, a footer with the date and page numbers,
 * tables that repeat their header row across pages, bars drawn as vector rectangles. Fonts are
 * embedded (fonts.ts), chosen run by run, so every character of the data is drawn.
 *
 * Table columns are as wide as their content asks (measure.ts): each at least as wide as its
 * longest word, so that a line breaks only at a space, never inside a word; the rest of the width
 * shared in proportion to the text. A table whose words do not fit across a portrait page gets a
 * landscape page (then a smaller font); only where even that is not enough may the widest column
 * break its words.
 */
import pdfmake, { type Content, type DocumentDefinition } from 'pdfmake';
import { cellLines, cellText, emptyText, isAmounts, isBar, isMoney, isNumeric, printedTable, type Bar, type Block, type ReportDocument, type TableBlock, type TableCell } from '../document.ts';
import type { Grade } from '../numbers.ts';
import { FONTS, fontRuns } from './fonts.ts';
import { SLACK, textExtent } from './measure.ts';

pdfmake.setFonts(FONTS);
// A document is made from data, never from addresses in it: no file or URL is ever read but the fonts.
const FONT_FILES = new Set(Object.values(FONTS).flatMap((files) => Object.values(files)));
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((path) => FONT_FILES.has(path));

const ACCENT = '#1f5f8b';
const BAR_WIDTH = 70;
const RULE = '#c8d3dd';
const MARGIN = 40;
type Orientation = 'portrait' | 'landscape';
/** The width text may take on an A4 page (595.28 by 841.89 points). */
const TEXT_WIDTH: Record<Orientation, number> = { portrait: 595.28 - 2 * MARGIN, landscape: 841.89 - 2 * MARGIN };
/** pdfmake adds 4 points either side of a cell. */
const CELL_PADDING = 8;
/** A table's font sizes, in the order they are tried. */
const TABLE_FONT_SIZES = [8, 7] as const;
/** A column that may break its words (the last resort) is at least this wide. */
const NARROWEST = 36;

/** A hyphen or slash inside a word: a line may not break there (a reader takes `Guinea-Bissau` as one word). */
const JOINED = /[\p{L}\p{N}][-‐/][\p{L}\p{N}]/u;

/**
 * Text with each run in the font that has its glyphs, and each word with a hyphen or slash in
 * it kept whole (pdfmake would break after the hyphen): lines break at spaces only.
 */
function runs(text: string): string | Content[] {
  const cut = fontRuns(text);
  if (!JOINED.test(text)) return cut.length === 1 && cut[0][1] === 'Roboto' ? text : cut.map(([part, font]) => ({ text: part, font }));
  return text.split(/(\s+)/).filter(Boolean).flatMap((piece) => {
    const noWrap = JOINED.test(piece) || undefined;
    return fontRuns(piece).map(([part, font]) => ({ text: part, ...(font === 'Roboto' ? {} : { font }), ...(noWrap ? { noWrap } : {}) }));
  });
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

function tableCell(cell: TableCell, align: 'left' | 'right' | undefined): Content {
  if (isBar(cell)) return barCell(cell);
  const alignment = align ?? (isNumeric(cell) ? 'right' : 'left');
  // Amounts stay whole, each with its currency: one line each.
  if (isAmounts(cell)) return { stack: cellLines(cell).map((line) => ({ text: line, noWrap: true })), alignment };
  if (isMoney(cell)) return { text: cellText(cell), noWrap: true, alignment };
  const text = cellText(cell);
  // A line indented with spaces (a period's disaggregations under it) keeps its indent.
  return { text: runs(text), alignment, ...(/^\s/.test(text) ? { preserveLeadingSpaces: true } : {}) };
}

/** A column's content at font size 1 (`fixed`: points that do not scale, a bar's width). */
interface Extent {
  min: number;
  max: number;
  fixed: number;
  /** Numbers (right-aligned) or bars: such a column is not widened beyond its content. */
  fits: boolean;
}

/** How a table (or a family of tables) is laid out: page, font size and each column's width. */
interface TablePlan {
  orientation: Orientation;
  fontSize: number;
  widths: number[];
}

/** Points at a font size, with room for what measuring leaves out (kerning). */
const points = (width: number, fontSize: number) => (width > 0 ? width * fontSize * (1 + SLACK.share) + SLACK.points : 0);

function extents(tables: readonly TableBlock[]): Extent[] {
  const printed = tables.map(printedTable);
  return printed[0].headers.map((_, column) => {
    const extent: Extent = { min: 0, max: 0, fixed: 0, fits: printed.every((table) => table.right[column]) };
    const widen = ({ min, max }: { min: number; max: number }) => {
      extent.min = Math.max(extent.min, min);
      extent.max = Math.max(extent.max, max);
    };
    for (const table of printed) {
      widen(textExtent([table.headers[column]], true));
      for (const row of table.rows) {
        const cell = row[column];
        if (isBar(cell)) {
          // The bar, and its label at 7 points under it.
          extent.fixed = Math.max(extent.fixed, BAR_WIDTH, points(textExtent([cell.label]).max, 7));
          extent.fits = true;
        } else widen(textExtent(cellLines(cell), false, isMoney(cell) || isAmounts(cell)));
      }
    }
    return extent;
  });
}

/**
 * Column widths in `available` points: each column its longest word; what is left shared in
 * proportion to how much more each column's text would take. Where every column fits on one
 * line, the text columns (not numbers or bars) share what is left of the page's width, or of half
 * of it for a table that small (a count stays near its label).
 */
function distribute(mins: readonly number[], maxes: readonly number[], fits: readonly boolean[], available: number): number[] {
  const minTotal = mins.reduce((sum, width) => sum + width, 0);
  const maxTotal = maxes.reduce((sum, width) => sum + width, 0);
  if (maxTotal <= available) {
    const padding = CELL_PADDING * maxes.length;
    const target = maxTotal + padding <= (available + padding) / 2 ? (available + padding) / 2 - padding : available;
    const growing = maxes.map((width, column) => (fits[column] ? 0 : width));
    const weights = growing.some((width) => width > 0) ? growing : maxes;
    const total = weights.reduce((sum, width) => sum + width, 0) || 1;
    return maxes.map((width, column) => width + ((target - maxTotal) * weights[column]) / total);
  }
  return mins.map((width, column) => width + ((maxes[column] - width) * (available - minTotal)) / (maxTotal - minTotal));
}

/** How many lines, on average, a row of a table takes with these column widths (an estimate: no word is carried over). */
function meanRowLines(table: TableBlock, widths: readonly number[], fontSize: number): number {
  const { rows } = printedTable(table);
  const lines = (cell: TableCell, width: number) =>
    isBar(cell) ? 2 : cellLines(cell).reduce((sum, line) => sum + Math.max(1, Math.ceil(points(textExtent([line]).max, fontSize) / width)), 0);
  return rows.reduce((sum, row) => sum + Math.max(...row.map((cell, column) => lines(cell, widths[column]))), 0) / Math.max(1, rows.length);
}

/** A long list (rows at least this many) whose rows take many lines in portrait may take a landscape page. */
const LONG_LIST = 10;

/**
 * A table's page, font size and column widths: portrait if its longest words fit across the
 * page at 8 points, else landscape (then 7 points; tables of a family, which come one after the
 * other between headings, try 7 points in portrait before they take landscape pages). A long
 * list whose rows would take many lines in portrait, and far fewer in landscape, is landscape.
 */
function plan(tables: readonly TableBlock[]): TablePlan {
  const columns = extents(tables);
  const at = (fontSize: number) => ({
    mins: columns.map((column) => Math.max(points(column.min, fontSize), column.fixed)),
    maxes: columns.map((column) => Math.max(points(column.max, fontSize), column.fixed)),
  });
  const available = (orientation: Orientation) => TEXT_WIDTH[orientation] - CELL_PADDING * columns.length;
  const fits = columns.map((column) => column.fits);
  const attempt = (orientation: Orientation, fontSize: number): TablePlan | null => {
    const { mins, maxes } = at(fontSize);
    return mins.reduce((sum, width) => sum + width, 0) <= available(orientation) ? { orientation, fontSize, widths: distribute(mins, maxes, fits, available(orientation)) } : null;
  };
  const [large, small] = TABLE_FONT_SIZES;
  const order: [Orientation, number][] = tables.length > 1
    ? [['portrait', large], ['portrait', small], ['landscape', large], ['landscape', small]]
    : [['portrait', large], ['landscape', large], ['landscape', small]];
  for (const [orientation, fontSize] of order) {
    const found = attempt(orientation, fontSize);
    if (!found) continue;
    if (found.orientation === 'portrait' && tables.length === 1 && tables[0].rows.length >= LONG_LIST) {
      const wide = attempt('landscape', fontSize)!;
      const [tall, short] = [meanRowLines(tables[0], found.widths, fontSize), meanRowLines(tables[0], wide.widths, fontSize)];
      if (tall >= 2.5 && short <= 0.65 * tall) return wide;
    }
    return found;
  }
  // The words do not fit even so: the widest column (by its longest word) breaks words, the others keep theirs.
  const { mins } = at(small);
  const widest = mins.indexOf(Math.max(...mins));
  const others = mins.reduce((sum, width, column) => (column === widest ? sum : sum + width), 0);
  const room = available('landscape') - others;
  const widths = room >= NARROWEST ? mins.map((width, column) => (column === widest ? room : width)) : mins.map((width) => (width * available('landscape')) / (others + mins[widest]));
  return { orientation: 'landscape', fontSize: small, widths };
}

function table(block: TableBlock, layout: TablePlan): Content {
  if (block.rows.length === 0) return { text: runs(emptyText(block)), fontSize: 9, color: '#555555', margin: [0, 0, 0, 8] };
  const printed = printedTable(block);
  // A column of numbers (or one said to be) right-aligned; in a mixed column, numbers right and text left.
  const align = printed.columns.map((column, index) => (printed.right[index] ? 'right' : block.columns?.[column]?.align));
  const header = printed.headers.map((text, column) => ({ text: runs(text), bold: true, fillColor: '#e8eef4', alignment: printed.right[column] ? 'right' : 'left' }));
  return {
    table: { headerRows: 1, keepWithHeaderRows: 1, dontBreakRows: true, widths: layout.widths, body: [header, ...printed.rows.map((row) => row.map((cell, column) => tableCell(cell, align[column])))] },
    layout: { hLineWidth: () => 0.5, vLineWidth: () => 0, hLineColor: () => RULE, paddingTop: () => 3, paddingBottom: () => 3 },
    fontSize: layout.fontSize,
    margin: [0, 2, 0, 10],
  };
}

function contentOf(block: Block, plans: ReadonlyMap<TableBlock, TablePlan>): Content {
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
      return table(block, plans.get(block)!);
    case 'list':
      return { ul: block.items.map((item) => ({ text: runs(item) })), fontSize: 9, margin: [0, 0, 0, 6] };
  }
}

/** Each table's layout; the tables of a family (with as many printed columns) share one, from all their content. */
function tablePlans(blocks: readonly Block[]): Map<TableBlock, TablePlan> {
  const groups = new Map<string, TableBlock[]>();
  for (const block of blocks) {
    if (block.kind !== 'table' || block.rows.length === 0) continue;
    const key = block.family === undefined ? groups.size.toString() + '\u0000' : `${block.family}\u0000${printedTable(block).headers.length}`;
    groups.set(key, [...(groups.get(key) ?? []), block]);
  }
  const plans = new Map<TableBlock, TablePlan>();
  for (const tables of groups.values()) {
    const shared = plan(tables);
    for (const item of tables) plans.set(item, shared);
  }
  return plans;
}

/**
 * The page each block is on: a table that needs a landscape page takes it with the headings just
 * before it; the blocks after it go back to portrait. Where that changes, a new page begins.
 */
function orient(blocks: readonly Block[], nodes: Content[], plans: ReadonlyMap<TableBlock, TablePlan>): Orientation {
  const orientation: Orientation[] = blocks.map((block) => (block.kind === 'table' ? plans.get(block)?.orientation ?? 'portrait' : 'portrait'));
  for (let index = blocks.length - 2; index >= 0; index -= 1) if (blocks[index].kind === 'heading') orientation[index] = orientation[index + 1];
  for (let index = 1; index < nodes.length; index += 1) {
    if (orientation[index] !== orientation[index - 1]) nodes[index] = { stack: [nodes[index]], pageBreak: 'before', pageOrientation: orientation[index] };
  }
  return orientation[0] ?? 'portrait';
}

export async function pdfBytes(document: ReportDocument): Promise<Buffer> {
  const plans = tablePlans(document.blocks);
  const content = document.blocks.map((block) => contentOf(block, plans));
  const firstPage = orient(document.blocks, content, plans);
  const definition: DocumentDefinition = {
    info: { title: document.title, creator: 'rsr-api', producer: 'rsr-api' },
    pageSize: 'A4',
    pageOrientation: firstPage,
    pageMargins: [MARGIN, MARGIN, MARGIN, 50],
    defaultStyle: { font: 'Roboto', fontSize: 9, lineHeight: 1.15 },
    content,
    // A heading never ends a page: it moves to the next with what it introduces.
    pageBreakBefore: (node, queries) => Boolean(node.headlineLevel) && queries.getFollowingNodesOnPage().length === 0,
    footer: (page, pages) => ({
      columns: [{ text: `rsr-api report ${document.today}`, color: '#777777' }, { text: `Page ${page} of ${pages}`, alignment: 'right', color: '#777777' }],
      fontSize: 7,
      margin: [MARGIN, 20, MARGIN, 0],
    }),
  };
  return pdfmake.createPdf(definition).getBuffer();
}
