/** Results frameworks: results, indicators, periods, reported data, dimensions, targets, comments. */
import { facts, fill, projectWords, sentences, stream, type DemoContext } from './context.ts';
import { MAX_DIMENSIONS } from './plan.ts';
import { streamSeed, Weighted, type Rng } from './random.ts';
import { split } from './split.ts';
import { THEMES } from './themes.ts';
import { DAY_SECONDS, dateText, timestampText, TODAY, yearOf } from './calendar.ts';
import {
  commentTree, dataMoments, dataStatus, dataTree, indicatorKinds, indicatorTree, periodDates, periodTree,
  projectOfPeriod, QUALITATIVE_INDICATORS, resultTree, type IndicatorKind,
} from './tree.ts';
import { DATA_COMMENTS, DIMENSIONS } from './words.ts';

type Row = Record<string, unknown>;

const TARGET_COMMENTS = [
  'Revised after the midterm review.', 'Based on the baseline survey.', 'Cumulative target.', 'Meta ajustada con el socio local.',
];

const RESULT_TYPES = new Weighted<string>([['1', 40], ['2', 35], ['3', 15], ['9', 10]]);

/** Rounds to cents: every decimal of the dataset has at most two decimals. */
function cents(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A number in an indicator's range: whole numbers for counts, one decimal for percentages. */
function indicatorNumber(kind: IndicatorKind, share: number, rng: Rng): number {
  if (kind.percentage) return Math.round(Math.min(100, share * 100 * (0.5 + rng.float())) * 10) / 10;
  const value = kind.magnitude * share * (0.5 + rng.float());
  return kind.fractional ? cents(value) : Math.round(value);
}

export function* results(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'result');
  const wordsOf = projectWords(ctx);
  const firstTitle = facts(ctx, 'result:title');
  for (const { id, parent: project, index } of resultTree(ctx)) {
    const theme = THEMES[ctx.plan.theme[project]];
    const words = wordsOf(project);
    // Consecutive titles of the theme from a random start: a project's results differ. The
    // projects of a program share their root's start, so that their frameworks line up.
    const start = firstTitle(ctx.plan.programRoot[project] || project);
    const title = theme.results[(Math.floor(start * theme.results.length) + index) % theme.results.length];
    yield {
      id,
      project,
      title: fill(title, words, rng),
      description: rng.chance(0.55) ? sentences(theme, words, rng, 1, 2) : '',
      type: RESULT_TYPES.pick(rng),
      order: index,
    };
  }
}

/**
 * Links of a program's frameworks (RSR's parent_indicator and parent_period): the record of a
 * contributing project points to its parent project's record at the same place in the framework
 * (result, indicator and period by position), where the parent has one. Parents come before their
 * children in the stream, so their records are known when a child's are made.
 */
function programLinks(ctx: DemoContext): (project: number, place: readonly number[], id: number) => number | null {
  const { plan } = ctx;
  const ids = new Map<string, number>();
  return (project, place, id) => {
    if (!plan.programRoot[project]) return null;
    ids.set(`${project}:${place.join(':')}`, id);
    return plan.parent[project] ? (ids.get(`${plan.parent[project]}:${place.join(':')}`) ?? null) : null;
  };
}

export function* indicators(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'indicator');
  const wordsOf = projectWords(ctx);
  const kindOf = indicatorKinds(ctx);
  const parentOf = programLinks(ctx);
  for (const indicator of indicatorTree(ctx)) {
    const project = indicator.parent.parent;
    const kind = kindOf(indicator);
    const theme = THEMES[ctx.plan.theme[project]];
    const words = wordsOf(project);
    const baseline = !kind.qualitative && rng.chance(0.7) ? indicatorNumber(kind, 0.2, rng) : null;
    yield {
      id: indicator.id,
      result: indicator.parent.id,
      title: kind.qualitative ? QUALITATIVE_INDICATORS[kind.title] : fill(theme.indicators[kind.title], words, rng),
      description: rng.chance(0.5) ? fill(rng.pick(words.common), words, rng) : '',
      type: kind.qualitative ? 2 : 1,
      measure: kind.percentage ? '2' : '1',
      ascending: rng.chance(0.92),
      baseline_year: rng.chance(0.7) ? yearOf(ctx.plan.start[project]) - rng.int(2) : null,
      baseline_value: baseline,
      target_value: !kind.qualitative && rng.chance(0.8) ? indicatorNumber(kind, 1, rng) : null,
      order: indicator.index,
      parent_indicator: parentOf(project, [indicator.parent.index, indicator.index], indicator.id),
    };
  }
}

