/**
 * Project-report-word (spec/reports.md) as a .docx written by the `docx` library: A4, one sans
 * family (Arial, which every word processor has or substitutes metrically) at sizes set in the
 * document's styles (body, title, three heading levels), sections as Heading 1, results as
 * Heading 2 and indicators as Heading 3, each heading kept with what follows it. Under every
 * indicator comes its table of periods or the line "No period in range."; tables have a shaded
 * header row repeated across pages and right-aligned numbers. The footer says where the report
 * comes from, when it was made, and "Page X of Y".
 */
import {
  AlignmentType, BorderStyle, Document, Footer, HeadingLevel, LineRuleType, Packer, PageNumber, Paragraph, ShadingType, Tab, Table, TableCell, TableRow,
  TabStopType, TextRun, WidthType,
} from 'docx';
import type { ProjectResults } from '../project-results.ts';
import type { UpdatesModel } from '../project-updates.ts';
import { centsText, percentText as percent, periodText as period } from '../numbers.ts';
import type { BudgetLine, IndicatorGrade, Partner } from '../project-summary.ts';

export interface ProjectReportModel {
  results: ProjectResults;
  partners: Partner[];
  budget: { lines: BudgetLine[]; totals: [string, bigint][] };
  grades: IndicatorGrade[];
  updates: UpdatesModel;
  today: string;
}

/** The one font family of the document. */
export const WORD_FONT = 'Arial';
const ACCENT = '1F5F8B';
const MUTED = '555555';
const RULE = 'C8D3DD';
/** A4 in twentieths of a point, with margins of 2 cm: the text is 9638 twips wide. */
const PAGE = { width: 11906, height: 16838, margin: 1134 };
const TEXT_WIDTH = PAGE.width - 2 * PAGE.margin;

/** Sizes in half-points: body 10 pt, tables 9 pt, headings 16, 13 and 11 pt, the title 22 pt. */
const SIZE = { body: 20, table: 18, footer: 16, title: 44, heading1: 32, heading2: 26, heading3: 22 };

const heading = (size: number, colour: string, before: number) => ({
  run: { font: WORD_FONT, size, bold: true, color: colour },
  paragraph: { spacing: { before, after: 100 }, keepNext: true, keepLines: true },
});

const STYLES = {
  default: {
    document: { run: { font: WORD_FONT, size: SIZE.body, color: '222222' }, paragraph: { spacing: { after: 100, line: 264, lineRule: LineRuleType.AUTO } } },
    title: { run: { font: WORD_FONT, size: SIZE.title, bold: true, color: ACCENT }, paragraph: { spacing: { after: 60 } } },
    heading1: heading(SIZE.heading1, ACCENT, 360),
    heading2: heading(SIZE.heading2, ACCENT, 280),
    heading3: heading(SIZE.heading3, '222222', 200),
  },
  paragraphStyles: [
    { id: 'Subtitle', name: 'Subtitle', basedOn: 'Normal', next: 'Normal', run: { size: 26, color: MUTED }, paragraph: { spacing: { after: 160 } } },
    { id: 'Muted', name: 'Muted', basedOn: 'Normal', next: 'Normal', run: { italics: true, color: MUTED } },
    { id: 'TableText', name: 'Table Text', basedOn: 'Normal', run: { size: SIZE.table }, paragraph: { spacing: { before: 0, after: 0, line: 240, lineRule: LineRuleType.AUTO } } },
    { id: 'UpdateTitle', name: 'Update Title', basedOn: 'Normal', next: 'Normal', run: { bold: true }, paragraph: { spacing: { before: 160, after: 40 }, keepNext: true } },
    { id: 'Footer', name: 'footer', basedOn: 'Normal', run: { size: SIZE.footer, color: '777777' }, paragraph: { spacing: { after: 0 } } },
  ],
};

type HeadingValue = (typeof HeadingLevel)[keyof typeof HeadingLevel];
const heading1 = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_1 });
const headingAt = (text: string, level: HeadingValue) => new Paragraph({ text, heading: level });
const muted = (text: string) => new Paragraph({ text, style: 'Muted' });

type Align = 'left' | 'right';
const BORDER = { style: BorderStyle.SINGLE, size: 4, color: RULE };
const NO_BORDER = { style: BorderStyle.NONE, size: 0, color: 'FFFFFF' };

function cell(text: string, align: Align, options: { bold?: boolean; header?: boolean; width: number }): TableCell {
  return new TableCell({
    width: { size: options.width, type: WidthType.DXA },
    shading: options.header ? { type: ShadingType.CLEAR, fill: 'E8EEF4', color: 'auto' } : undefined,
    children: [new Paragraph({ style: 'TableText', alignment: align === 'right' ? AlignmentType.RIGHT : AlignmentType.LEFT, children: [new TextRun({ text, bold: options.bold })] })],
  });
}

/**
 * A table across the text width: columns in the relative `widths` given, a shaded header row
 * that repeats on every page, rows that do not break across pages, numbers right-aligned.
 */
