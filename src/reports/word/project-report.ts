/** Project-report-word (spec/reports.md) as a .docx written by the `docx` library. */
import { Document, Footer, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
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

const heading = (text: string, level: (typeof HeadingLevel)[keyof typeof HeadingLevel] = HeadingLevel.HEADING_2) => new Paragraph({ text, heading: level });
const cell = (text: string, bold = false) => new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })] });

function table(headers: readonly string[], rows: readonly (readonly string[])[], boldRows: readonly (readonly string[])[] = []): Table {
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: [
      new TableRow({ tableHeader: true, children: headers.map((header) => cell(header, true)) }),
      ...rows.map((row) => new TableRow({ children: row.map((text) => cell(text)) })),
      ...boldRows.map((row) => new TableRow({ children: row.map((text) => cell(text, true)) })),
    ],
  });
}


export async function projectReportDocument(model: ProjectReportModel): Promise<Buffer> {
  const project = model.results.project;
  const dates = `Planned: ${period(project.date_start_planned, project.date_end_planned)}. Actual: ${period(project.date_start_actual, project.date_end_actual)}.`;
  const children: (Paragraph | Table)[] = [
    heading(project.title, HeadingLevel.TITLE),
    ...(project.subtitle ? [new Paragraph({ children: [new TextRun({ text: project.subtitle, italics: true })] })] : []),
    new Paragraph(dates),
    heading('Project partners'),
    model.partners.length ? table(['Organisation', 'Roles'], model.partners.map((partner) => [partner.name, partner.roles.join(', ')])) : new Paragraph('No partners.'),
    heading('Project budget'),
    model.budget.lines.length
      ? table(
        ['Label', 'Period start', 'Period end', 'Amount', 'Currency'],
        model.budget.lines.map((line) => [line.label, line.start ?? '', line.end ?? '', centsText(line.cents, true), line.currency]),
        model.budget.totals.map(([currency, cents]) => ['Total', '', '', centsText(cents, true), currency]),
      )
      : new Paragraph('No budget items.'),
    heading('Summary of results'),
    new Paragraph('Progress: high 85–100 %, medium 50–84 %, low 0–49 %.'),
    ...model.grades.map((line) => new Paragraph(`${line.title}: ${line.progress === null ? 'no target' : `${percent(line.progress)} (${line.grade})`}`)),
    heading('Results and indicators'),
  ];
  for (const result of model.results.results) {
    children.push(heading(`${result.type}: ${result.title}`, HeadingLevel.HEADING_3));
    for (const indicator of result.indicators) {
      children.push(new Paragraph({ children: [new TextRun({ text: indicator.title, bold: true })] }));
      if (indicator.periods.length) {
        children.push(table(['Period', 'Target', 'Actual', 'Progress'], indicator.periods.map((line) => [period(line.start, line.end), line.target, line.actual, percent(line.progress)])));
      }
    }
  }
  children.push(heading('Project updates'));
  for (const update of model.updates.updates) {
    children.push(new Paragraph({ children: [new TextRun({ text: update.title, bold: true }), new TextRun(`  ${update.eventDate ?? ''}`)] }), new Paragraph(update.text));
  }
  const footer = new Footer({ children: [new Paragraph(`rsr-api report ${model.today}`)] });
  return Packer.toBuffer(new Document({ creator: 'rsr-api', title: project.title, sections: [{ footers: { default: footer }, children }] }));
}
