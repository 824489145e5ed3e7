/**
 * program-overview laid out: per result, indicator and period, the aggregate and what each
 * contributor reported; a unit's share of the sum as a bar, a percentage's values side by side
 * under their mean (a share of a mean means nothing).
 */
import { shareBar, type Block, type ReportDocument } from '../document.ts';
import { periodText } from '../numbers.ts';
import { aggregateText, type ProgramOverview, type ProgramPeriod } from '../program-overview.ts';

function periodBlocks(period: ProgramPeriod, percentage: boolean): Block[] {
  const unit = percentage ? ' %' : '';
  return [
    { kind: 'heading', text: `${periodText(period.start, period.end)}: target ${period.target ? `${period.target}${unit}` : 'not set'}, aggregated actual ${aggregateText(period)}`, level: 3 },
    percentage
      ? { kind: 'table', family: 'percentages', headers: ['Level', 'Project', 'Countries', 'Actual %'], rows: period.contributions.map((line) => [line.level, line.title, line.countries.join(', '), line.actual]) }
      : { kind: 'table', family: 'contributions', headers: ['Level', 'Project', 'Countries', 'Actual', 'Share'], rows: period.contributions.map((line) => [line.level, line.title, line.countries.join(', '), line.actual, shareBar(line.share)]) },
  ];
}

export function programOverviewDocument(model: ProgramOverview): ReportDocument {
  const blocks: Block[] = [{ kind: 'title', text: model.program.title, subtitle: `Program #${model.program.id}: results of the lead project and every project contributing to it` }];
  if (model.results.length === 0) blocks.push({ kind: 'paragraph', text: 'The lead project has no results.', muted: true });
  for (const result of model.results) {
    blocks.push({ kind: 'heading', text: result.title || 'Untitled result', level: 1 }, { kind: 'paragraph', text: result.type, muted: true });
    for (const indicator of result.indicators) {
      blocks.push({ kind: 'heading', text: indicator.title || 'Untitled indicator', level: 2 });
      if (indicator.percentage) blocks.push({ kind: 'paragraph', text: 'A percentage: the aggregate is the mean of the values reported, not their sum.', muted: true });
      if (indicator.periods.length === 0) blocks.push({ kind: 'paragraph', text: 'No periods in the range shown.', muted: true });
      for (const period of indicator.periods) blocks.push(...periodBlocks(period, indicator.percentage));
    }
  }
  return { title: `Program overview: ${model.program.title}`, today: model.today, blocks };
}