export function* indicatorPeriods(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'indicator_period');
  const kindOf = indicatorKinds(ctx);
  const datesOf = periodDates(ctx);
  const wordsOf = projectWords(ctx);
  const parentOf = programLinks(ctx);
  for (const period of periodTree(ctx)) {
    const kind = kindOf(period.parent);
    const dates = datesOf(period);
    const past = dates === null || dates[1] < TODAY;
    const share = 1 / period.siblings;
    yield {
      id: period.id,
      indicator: period.parent.id,
      period_start: dates === null ? null : dateText(dates[0]),
      period_end: dates === null ? null : dateText(dates[1]),
      target_value: !kind.qualitative && rng.chance(0.85) ? String(indicatorNumber(kind, share, rng)) : '',
      actual_value: !kind.qualitative && past && rng.chance(0.75) ? String(indicatorNumber(kind, share, rng)) : '',
      target_comment: rng.chance(0.15) ? rng.pick(TARGET_COMMENTS) : '',
      actual_comment: past && rng.chance(0.2) ? rng.pick(wordsOf(projectOfPeriod(period)).common) : '',
      parent_period: parentOf(projectOfPeriod(period), [period.parent.parent.index, period.parent.index, period.index], period.id),
    };
  }
}

export function* indicatorPeriodData(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'indicator_period_data');
  const kindOf = indicatorKinds(ctx);
  const statusOf = dataStatus(ctx);
  const momentOf = dataMoments(ctx);
  const wordsOf = projectWords(ctx);
  for (const data of dataTree(ctx)) {
    const period = data.parent;
    const kind = kindOf(period.parent);
    const project = projectOfPeriod(period);
    const words = wordsOf(project);
    const theme = THEMES[ctx.plan.theme[project]];
    const text = kind.qualitative ? sentences(theme, words, rng, 1, 3) : rng.chance(0.4) ? sentences(theme, words, rng, 1, 1) : '';
    yield {
      id: data.id,
      period: period.id,
      user: 1 + rng.int(ctx.plan.users),
      value: kind.qualitative || rng.chance(0.03) ? null : indicatorNumber(kind, 1 / (period.siblings * data.siblings), rng),
      text,
      status: statusOf(data.id),
      created_at: timestampText(momentOf(data), rng.between(1, 999999)),
    };
  }
}

export function* dimensionNames(ctx: DemoContext): Generator<Row> {
  const { plan } = ctx;
  for (let project = 1; project <= plan.projects; project++) {
    for (let k = 0; k < plan.dimensionCount[project]; k++) {
      const dimension = DIMENSIONS[plan.dimensions[project * MAX_DIMENSIONS + k]];
      yield { id: plan.firstDimensionName[project] + k, project, name: dimension.name };
    }
  }
}

export function* dimensionValues(ctx: DemoContext): Generator<Row> {
  const { plan } = ctx;
  for (let project = 1; project <= plan.projects; project++) {
    let id = plan.firstDimensionValue[project];
    for (let k = 0; k < plan.dimensionCount[project]; k++) {
      const dimension = DIMENSIONS[plan.dimensions[project * MAX_DIMENSIONS + k]];
      for (const value of dimension.values) yield { id: id++, name: plan.firstDimensionName[project] + k, value };
    }
  }
}

export function* disaggregationTargets(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'disaggregation_target');
  const { plan } = ctx;
  const kindOf = indicatorKinds(ctx);
  const children = split({
    parents: () => periodTree(ctx),
    total: ctx.sizes.disaggregation_target,
    seed: streamSeed(ctx.seed, 'split:disaggregation_target'),
    // A period can have one target per dimension value of its project (quantitative indicators only).
    weight: (period) => (kindOf(period.parent).qualitative ? 0 : plan.dimensionValueCount[projectOfPeriod(period)]),
    capped: true,
  });
  for (const { id, parent: period, index } of children) {
    const project = projectOfPeriod(period);
    const kind = kindOf(period.parent);
    yield {
      id,
      period: period.id,
      // The original has a few targets whose dimension value was deleted.
      dimension_value: rng.chance(0.003) ? null : plan.firstDimensionValue[project] + index,
      value: rng.chance(0.1) ? null : indicatorNumber(kind, 0.5 / period.siblings, rng),
    };
  }
}

export function* dataComments(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'indicator_period_data_comment');
  const momentOf = dataMoments(ctx);
  const lastMoment = (TODAY + 1) * DAY_SECONDS - 1;
  for (const { id, parent: data } of commentTree(ctx)) {
    const created = Math.min(lastMoment, momentOf(data) + rng.int(30 * DAY_SECONDS));
    const modified = rng.chance(0.75) ? created : Math.min(lastMoment, created + rng.int(3 * DAY_SECONDS));
    const comment = rng.chance(0.8) ? rng.pick(DATA_COMMENTS) : `${rng.pick(DATA_COMMENTS)} ${rng.pick(DATA_COMMENTS)}`;
    const micros = rng.between(1, 999999);
    yield {
      id,
      data: data.id,
      user: 1 + rng.int(ctx.plan.users),
      comment,
      created_at: timestampText(created, micros),
      last_modified_at: timestampText(modified, modified > created ? rng.between(1, 999999) : micros),
    };
  }
}
