/**
 * The demo dataset: realistic, deterministic records for every entity of the dataset format
 * (spec/dataset.md), sized by `scale` (1 ≈ the counts observed on the original service).
 *
 * Records are made lazily, entity by entity, so a dataset of any scale can be streamed into a
 * store; iterating an entity twice gives the same records again. Only a compact plan (a few typed
 * arrays per project) and the name pools are held in memory.
 */
import { DATASET_FILES } from '../src/resources/index.ts';
import { createContext, type DemoContext } from './context.ts';
import { projectCustomFields } from './custom-fields.ts';
import { budgetItems, transactions } from './finance.ts';
import { administrativeLocations, projectLocations, recipientRegions } from './locations.ts';
import { organisations } from './organisations.ts';
import { employments, users } from './people.ts';
import { humanitarianScopes, keywords, links, partnerships, programs, projects, projectUpdates } from './projects.ts';
import {
  dataComments, dimensionNames, dimensionValues, disaggregationTargets, indicatorPeriodData, indicatorPeriods,
  indicators, results,
} from './results.ts';

export interface DemoOptions {
  /** 1 gives about the sizes of the original service; fractions make tiny test sets, 100 a benchmark. */
  scale: number;
  seed: number;
}

export interface EntityRecords {
  entity: string;
  records: Iterable<Record<string, unknown>>;
}

type Generate = (ctx: DemoContext) => Iterator<Record<string, unknown>>;

/**
 * A generator for every file of the dataset format (null: the demo leaves it out); the order
 * they are made in is the registry's (resources/index.ts), targets first.
 */
const GENERATORS: Readonly<Record<string, Generate | null>> = {
  organisation: organisations,
  project: projects,
  program: programs,
  user: users,
  employment: employments,
  partnership: partnerships,
  project_location: projectLocations,
  result: results,
  indicator: indicators,
  indicator_period: indicatorPeriods,
  indicator_period_data: indicatorPeriodData,
  indicator_dimension_name: dimensionNames,
  indicator_dimension_value: dimensionValues,
  project_update: projectUpdates,
  keyword: keywords,
  budget_item: budgetItems,
  transaction: transactions,
  indicator_period_data_comment: dataComments,
  recipient_region: recipientRegions,
  project_custom_field: projectCustomFields,
  administrative_location: administrativeLocations,
  link: links,
  disaggregation_target: disaggregationTargets,
  humanitarian_scope: humanitarianScopes,
  // The built-in report definitions come with the schema (store/migrations.ts).
  reports: null,
};

function generatorOf(file: string): Generate | null {
  const generate = GENERATORS[file];
  if (generate === undefined) throw new Error(`The demo has no generator for the dataset file ${file}`);
  return generate;
}

/** Entities in dependency order; each `records` iterable generates lazily (memory stays bounded at scale 100). */
export function generateDemo(opts: DemoOptions): EntityRecords[] {
  if (!(opts.scale > 0) || !Number.isFinite(opts.scale)) throw new RangeError(`demo scale must be a positive number, not ${opts.scale}`);
  if (!Number.isFinite(opts.seed)) throw new RangeError(`demo seed must be a finite number, not ${opts.seed}`);
  // Built on first use: a caller that only wants the entity names pays nothing.
  let ctx: DemoContext | undefined;
  const context = (): DemoContext => (ctx ??= createContext(opts.scale, opts.seed));
  return DATASET_FILES.flatMap(({ file }) => {
    const generate = generatorOf(file);
    return generate ? [{ entity: file, records: { [Symbol.iterator]: () => generate(context()) } }] : [];
  });
}
