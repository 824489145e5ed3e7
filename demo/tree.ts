/**
 * The results framework as a tree: project → result → indicator → period → data → comment. Each
 * level is a split of its total over the level above, so any entity can walk the tree again to
 * learn, say, which project a period belongs to, without the tree ever being held in memory.
 * Facts that several levels need (is an indicator qualitative, when a period runs, when data
 * were entered) are stateless functions of the ids, so every walk agrees on them.
 */
import { facts, ids, type DemoContext } from './context.ts';
import { streamSeed, Weighted } from './random.ts';
import { split, type Child } from './split.ts';
import { THEMES } from './themes.ts';
import { dayOf, officeMoment, TODAY, yearOf } from './calendar.ts';

/** Keys of program frameworks' facts, apart from any record id. */
const PROGRAM_KEYS = 1e8;

export type ResultNode = Child<number>;
export type IndicatorNode = Child<ResultNode>;
export type PeriodNode = Child<IndicatorNode>;
export type DataNode = Child<PeriodNode>;

export function resultTree(ctx: DemoContext): Generator<ResultNode> {
  return split({
    parents: () => ids(ctx.plan.projects),
    total: ctx.sizes.result,
    seed: streamSeed(ctx.seed, 'split:result'),
    // Project 1 is the README's example: it always has results to report on (the draws stay
    // the same, so the other projects keep theirs).
    weight: (project, rng) => {
      const drawn = rng.chance(0.12) ? 0 : rng.between(1, 5);
      return project === 1 ? 5 : drawn;
    },
    memo: ctx.memo,
    memoKey: 'result',
  });
}

export function indicatorTree(ctx: DemoContext): Generator<IndicatorNode> {
  return split({
    parents: () => resultTree(ctx),
    total: ctx.sizes.indicator,
    seed: streamSeed(ctx.seed, 'split:indicator'),
    weight: (_, rng) => rng.between(1, 4),
    memo: ctx.memo,
    memoKey: 'indicator',
  });
}

/** Periods per indicator: yearly periods mostly, quarterly or half-yearly now and then. */
const PERIOD_COUNTS = new Weighted([[1, 15], [2, 20], [3, 25], [4, 20], [6, 10], [8, 10]] as const);

export function periodTree(ctx: DemoContext): Generator<PeriodNode> {
  return split({
    parents: () => indicatorTree(ctx),
    total: ctx.sizes.indicator_period,
    seed: streamSeed(ctx.seed, 'split:indicator_period'),
    weight: (_, rng) => PERIOD_COUNTS.pick(rng),
    memo: ctx.memo,
    memoKey: 'indicator_period',
  });
}

export function dataTree(ctx: DemoContext): Generator<DataNode> {
  const datesOf = periodDates(ctx);
  return split({
    parents: () => periodTree(ctx),
    total: ctx.sizes.indicator_period_data,
    seed: streamSeed(ctx.seed, 'split:indicator_period_data'),
    // Data are reported on periods that have started.
    weight: (period, rng) => {
      const dates = datesOf(period);
      if (dates !== null && dates[0] > TODAY) return 0;
      return rng.chance(0.1) ? 0 : rng.between(1, 3);
    },
    memo: ctx.memo,
    memoKey: 'indicator_period_data',
  });
}

export function commentTree(ctx: DemoContext): Generator<Child<DataNode>> {
  const statusOf = dataStatus(ctx);
  return split({
    parents: () => dataTree(ctx),
    total: ctx.sizes.indicator_period_data_comment,
    seed: streamSeed(ctx.seed, 'split:indicator_period_data_comment'),
    // Returned and pending updates draw the discussion.
    weight: (data, rng) => {
      const status = statusOf(data.id);
      return status === 'R' ? rng.between(1, 4) : status === 'P' ? rng.between(0, 3) : rng.between(0, 2);
    },
    memo: ctx.memo,
    memoKey: 'indicator_period_data_comment',
  });
}

export function projectOfPeriod(period: PeriodNode): number {
  return period.parent.parent.parent;
}

export interface IndicatorKind {
  qualitative: boolean;
  percentage: boolean;
  /** Index into the theme's indicators (or QUALITATIVE_INDICATORS). */
  title: number;
  /** Typical size of the indicator's numbers: 10, 100, 1,000 or 10,000. */
  magnitude: number;
  /** Amounts and averages take decimals; counts of people and things do not. */
  fractional: boolean;
}

