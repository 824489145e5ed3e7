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

/** An amount of money, exact: written with separators in PDF and HTML, a number in Excel. */
export interface Money {
  cents: bigint;
}

export type TableCell = string | number | null | Bar | Money;

export type Block =
  | { kind: 'title'; text: string; subtitle?: string }
  | { kind: 'heading'; text: string; level: 1 | 2 | 3 }
  | { kind: 'paragraph'; text: string; muted?: boolean }
  /** Label and value pairs, as on a title page. */
  | { kind: 'facts'; rows: readonly (readonly [label: string, value: string])[] }
  /** Numbers are right-aligned; `widths` in relative units (a bar column wants room). */
  | { kind: 'table'; headers: readonly string[]; rows: readonly (readonly TableCell[])[]; widths?: readonly number[]; sheet?: string }
  | { kind: 'list'; items: readonly string[] };

export interface ReportDocument {
  /** The browser tab's and the PDF's title. */
  title: string;
  /** Today, `YYYY-MM-DD`: the footer says when the report was made. */
  today: string;
  blocks: Block[];
}

export const isBar = (cell: TableCell): cell is Bar => cell !== null && typeof cell === 'object' && 'bar' in cell;
export const isMoney = (cell: TableCell): cell is Money => cell !== null && typeof cell === 'object' && 'cents' in cell;

/** A cell as text: bars by their label, money with separators, numbers as they are. */
export function cellText(cell: TableCell): string {
  if (cell === null) return '';
  if (isBar(cell)) return cell.label;
  if (isMoney(cell)) return centsText(cell.cents, true);
  return String(cell);
}

/** Whether a cell reads as a number (right-aligned). */
export const isNumeric = (cell: TableCell): boolean => typeof cell === 'number' || isMoney(cell) || (typeof cell === 'string' && /^-?[\d,]+(\.\d+)?( %)?$/.test(cell));

/** A progress bar for a percentage (null: no target, no bar). */
export const progressBar = (percent: number | null): Bar => ({ bar: percent, grade: grade(percent), label: percentText(percent) });

/** A contributor's share of a whole: a bar without a grade (a small share is no failure). */
export const shareBar = (percent: number | null): Bar => ({ bar: percent, grade: null, label: percentText(percent) });

/** No bar, in a column of bars. */
export const NO_BAR: Bar = { bar: null, grade: null, label: '' };
