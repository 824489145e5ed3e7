/**
 * A report document as an HTML page (`show-html=1`): the PDF's blocks in the same order, with
 * bars as SVG rectangles, its stylesheet in the page (it loads nothing else) and no style
 * attribute (the page's Content-Security-Policy allows that stylesheet by its hash, no other
 * inline style). Tables are laid out by the browser from their content, as the PDF's are: a word
 * is not broken, a table too wide for the window scrolls sideways.
 */
import escapeHtml from 'escape-html';
import { cellLines, cellText, emptyText, isAmounts, isBar, isMoney, isNumeric, printedTable, type Block, type ReportDocument, type TableBlock, type TableCell } from '../document.ts';

/** The page's stylesheet, in the page: the preview loads nothing else (its hash is in the page's CSP: http/report-routes.ts). */
export const PREVIEW_STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { color: #1f5f8b; margin-bottom: 0; } h2 { color: #1f5f8b; margin-top: 2rem; } .subtitle { color: #555; margin-top: .2rem; }
table { border-collapse: collapse; margin: .4rem 0 1.2rem; font-size: 13px; }
th { background: #e8eef4; text-align: left; } th, td { padding: .3rem .5rem; border-bottom: 1px solid #c8d3dd; vertical-align: top; }
.wide { overflow-x: auto; } .wide table { min-width: 50%; } th.number { text-align: right; }
td.number { text-align: right; font-variant-numeric: tabular-nums; } .muted { color: #666; } .whole { white-space: nowrap; }
.facts th { background: none; color: #555; width: 11rem; } .facts th, .facts td { border: 0; }
.bar { display: block; width: 6rem; height: .45rem; background: #e3e8ee; }
.high { fill: #2e8540; } .medium { fill: #e0a526; } .low { fill: #c0392b; } .share { fill: #1f5f8b; } .bar-label { font-size: 11px; color: #555; }
footer { color: #777; font-size: 12px; margin-top: 2rem; }`;

const text = (value: string) => escapeHtml(value);

/** A word with a hyphen or slash in it: kept on one line, as in the PDF. */
const JOINED = /\S*[\p{L}\p{N}][-‐/][\p{L}\p{N}]\S*/gu;

const wrapped = (value: string) => text(value).replace(JOINED, (word) => `<span class="whole">${word}</span>`);

/** A cell, right-aligned where its column is (`right`) or, in a mixed column, where it is a number. */
function cell(value: TableCell, align: 'left' | 'right' | undefined): string {
  const number = align === 'right' || (align === undefined && isNumeric(value)) ? ' class="number"' : '';
  if (isAmounts(value)) return `<td${number}>${cellLines(value).map((line) => `<div class="whole">${text(line)}</div>`).join('')}</td>`;
  if (isMoney(value)) return `<td${number}><span class="whole">${text(cellText(value))}</span></td>`;
  if (!isBar(value)) return `<td${number}>${wrapped(cellText(value))}</td>`;
  if (value.bar === null) return '<td></td>';
  const width = Math.max(0, Math.min(value.bar, 100));
  // An SVG rectangle's width, not a style attribute: the page's CSP allows no inline style.
  return `<td><svg class="bar" aria-hidden="true"><rect class="${value.grade ?? 'share'}" width="${width}%" height="100%"/></svg><div class="bar-label">${text(value.label)}</div></td>`;
}

/** A table as the PDF prints it (no spreadsheet-only columns); without rows, one line. */
function table(item: TableBlock): string {
  if (item.rows.length === 0) return `<p class="muted">${text(emptyText(item))}</p>`;
  const printed = printedTable(item);
  const head = printed.headers.map((header, column) => `<th scope="col"${printed.right[column] ? ' class="number"' : ''}>${text(header)}</th>`).join('');
  const align = printed.columns.map((column, index) => (printed.right[index] ? 'right' : item.columns?.[column]?.align));
  const body = printed.rows.map((row) => `<tr>${row.map((value, column) => cell(value, align[column])).join('')}</tr>`).join('');
  // On a narrow screen a table scrolls sideways rather than break its words and numbers.
  return `<div class="wide"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function block(item: Block): string {
  switch (item.kind) {
    case 'title':
      return `<h1>${text(item.text)}</h1>${item.subtitle ? `<p class="subtitle">${text(item.subtitle)}</p>` : ''}`;
    case 'heading':
      return `<h${item.level + 1}>${text(item.text)}</h${item.level + 1}>`;
    case 'paragraph':
      return `<p${item.muted ? ' class="muted"' : ''}>${text(item.text)}</p>`;
    case 'facts':
      return `<table class="facts">${item.rows.map(([label, value]) => `<tr><th scope="row">${text(label)}</th><td>${text(value)}</td></tr>`).join('')}</table>`;
    case 'table':
      return table(item);
    case 'list':
      return `<ul>${item.items.map((entry) => `<li>${text(entry)}</li>`).join('')}</ul>`;
  }
}

export function htmlPage(document: ReportDocument): Buffer {
  return Buffer.from(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text(document.title)}</title><style>${PREVIEW_STYLE}</style></head>
<body><main>${document.blocks.map(block).join('\n')}</main><footer>rsr-api report ${text(document.today)}</footer></body></html>
`);
}
