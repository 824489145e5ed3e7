/**
 * program-overview (spec/reports.md): the root project's results, each period in range with the
 * actual aggregated over the root and every contributing project below it (children and
 * grandchildren the caller may see), and what each contributed. A contributor's period counts
 * toward the root's period of the indicator with the same title and the same start and end.
 */
import type { Row } from '../resources/define.ts';
import { centsText, sumCents } from './numbers.ts';
import { projectsResults, type IndicatorLine, type PeriodLine } from './project-results.ts';
import { countryNames, groupBy, type ReportContext } from './source.ts';

/** Levels below the root whose projects contribute (spec: two). */
const DEPTH = 2;

export interface Contribution {
  level: number;
  projectId: number;
  title: string;
  countries: string[];
  actual: string;
  /** Share of the aggregated actual, one decimal; null where the aggregate is zero or empty. */
  share: number | null;
}

export interface ProgramPeriod {
  start: string | null;
  end: string | null;
  target: string;
  aggregated: string;
  contributions: Contribution[];
}

export interface ProgramOverview {
  program: { id: number; title: string };
  results: { title: string; type: string; indicators: { title: string; periods: ProgramPeriod[] }[] }[];
  today: string;
}

interface Member {
  project: Row;
  level: number;
}

/** The root and the visible projects below it, level by level, each level in id order. */
async function members(root: Row, context: ReportContext): Promise<Member[]> {
  const found: Member[] = [{ project: root, level: 0 }];
  let parents = [root.id];
  for (let level = 1; level <= DEPTH && parents.length; level += 1) {
    const children = await context.lookup.byColumn('project', 'parent', parents);
    const seen = await context.lookup.visible('project', children.map((child) => child.id));
    const kept = children.filter((child) => seen.has(child.id)).sort((a, b) => a.id - b.id);
    found.push(...kept.map((project) => ({ project, level })));
    parents = kept.map((project) => project.id);
  }
  return found;
}

const numeric = (text: string) => text.trim() !== '' && Number.isFinite(Number(text));
const periodKey = (indicator: IndicatorLine, period: PeriodLine) => `${indicator.title.trim()}|${period.start}|${period.end}`;

export async function programOverview(program: Row, context: ReportContext): Promise<ProgramOverview> {
  const [root] = await context.lookup.byColumn('project', 'id', [program.id]);
  const team = await members(root, context);
  const [models, locations] = await Promise.all([
    projectsResults(team.map((member) => member.project), context),
    context.lookup.byColumn('project_location', 'project', team.map((member) => member.project.id)),
  ]);
  const locationsOf = groupBy(locations, 'project');
  const countries = (id: number) => countryNames(locationsOf.get(id) ?? []);
  // Each member's actual per (indicator title, period dates).
  const actuals = team.map((member, index) => {
    const byKey = new Map<string, string>();
    for (const result of models[index].results) for (const indicator of result.indicators) for (const period of indicator.periods) byKey.set(periodKey(indicator, period), period.actual);
    return byKey;
  });

  const programPeriod = (indicator: IndicatorLine, period: PeriodLine): ProgramPeriod => {
    const key = periodKey(indicator, period);
    const found = team.flatMap((member, index) => (actuals[index].has(key) ? [{ member, actual: actuals[index].get(key)! }] : []));
    const numbers = found.map(({ actual }) => actual).filter(numeric);
    const total = sumCents(numbers);
    const aggregated = numbers.length ? centsText(total) : '';
    return {
      start: period.start,
      end: period.end,
      target: period.target,
      aggregated,
      contributions: found.map(({ member, actual }) => ({
        level: member.level,
        projectId: member.project.id,
        title: member.project.title,
        countries: countries(member.project.id),
        actual,
        share: numeric(actual) && total !== 0n ? Math.round((Number(sumCents([actual])) / Number(total)) * 1000) / 10 : null,
      })),
    };
  };

  return {
    program: { id: program.id, title: program.title || root.title },
    results: models[0].results.map((result) => ({
      title: result.title,
      type: result.type,
      indicators: result.indicators.map((indicator) => ({ title: indicator.title, periods: indicator.periods.map((period) => programPeriod(indicator, period)) })),
    })),
    today: context.today,
  };
}
