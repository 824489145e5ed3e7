/**
 * results-framework (spec/reports.md) laid out: the title block, then per result and indicator
 * its periods in range with progress bars, comments on request, approved update texts for
 * qualitative indicators and each period's disaggregation targets.
 */
import { NO_BAR, progressBar, type Block, type ReportDocument, type TableCell } from '../document.ts';
import { periodText } from '../numbers.ts';
import type { ProjectHeader } from '../project-header.ts';
import type { DisaggregationValue, IndicatorLine, PeriodLine, ProjectResults } from '../project-results.ts';
import type { ReportContext } from '../source.ts';

export function titleBlocks(header: ProjectHeader, context: Pick<ReportContext, 'range'>): Block[] {
  const { project } = header;
  const blocks: Block[] = [
    { kind: 'title', text: project.title, subtitle: project.subtitle || undefined },
    {
      kind: 'facts',
      rows: [
        ['Project', `#${project.id}`],
        ['Planned', periodText(project.date_start_planned, project.date_end_planned)],
        ['Actual', periodText(project.date_start_actual, project.date_end_actual)],
        ['Periods shown', periodText(context.range.start, context.range.end)],
      ],
    },
  ];
  if (header.partners.length) {
    blocks.push({ kind: 'heading', text: 'Partners', level: 2 }, { kind: 'table', headers: ['Organisation', 'Roles'], rows: header.partners.map((partner) => [partner.name, partner.roles.join(', ')]) });
  }
  if (header.locations.length) {
    blocks.push({ kind: 'heading', text: 'Locations', level: 2 }, { kind: 'table', headers: ['Location', 'Country'], rows: header.locations.map((place) => [place.name || place.country, place.country]) });
  }
  return blocks;
}

function periodRows(period: PeriodLine, disaggregations: readonly DisaggregationValue[], comments: boolean): TableCell[][] {
  const row: TableCell[] = [periodText(period.start, period.end), period.target, period.actual, progressBar(period.progress)];
  if (comments) row.push(period.targetComment, period.actualComment);
  const breakdown = disaggregations
    .filter((value) => period.targets.has(value.id))
    .map((value) => [`  ${value.dimension}: ${value.value}`, period.targets.get(value.id) ?? '', '', NO_BAR, ...(comments ? ['', ''] : [])]);
  return [row, ...breakdown];
}

function indicatorBlocks(indicator: IndicatorLine, model: ProjectResults, comments: boolean): Block[] {
  const value = indicator.baselineValue?.trim() ? indicator.baselineValue : null;
  const baseline = `${value ?? 'none'}${indicator.baselineYear === null ? '' : ` (${indicator.baselineYear})`}`;
  const blocks: Block[] = [{ kind: 'heading', text: indicator.title || 'Untitled indicator', level: 3 }];
  if (indicator.description) blocks.push({ kind: 'paragraph', text: indicator.description });
  blocks.push({ kind: 'paragraph', text: `${indicator.quantitative ? `Measure: ${indicator.measure}. ` : 'Qualitative. '}Baseline: ${baseline}.`, muted: true });
  if (indicator.periods.length === 0) return [...blocks, { kind: 'paragraph', text: 'No periods in the range shown.', muted: true }];
  if (!indicator.quantitative) {
    for (const period of indicator.periods) {
      blocks.push({ kind: 'paragraph', text: periodText(period.start, period.end) });
      blocks.push(period.texts.length ? { kind: 'list', items: period.texts } : { kind: 'paragraph', text: 'No approved updates.', muted: true });
    }
    return blocks;
  }
  const headers = ['Period', 'Target', 'Actual', 'Progress', ...(comments ? ['Target comment', 'Actual comment'] : [])];
  const rows = indicator.periods.flatMap((period) => periodRows(period, model.disaggregations, comments));
  // Every indicator's periods in columns of the same widths, from all of their content: the tables line up down the report.
  return [...blocks, { kind: 'table', headers, rows, family: 'periods' }];
}

export function resultsFrameworkDocument(header: ProjectHeader, model: ProjectResults, context: ReportContext): ReportDocument {
  const blocks = titleBlocks(header, context);
  if (model.results.length === 0) blocks.push({ kind: 'paragraph', text: 'This project has no results.', muted: true });
  for (const result of model.results) {
    blocks.push({ kind: 'heading', text: result.title || 'Untitled result', level: 1 }, { kind: 'paragraph', text: result.description ? `${result.type}. ${result.description}` : result.type, muted: true });
    for (const indicator of result.indicators) blocks.push(...indicatorBlocks(indicator, model, context.comments));
  }
  return { title: `Results and indicators: ${header.project.title}`, today: context.today, blocks };
}
