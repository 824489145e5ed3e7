/**
 * A report document as an HTML page (`show-html=1`): the PDF's blocks in the same order, with
 * bars as CSS widths, styles inline in the page (it loads nothing else).
 */
import escapeHtml from 'escape-html';
import { cellText, isBar, isNumeric, type Block, type ReportDocument, type TableCell } from '../document.ts';

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { color: #1f5f8b; margin-bottom: 0; } h2 { color: #1f5f8b; margin-top: 2rem; } .subtitle { color: #555; margin-top: .2rem; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1.2rem; font-size: 13px; }
th { background: #e8eef4; text-align: left; } th, td { padding: .3rem .5rem; border-bottom: 1px solid #c8d3dd; vertical-align: top; }
.wide { overflow-x: auto; } .wide table { min-width: 36rem; } td { overflow-wrap: break-word; }
td.number { text-align: right; font-variant-numeric: tabular-nums; } .muted { color: #666; }
.facts th { background: none; color: #555; width: 11rem; } .facts th, .facts td { border: 0; }
.bar { width: 6rem; height: .45rem; background: #e3e8ee; } .bar span { display: block; height: 100%; }
.high { background: #2e8540; } .medium { background: #e0a526; } .low { background: #c0392b; } .share { background: #1f5f8b; } .bar-label { font-size: 11px; color: #555; }
footer { color: #777; font-size: 12px; margin-top: 2rem; }`;

const text = (value: string) => escapeHtml(value);

function cell(value: TableCell): string {
  if (!isBar(value)) return `<td${isNumeric(value) ? ' class="number"' : ''}>${text(cellText(value))}</td>`;
  if (value.bar === null) return '<td></td>';
  const width = Math.max(0, Math.min(value.bar, 100));
  return `<td><div class="bar"><span class="${value.grade ?? 'share'}" style="width:${width}%"></span></div><div class="bar-label">${text(value.label)}</div></td>`;
}

/** The relative widths the layout gives a table, as in the PDF: tables of one kind line up. */
function columns(widths: readonly number[] | undefined): string {
  if (!widths) return '';
  const total = widths.reduce((sum, width) => sum + width, 0);
  return `<colgroup>${widths.map((width) => `<col style="width:${((width / total) * 100).toFixed(1)}%">`).join('')}</colgroup>`;
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
      // On a narrow screen a table scrolls sideways rather than break its numbers.
      return `<div class="wide"><table>${columns(item.widths)}<thead><tr>${item.headers.map((header) => `<th scope="col">${text(header)}</th>`).join('')}</tr></thead><tbody>${item.rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('')}</tbody></table></div>`;
    case 'list':
      return `<ul>${item.items.map((entry) => `<li>${text(entry)}</li>`).join('')}</ul>`;
  }
}

export function htmlPage(document: ReportDocument): Buffer {
  return Buffer.from(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text(document.title)}</title><style>${STYLE}</style></head>
<body><main>${document.blocks.map(block).join('\n')}</main><footer>rsr-api report ${text(document.today)}</footer></body></html>
`);
}
