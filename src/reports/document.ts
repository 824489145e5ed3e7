/**
 * A report laid out as a list of blocks: what a PDF page (pdf/render.ts), its HTML preview
 * (html/render.ts) and a one-sheet Excel overview (excel/blocks.ts) all draw from, so that the
 * three show the same values in the same order. Each report's layout turns its model into these.
 */
import { centsText, grade, percentText, type Grade } from './numbers.ts';

/**
 * A progress or contribution bar: `bar` percent of the full width (capped at 100 when drawn),
 * with its label. A progress bar is coloured by its grade; a share of a whole has none.
 */
export interface Bar {
  bar: number | null;
  grade: Grade | null;
  label: string;
}

/**
 * An amount of money, exact: written with separators in PDF and HTML (`12,500.00 EUR` where it
 * names its currency, on one line), a number in Excel.
 */
export interface Money {
  cents: bigint;
  currency?: string;
}

/**
 * Amounts in several currencies (a project budgeted in EUR and USD): one line each in PDF and
 * HTML; in Excel one number where there is one amount, else the amounts as text.
 */
export interface Amounts {
  amounts: readonly Money[];
}

export type TableCell = string | number | null | Bar | Money | Amounts;

/** What a table says of one of its columns (all optional). */
export interface TableColumn {
  /**
   * Only in the spreadsheet, not in the PDF or its HTML preview: a currency column, say, beside
   * amounts that the printed table writes with their currency.
   */
  sheetOnly?: boolean;
  /** By default a column of numbers is right-aligned and any other left-aligned (a column of years reads better left). */
  align?: 'left' | 'right';
}

export type Block =
  | { kind: 'title'; text: string; subtitle?: string }
  | { kind: 'heading'; text: string; level: 1 | 2 | 3 }
  | { kind: 'paragraph'; text: string; muted?: boolean }
  /** Label and value pairs, as on a title page. */
  | { kind: 'facts'; rows: readonly (readonly [label: string, value: string])[] }
  /**
   * Numbers are right-aligned. Column widths come from the content: each column at least as wide
   * as its longest word, the rest shared in proportion to its text (a bar column takes the bar's
   * width). `columns` says more of single columns; `family` names tables that line up (the same widths, from all of their
   * content: a period table per indicator, say); `empty` is what a table without rows says
   * instead (default `None.`); `sheet` puts the table on a sheet of its own in Excel.
   */
  | {
    kind: 'table';
    headers: readonly string[];
    rows: readonly (readonly TableCell[])[];
    columns?: readonly (TableColumn | undefined)[];
    family?: string;
    empty?: string;
    sheet?: string;
  }
  | { kind: 'list'; items: readonly string[] };

export interface ReportDocument {
  /** The browser tab's and the PDF's title. */
  title: string;
  /** Today, `YYYY-MM-DD`: the footer says when the report was made. */
  today: string;
  blocks: Block[];
}

export type TableBlock = Extract<Block, { kind: 'table' }>;

export const isBar = (cell: TableCell): cell is Bar => cell !== null && typeof cell === 'object' && 'bar' in cell;
export const isMoney = (cell: TableCell): cell is Money => cell !== null && typeof cell === 'object' && 'cents' in cell;
export const isAmounts = (cell: TableCell): cell is Amounts => cell !== null && typeof cell === 'object' && 'amounts' in cell;

/** `12,500.00 EUR`, or without a currency `12,500.00`. */
export const moneyText = (money: Money): string => `${centsText(money.cents, true)}${money.currency ? ` ${money.currency}` : ''}`;

/** A cell as lines of text: bars by their label, money with separators and currency (an amount a line), numbers as they are. */
export function cellLines(cell: TableCell): string[] {
  if (isAmounts(cell)) return cell.amounts.map(moneyText);
  return cellText(cell).split('\n');
}

/** A cell as text: bars by their label, money with separators (and currency), several amounts a line each, numbers as they are. */
export function cellText(cell: TableCell): string {
  if (cell === null) return '';
  if (isBar(cell)) return cell.label;
  if (isMoney(cell)) return moneyText(cell);
  if (isAmounts(cell)) return cell.amounts.map(moneyText).join('\n');
  return String(cell);
}

/** Whether a cell reads as a number (right-aligned). */
export const isNumeric = (cell: TableCell): boolean =>
  typeof cell === 'number' || isMoney(cell) || isAmounts(cell) || (typeof cell === 'string' && /^-?[\d,]+(\.\d+)?( %)?$/.test(cell));

/** What a table without rows says instead: one line. */
export const emptyText = (table: TableBlock): string => table.empty ?? 'None.';

/** Whether a table's column is right-aligned: as its options say, else where it holds numbers (and nothing else). */
export function rightAligned(table: TableBlock, column: number): boolean {
  const align = table.columns?.[column]?.align;
  if (align) return align === 'right';
  const filled = table.rows.map((row) => row[column] ?? null).filter((cell) => cell !== null && cell !== '');
  return filled.length > 0 && filled.every(isNumeric);
}

/**
 * A table as printed (PDF and HTML): without the columns only a spreadsheet shows, and with
 * each column's alignment, right where it holds numbers (or its options say so).
 */
export function printedTable(table: TableBlock): { headers: string[]; rows: TableCell[][]; right: boolean[]; columns: number[] } {
  const columns = table.headers.map((_, column) => column).filter((column) => !table.columns?.[column]?.sheetOnly);
  const right = columns.map((column) => rightAligned(table, column));
  return { headers: columns.map((column) => table.headers[column]), rows: table.rows.map((row) => columns.map((column) => row[column] ?? null)), right, columns };
}

/** A progress bar for a percentage (null: no target, no bar). */
export const progressBar = (percent: number | null): Bar => ({ bar: percent, grade: grade(percent), label: percentText(percent) });

/** A contributor's share of a whole: a bar without a grade (a small share is no failure). */
export const shareBar = (percent: number | null): Bar => ({ bar: percent, grade: null, label: percentText(percent) });

/** No bar, in a column of bars. */
export const NO_BAR: Bar = { bar: null, grade: null, label: '' };