export const QUALITATIVE_INDICATORS = [
  'Most significant change stories collected',
  'Quality of cooperation with local government',
  'Description of policy changes influenced',
  'Changes in attitudes towards girls’ education',
  'Lessons learned on community ownership',
  'Perception of service quality by users',
];

/** What kind of indicator an id is: its title decides whether it is measured in percent. */
export function indicatorKinds(ctx: DemoContext): (indicator: IndicatorNode) => IndicatorKind {
  const qualitative = facts(ctx, 'indicator:qualitative');
  const title = facts(ctx, 'indicator:title');
  const magnitude = facts(ctx, 'indicator:magnitude');
  // Periods and data of one indicator come one after another: remember the last answer.
  let last: IndicatorNode | undefined;
  let kind: IndicatorKind | undefined;
  return (indicator) => {
    if (indicator === last && kind !== undefined) return kind;
    const project = indicator.parent.parent;
    const theme = THEMES[ctx.plan.theme[project]];
    // In a program, an indicator is drawn by its place in the framework, not its id: the
    // projects of a program measure the same things, and their periods add up (spec/reports.md).
    const root = ctx.plan.programRoot[project];
    const resultKey = root ? PROGRAM_KEYS + root * 64 + indicator.parent.index : indicator.parent.id;
    const isQualitative = qualitative(root ? resultKey * 64 + indicator.index : indicator.id) < 0.12;
    const titles = isQualitative ? QUALITATIVE_INDICATORS : theme.indicators;
    // Consecutive titles from a start drawn per result, so the indicators of a result differ.
    const index = (Math.floor(title(resultKey) * titles.length) + indicator.index) % titles.length;
    last = indicator;
    kind = {
      qualitative: isQualitative,
      percentage: !isQualitative && /^(Percentage|%)/.test(titles[index]),
      title: index,
      magnitude: 10 ** (1 + Math.floor(magnitude(indicator.id) * 4)),
      fractional: /Average|Volume|Total|Tonnes/.test(titles[index]),
    };
    return kind;
  };
}

/**
 * A period's first and last day: the project's planned time cut in equal parts; null for a few.
 * In a program, calendar years from the root's start: the periods of its projects match by date.
 */
export function periodDates(ctx: DemoContext): (period: PeriodNode) => [number, number] | null {
  const undated = facts(ctx, 'indicator_period:undated');
  const { plan } = ctx;
  return (period) => {
    const project = projectOfPeriod(period);
    const root = plan.programRoot[project];
    if (root) {
      const year = yearOf(plan.start[root]) + period.index;
      return [dayOf(year, 1, 1), dayOf(year, 12, 31)];
    }
    if (undated(period.id) < 0.03) return null;
    const start = plan.start[project];
    const length = Math.floor((plan.end[project] - start + 1) / period.siblings);
    if (length < 1) return [start, plan.end[project]];
    const first = start + period.index * length;
    return [first, period.index === period.siblings - 1 ? plan.end[project] : first + length - 1];
  };
}

const STATUSES = ['A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'P', 'P', 'D', 'R'];

/** Status of a data record: mostly approved ('A'), some pending, draft or returned. */
export function dataStatus(ctx: DemoContext): (data: number) => string {
  const status = facts(ctx, 'indicator_period_data:status');
  return (data) => STATUSES[Math.floor(status(data) * STATUSES.length)];
}

/** When a data record was entered (UTC seconds): around the end of its period, never after today. */
export function dataMoments(ctx: DemoContext): (data: DataNode) => number {
  const datesOf = periodDates(ctx);
  const when = facts(ctx, 'indicator_period_data:when');
  const hour = facts(ctx, 'indicator_period_data:hour');
  const { plan } = ctx;
  return (data) => {
    const dates = datesOf(data.parent);
    const project = projectOfPeriod(data.parent);
    const f = when(data.id);
    const day = dates === null
      ? plan.start[project] + Math.floor(f * Math.max(1, Math.min(plan.end[project], TODAY) - plan.start[project]))
      : dates[1] - 20 + Math.floor(f * 80);
    return officeMoment(Math.min(TODAY, day), hour(data.id));
  };
}