function table(columns: readonly { title: string; width: number; align?: Align }[], rows: readonly (readonly string[])[], boldRows: readonly (readonly string[])[] = []): Table {
  const total = columns.reduce((sum, column) => sum + column.width, 0);
  const widths = columns.map((column) => Math.floor((column.width / total) * TEXT_WIDTH));
  const row = (texts: readonly string[], bold: boolean) =>
    new TableRow({ cantSplit: true, children: texts.map((text, index) => cell(text, columns[index].align ?? 'left', { bold, width: widths[index] })) });
  return new Table({
    width: { size: TEXT_WIDTH, type: WidthType.DXA },
    columnWidths: widths,
    margins: { top: 50, bottom: 50, left: 80, right: 80 },
    borders: { top: BORDER, bottom: BORDER, left: NO_BORDER, right: NO_BORDER, insideHorizontal: BORDER, insideVertical: NO_BORDER },
    rows: [
      new TableRow({ tableHeader: true, cantSplit: true, children: columns.map((column, index) => cell(column.title, column.align ?? 'left', { bold: true, header: true, width: widths[index] })) }),
      ...rows.map((texts) => row(texts, false)),
      ...boldRows.map((texts) => row(texts, true)),
    ],
  });
}

/** A little space after a table, before the next heading or paragraph. */
const gap = () => new Paragraph({ spacing: { after: 120 }, children: [] });

const PERIOD_COLUMNS = [
  { title: 'Period', width: 40 },
  { title: 'Target', width: 20, align: 'right' as const },
  { title: 'Actual', width: 20, align: 'right' as const },
  { title: 'Progress', width: 20, align: 'right' as const },
];

export async function projectReportDocument(model: ProjectReportModel): Promise<Buffer> {
  const project = model.results.project;
  const dates = `Planned: ${period(project.date_start_planned, project.date_end_planned)}. Actual: ${period(project.date_start_actual, project.date_end_actual)}.`;
  const children: (Paragraph | Table)[] = [
    new Paragraph({ text: project.title, heading: HeadingLevel.TITLE }),
    ...(project.subtitle ? [new Paragraph({ text: project.subtitle, style: 'Subtitle' })] : []),
    new Paragraph(dates),
    heading1('Project partners'),
    ...(model.partners.length
      ? [table([{ title: 'Organisation', width: 60 }, { title: 'Roles', width: 40 }], model.partners.map((partner) => [partner.name, partner.roles.join(', ')])), gap()]
      : [muted('No partners.')]),
    heading1('Project budget'),
    ...(model.budget.lines.length
      ? [
        table(
          [{ title: 'Label', width: 34 }, { title: 'Period start', width: 16 }, { title: 'Period end', width: 16 }, { title: 'Amount', width: 20, align: 'right' }, { title: 'Currency', width: 14 }],
          model.budget.lines.map((line) => [line.label, line.start ?? '', line.end ?? '', centsText(line.cents, true), line.currency]),
          model.budget.totals.map(([currency, cents]) => ['Total', '', '', centsText(cents, true), currency]),
        ),
        gap(),
      ]
      : [muted('No budget items.')]),
    heading1('Summary of results'),
    new Paragraph('Progress: high 85–100 %, medium 50–84 %, low 0–49 %.'),
    ...model.grades.map((line) => new Paragraph(`${line.title}: ${line.progress === null ? 'no target' : `${percent(line.progress)} (${line.grade})`}`)),
    heading1('Results and indicators'),
  ];
  if (model.results.results.length === 0) children.push(muted('This project has no results.'));
  for (const result of model.results.results) {
    children.push(headingAt(`${result.type}: ${result.title}`, HeadingLevel.HEADING_2));
    if (result.indicators.length === 0) children.push(muted('No indicators.'));
    for (const indicator of result.indicators) {
      // Every indicator has something under it: its periods, or a line that says there are none.
      children.push(headingAt(indicator.title || 'Untitled indicator', HeadingLevel.HEADING_3));
      if (indicator.periods.length) {
        children.push(table(PERIOD_COLUMNS, indicator.periods.map((line) => [period(line.start, line.end), line.target, line.actual, percent(line.progress)])), gap());
      } else children.push(muted('No period in range.'));
    }
  }
  children.push(heading1('Project updates'));
  if (model.updates.updates.length === 0) children.push(muted('No updates in range.'));
  for (const update of model.updates.updates) {
    children.push(new Paragraph({ style: 'UpdateTitle', children: [new TextRun(update.title), new TextRun({ text: `  ${update.eventDate ?? ''}`, bold: false, color: MUTED })] }), new Paragraph(update.text));
  }
  const footer = new Footer({
    children: [
      new Paragraph({
        style: 'Footer',
        tabStops: [{ type: TabStopType.RIGHT, position: TEXT_WIDTH }],
        children: [new TextRun(`rsr-api report ${model.today}`), new TextRun({ children: [new Tab(), 'Page ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES] })],
      }),
    ],
  });
  return Packer.toBuffer(new Document({
    creator: 'rsr-api',
    title: project.title,
    styles: STYLES,
    sections: [{ properties: { page: { size: { width: PAGE.width, height: PAGE.height }, margin: { top: PAGE.margin, bottom: PAGE.margin, left: PAGE.margin, right: PAGE.margin } } }, footers: { default: footer }, children }],
  }));
}
