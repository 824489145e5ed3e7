/**
 * program-overview (spec/reports.md, D16): the root project's results, each period in range with
 * the actual aggregated over the root and every contributing project below it that the caller
 * may see, and what each contributed.
 *
 * A contributor's indicator counts toward the indicator of its parent project that it names in
 * `parent_indicator`, and its period toward the one named in `parent_period`, level by level up
 * to the root. A project whose indicators name no parent at all (a dataset without links) is
 * matched by place instead: result title, indicator title and position among the indicators of
 * the project with those titles, then period dates; so two indicators of one project are never
 * merged because they share a title. Unit indicators add up; percentages are averaged.
 */
import type { Row } from '../resources/define.ts';
import { centsText, toCents } from './numbers.ts';
import { projectsResults, type IndicatorLine, type PeriodLine, type ProjectResults } from './project-results.ts';
import { countryNames, groupBy, type ReportContext } from './source.ts';

export interface Contribution {
  level: number;
  projectId: number;
  title: string;
  countries: string[];
  actual: string;
  /** Share of the aggregated actual, one decimal; null for percentages and where the aggregate is zero or empty. */
  share: number | null;
}

/** How a period's actuals were brought together: added up, or (percentages) averaged over `count` values. */
export type Aggregation = { kind: 'sum' } | { kind: 'mean'; count: number; projects: number };

export interface ProgramPeriod {
  start: string | null;
  end: string | null;
  target: string;
  /** The sum, or for a percentage the mean, of the actuals that exist; empty where none does. */
  aggregated: string;
  aggregation: Aggregation;
  contributions: Contribution[];
}

export interface ProgramIndicator {
  title: string;
  percentage: boolean;
  periods: ProgramPeriod[];
}

export interface ProgramOverview {
  program: { id: number; title: string };
  results: { title: string; type: string; indicators: ProgramIndicator[] }[];
  today: string;
}

interface Member {
  project: Row;
  level: number;
}

/** The root and the projects below it that the caller may see, level by level, each level in id order. */
async function members(root: Row, context: ReportContext): Promise<Member[]> {
  const found: Member[] = [{ project: root, level: 0 }];
  const known = new Set([root.id]);
  let parents = [root.id];
  for (let level = 1; parents.length; level += 1) {
    const children = (await context.lookup.byColumn('project', 'parent', parents)).filter((child) => !known.has(child.id));
    const seen = await context.lookup.visible('project', children.map((child) => child.id));
    const kept = children.filter((child) => seen.has(child.id)).sort((a, b) => a.id - b.id);
    for (const project of kept) known.add(project.id);
    found.push(...kept.map((project) => ({ project, level })));
    parents = kept.map((project) => project.id);
  }
  return found;
}

/** An indicator of a member, with what locates it in its project's framework. */
interface Place {
  member: Member;
  indicator: IndicatorLine;
  /** Result title, indicator title and position among the project's indicators with both titles. */
  key: string;
}

/** Each indicator of a project keyed by its place (never two of one project under one key). */
function places(member: Member, model: ProjectResults): Place[] {
  const seen = new Map<string, number>();
  return model.results.flatMap((result) =>
    result.indicators.map((indicator) => {
      const titles = JSON.stringify([result.title.trim(), indicator.title.trim()]);
      const position = seen.get(titles) ?? 0;
      seen.set(titles, position + 1);
      return { member, indicator, key: `${titles}#${position}` };
    }),
  );
}

/**
 * For every period of a contributor, the root's period it counts toward (null: none in range or
 * none the caller may see). Each period first finds its parent project's period, by link or by
 * place, then follows that one up.
 */
