/**
 * A project's results, indicators and periods in range, with actual values and progress (spec/
 * reports.md): the model of results-simple-table, and of the results framework and the Word report.
 */
import type { Row } from '../resources/define.ts';
import { compareText } from '../text/sortkey.ts';
import { centsText, sumCents } from './numbers.ts';
import { within } from './params.ts';
import { byOrder, compareDates, groupBy, type ReportContext } from './source.ts';

export const RESULT_TYPES: Readonly<Record<string, string>> = { '1': 'Output', '2': 'Outcome', '3': 'Impact', '9': 'Other' };

export interface DisaggregationValue {
  /** `indicator_dimension_value` id. */
  id: number;
  dimension: string;
  value: string;
}

export interface PeriodLine {
  id: number;
  start: string | null;
  end: string | null;
  target: string;
  /** Sum of the approved updates' values, or the stored actual value where there is no approved update. */
  actual: string;
  progress: number | null;
  targetComment: string;
  actualComment: string;
  /** Approved updates' texts (qualitative indicators). */
  texts: string[];
  /** Disaggregation targets by dimension value id. */
  targets: Map<number, string>;
  /** The parent indicator's period this one contributes to in a program (dataset.md), if linked. */
  parentPeriod: number | null;
}

export interface IndicatorLine {
  id: number;
  title: string;
  description: string;
  quantitative: boolean;
  measure: string;
  ascending: boolean | null;
  baselineYear: number | null;
  baselineValue: string | null;
  periods: PeriodLine[];
  /** The parent project's indicator this one contributes to in a program (dataset.md), if linked. */
  parentIndicator: number | null;
}

export interface ResultLine {
  id: number;
  title: string;
  description: string;
  type: string;
  indicators: IndicatorLine[];
}

export interface ProjectResults {
  project: Row;
  results: ResultLine[];
  /** The project's disaggregation values, grouped by dimension name, in id order. */
  disaggregations: DisaggregationValue[];
}

/** actual / target × 100, one decimal; null when the target is empty, zero or not a number. */
export function progress(actual: string, target: string): number | null {
  const [a, t] = [Number(actual), Number(target)];
  if (target.trim() === '' || actual.trim() === '' || !Number.isFinite(a) || !Number.isFinite(t) || t === 0) return null;
  return Math.round((a / t) * 1000) / 10;
}

/** Periods by start (null last), then id. */
const byStart = (a: Row, b: Row) => compareDates(a.period_start, b.period_start) || a.id - b.id;

export async function projectResults(project: Row, context: ReportContext): Promise<ProjectResults> {
  return (await projectsResults([project], context))[0];
}

/** The results of several projects, read together (a few queries for the whole batch). */
export async function projectsResults(projects: readonly Row[], context: ReportContext): Promise<ProjectResults[]> {
  const { lookup } = context;
  const projectIds = projects.map((project) => project.id);
  const results = (await lookup.byColumn('result', 'project', projectIds)).sort(byOrder);
  const indicators = (await lookup.byColumn('indicator', 'result', results.map((result) => result.id))).sort(byOrder);
  const periods = (await lookup.byColumn('indicator_period', 'indicator', indicators.map((indicator) => indicator.id)))
    .filter((period) => within(context.range, period.period_start, period.period_end))
    .sort(byStart);
  const periodIds = periods.map((period) => period.id);
  const [updates, targets, names] = await Promise.all([
    lookup.byColumn('indicator_period_data', 'period', periodIds),
    lookup.byColumn('disaggregation_target', 'period', periodIds),
    lookup.byColumn('indicator_dimension_name', 'project', projectIds),
  ]);
  const values = await lookup.byColumn('indicator_dimension_value', 'name', names.map((name) => name.id));
  const nameOf = new Map(names.map((name) => [name.id, name]));
  const approvedOf = groupBy(updates.filter((update) => update.status === 'A').sort((a, b) => a.id - b.id), 'period');
  const targetsOf = groupBy(targets, 'period');
  const periodsOf = groupBy(periods, 'indicator');
  const indicatorsOf = groupBy(indicators, 'result');
  const resultsOf = groupBy(results, 'project');
  const valuesOf = groupBy(values.map((value) => ({ value, project: nameOf.get(value.name)?.project })), 'project');

  const periodLine = (period: Row): PeriodLine => {
    const approved = approvedOf.get(period.id) ?? [];
    const numbers = approved.map((update) => update.value).filter((value) => value !== null);
    const actual = numbers.length ? centsText(sumCents(numbers)) : (period.actual_value ?? '');
    return {
      id: period.id,
      start: period.period_start,
      end: period.period_end,
      target: period.target_value ?? '',
      actual,
      progress: progress(actual, period.target_value ?? ''),
      targetComment: period.target_comment ?? '',
      actualComment: period.actual_comment ?? '',
      texts: approved.map((update) => update.text).filter((text) => text),
      targets: new Map((targetsOf.get(period.id) ?? []).filter((target) => target.dimension_value !== null).map((target) => [target.dimension_value, target.value === null ? '' : String(target.value)])),
      parentPeriod: period.parent_period ?? null,
    };
  };
  const indicatorLine = (indicator: Row): IndicatorLine => ({
    id: indicator.id,
    title: indicator.title,
    description: indicator.description,
    quantitative: indicator.type !== 2,
    measure: indicator.measure === '2' ? 'Percentage' : 'Unit',
    ascending: indicator.ascending,
    baselineYear: indicator.baseline_year,
    baselineValue: indicator.baseline_value === null ? null : String(indicator.baseline_value),
    periods: (periodsOf.get(indicator.id) ?? []).map(periodLine),
    parentIndicator: indicator.parent_indicator ?? null,
  });

  return projects.map((project) => ({
    project,
    results: (resultsOf.get(project.id) ?? []).map((result) => ({
      id: result.id,
      title: result.title,
      description: result.description,
      type: RESULT_TYPES[result.type] ?? 'Other',
      indicators: (indicatorsOf.get(result.id) ?? []).map(indicatorLine),
    })),
    disaggregations: (valuesOf.get(project.id) ?? [])
      .map(({ value }) => ({ id: value.id as number, dimension: nameOf.get(value.name)?.name ?? '', value: value.value as string }))
      .sort((a, b) => compareText(a.dimension, b.dimension) || a.id - b.id),
  }));
}
