/**
 * The Word project report's own parts (spec/reports.md, Project-report-word): partners with
 * their roles, the budget with totals per currency, and each quantitative indicator's grade.
 */
import { budgetItemLabels } from '../codelists/index.ts';
import type { Row } from '../resources/define.ts';
import { compareText } from '../text/sortkey.ts';
import { progress, type IndicatorLine, type ProjectResults } from './project-results.ts';
import { centsText, grade, itemCurrency, sumCents, toCents, totalsByCurrency, type Grade } from './numbers.ts';
import type { ReportContext } from './source.ts';

const ROLE_NAMES: Readonly<Record<number, string>> = { 1: 'funding', 2: 'accountable', 3: 'extending', 4: 'implementing', 101: 'reporting' };
const ROLE_ORDER = [1, 2, 3, 4, 101];

export interface Partner {
  name: string;
  roles: string[];
}

export interface BudgetLine {
  label: string;
  start: string | null;
  end: string | null;
  /** Cents: sums stay exact. */
  cents: bigint;
  currency: string;
}

export interface IndicatorGrade {
  title: string;
  progress: number | null;
  grade: Grade | null;
}

/** Partners by organisation name (D7 key), each with its roles in IATI order. */
export async function partners(project: Row, context: ReportContext): Promise<Partner[]> {
  const partnerships = await context.lookup.byColumn('partnership', 'project', [project.id]);
  const organisations = await context.lookup.byColumn('organisation', 'id', partnerships.map((partnership) => partnership.organisation));
  return organisations
    .sort((a, b) => compareText(a.name, b.name) || a.id - b.id)
    .map((organisation) => ({
      name: organisation.name as string,
      roles: ROLE_ORDER.filter((role) => partnerships.some((partnership) => partnership.organisation === organisation.id && partnership.iati_organisation_role === role)).map((role) => ROLE_NAMES[role]),
    }));
}

export async function budget(project: Row, context: ReportContext): Promise<{ lines: BudgetLine[]; totals: [currency: string, cents: bigint][] }> {
  const items = (await context.lookup.byColumn('budget_item', 'project', [project.id])).sort((a, b) => a.id - b.id);
  const lines = items.map((item) => ({
    label: item.label === null ? (item.other_extra || 'Other') : (budgetItemLabels.get(item.label) ?? String(item.label)),
    start: item.period_start,
    end: item.period_end,
    cents: toCents(item.amount),
    currency: itemCurrency(item, project),
  }));
  return { lines, totals: totalsByCurrency(lines.map((line) => [line.currency, line.cents])) };
}

/** A quantitative indicator's progress over its periods in range: their actuals over their targets, summed exactly. */
function indicatorGrade(indicator: IndicatorLine): IndicatorGrade {
  const sum = (values: string[]) => centsText(sumCents(values.filter((value) => value.trim() !== '' && Number.isFinite(Number(value)))));
  const targets = indicator.periods.map((period) => period.target);
  const percent = targets.some((target) => target.trim() !== '') ? progress(sum(indicator.periods.map((period) => period.actual)), sum(targets)) : null;
  return { title: indicator.title, progress: percent, grade: grade(percent) };
}

export const grades = (results: ProjectResults): IndicatorGrade[] =>
  results.results.flatMap((result) => result.indicators.filter((indicator) => indicator.quantitative).map(indicatorGrade));
