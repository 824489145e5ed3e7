/** program-overview laid out: per result, indicator and period, the aggregate and each contributor's share as a bar. */
import { shareBar, type Block, type ReportDocument } from '../document.ts';
import { periodText } from '../numbers.ts';
import type { ProgramOverview } from '../program-overview.ts';

export function programOverviewDocument(model: ProgramOverview): ReportDocument {
  const blocks: Block[] = [{ kind: 'title', text: model.program.title, subtitle: `Program #${model.program.id}: results of the lead project and every project contributing to it` }];
  if (model.results.length === 0) blocks.push({ kind: 'paragraph', text: 'The lead project has no results.', muted: true });
  for (const result of model.results) {
    blocks.push({ kind: 'heading', text: result.title || 'Untitled result', level: 1 }, { kind: 'paragraph', text: result.type, muted: true });
    for (const indicator of result.indicators) {
      blocks.push({ kind: 'heading', text: indicator.title || 'Untitled indicator', level: 2 });
      if (indicator.periods.length === 0) blocks.push({ kind: 'paragraph', text: 'No periods in the range shown.', muted: true });
      for (const period of indicator.periods) {
        blocks.push({ kind: 'heading', text: `${periodText(period.start, period.end)}: target ${period.target || 'not set'}, aggregated actual ${period.aggregated || 'none'}`, level: 3 });
        blocks.push({
          kind: 'table',
          headers: ['Level', 'Project', 'Countries', 'Actual', 'Share'],
          widths: [0.8, 4, 2.5, 1.4, 2],
          rows: period.contributions.map((line) => [line.level, line.title, line.countries.join(', '), line.actual, shareBar(line.share)]),
        });
      }
    }
  }
  return { title: `Program overview: ${model.program.title}`, today: model.today, blocks };
}