function rootPeriods(team: readonly Member[], models: readonly ProjectResults[]): Map<PeriodLine, PeriodLine | null> {
  const all = team.map((member, index) => places(member, models[index]));
  const placeById = new Map(all.flat().map((place) => [place.indicator.id, place]));
  const byKey = new Map(all.map((found, index) => [team[index].project.id, new Map(found.map((place) => [place.key, place]))]));
  const periodById = new Map(all.flat().flatMap((place) => place.indicator.periods.map((period) => [period.id, { period, place }] as const)));
  const linked = new Set(all.filter((found) => found.some((place) => place.indicator.parentIndicator !== null)).map((found) => found[0].member.project.id));

  const parentIndicator = (place: Place): Place | undefined => {
    const { project } = place.member;
    if (linked.has(project.id)) {
      const parent = placeById.get(place.indicator.parentIndicator ?? NaN);
      return parent && parent.member.project.id === project.parent ? parent : undefined;
    }
    return byKey.get(project.parent)?.get(place.key);
  };
  /** The parent project's period this one counts toward, with its place; none where it has none. */
  const parentPeriod = (place: Place, period: PeriodLine): { place: Place; period: PeriodLine } | undefined => {
    const parent = parentIndicator(place);
    if (!parent) return undefined;
    const byLink = periodById.get(period.parentPeriod ?? NaN);
    if (byLink) return byLink.place === parent ? byLink : undefined;
    const byDates = parent.indicator.periods.find((candidate) => candidate.start === period.start && candidate.end === period.end);
    return byDates && { place: parent, period: byDates };
  };

  // Each step goes one level up (a parent is the member's project.parent), so every walk ends.
  const found = new Map<PeriodLine, PeriodLine | null>();
  const rootOf = (place: Place, period: PeriodLine): PeriodLine | null => {
    if (place.member.level === 0) return period;
    const known = found.get(period);
    if (known !== undefined) return known;
    const parent = parentPeriod(place, period);
    const root = parent ? rootOf(parent.place, parent.period) : null;
    found.set(period, root);
    return root;
  };
  for (const place of all.flat()) for (const period of place.indicator.periods) rootOf(place, period);
  return found;
}

/** `292.00`, `45.50 % (mean of 3 projects)`, or `none`: an aggregate as every format words it. */
export function aggregateText(period: ProgramPeriod): string {
  if (period.aggregated === '') return 'none';
  if (period.aggregation.kind === 'sum') return period.aggregated;
  const { count, projects } = period.aggregation;
  return `${period.aggregated} % (mean of ${count} ${count === projects ? (count === 1 ? 'project' : 'projects') : 'values'})`;
}

const numeric = (text: string) => text.trim() !== '' && Number.isFinite(Number(text));

/** `total / count` in cents, rounded half away from zero. */
function meanCents(total: bigint, count: number): bigint {
  const n = BigInt(count);
  const half = total < 0n ? -n : n;
  return (2n * total + half) / (2n * n);
}

function aggregate(root: IndicatorLine, period: PeriodLine, lines: readonly { member: Member; period: PeriodLine }[], countries: (id: number) => string[]): ProgramPeriod {
  const values = lines.filter((line) => numeric(line.period.actual));
  const total = values.reduce((sum, line) => sum + toCents(line.period.actual), 0n);
  const percentage = root.measure === 'Percentage';
  const aggregation: Aggregation = percentage ? { kind: 'mean', count: values.length, projects: new Set(values.map((line) => line.member.project.id)).size } : { kind: 'sum' };
  const aggregated = values.length === 0 ? '' : centsText(percentage ? meanCents(total, values.length) : total);
  const share = (actual: string) => (percentage || !numeric(actual) || total === 0n ? null : Math.round((Number(toCents(actual)) / Number(total)) * 1000) / 10);
  return {
    start: period.start,
    end: period.end,
    target: period.target,
    aggregated,
    aggregation,
    contributions: lines.map(({ member, period: own }) => ({
      level: member.level,
      projectId: member.project.id,
      title: member.project.title,
      countries: countries(member.project.id),
      actual: own.actual,
      share: share(own.actual),
    })),
  };
}

export async function programOverview(program: Row, context: ReportContext): Promise<ProgramOverview> {
  const [root] = await context.lookup.byColumn('project', 'id', [program.id]);
  const team = await members(root, context);
  const [models, locations] = await Promise.all([
    projectsResults(team.map((member) => member.project), context),
    context.lookup.byColumn('project_location', 'project', team.map((member) => member.project.id)),
  ]);
  const locationsOf = groupBy(locations, 'project');
  const countries = (id: number) => countryNames(locationsOf.get(id) ?? []);

  // What counts toward each of the root's periods, in the order of the team, then of periods.
  const toward = new Map<PeriodLine, { member: Member; period: PeriodLine }[]>();
  const roots = rootPeriods(team, models);
  team.forEach((member, index) => {
    for (const result of models[index].results) {
      for (const indicator of result.indicators) {
        for (const period of indicator.periods) {
          const target = member.level === 0 ? period : roots.get(period);
          if (!target) continue;
          const lines = toward.get(target);
          if (lines) lines.push({ member, period });
          else toward.set(target, [{ member, period }]);
        }
      }
    }
  });

  return {
    program: { id: program.id, title: program.title || root.title },
    results: models[0].results.map((result) => ({
      title: result.title,
      type: result.type,
      indicators: result.indicators.map((indicator) => ({
        title: indicator.title,
        percentage: indicator.measure === 'Percentage',
        periods: indicator.periods.map((period) => aggregate(indicator, period, toward.get(period) ?? [], countries)),
      })),
    })),
    today: context.today,
  };
}
