/** Every declared table and API resource. Adding a resource is adding its file and a line here. */
import type { Entity, Resource } from './define.ts';
import administrativeLocation from './administrative_location.ts';
import budgetItem from './budget_item.ts';
import disaggregationTarget from './disaggregation_target.ts';
import humanitarianScope from './humanitarian_scope.ts';
import indicatorPeriodDataComment from './indicator_period_data_comment.ts';
import keyword from './keyword.ts';
import link from './link.ts';
import myProjects from './my_projects.ts';
import organisation from './organisation.ts';
import organisationLocation from './organisation_location.ts';
import projectCustomField from './project_custom_field.ts';
import recipientRegion from './recipient_region.ts';
import reports from './reports.ts';
import * as support from './support.ts';
import transaction from './transaction.ts';

/** The thirteen lists of the seed, in the seed's order. */
export const RESOURCES: readonly Resource[] = [
  budgetItem, transaction, organisation, indicatorPeriodDataComment, recipientRegion,
  projectCustomField, administrativeLocation, link, disaggregationTarget, keyword, reports,
  myProjects, humanitarianScope,
];

export const RESOURCE_BY_NAME: ReadonlyMap<string, Resource> = new Map(RESOURCES.map((resource) => [resource.name, resource]));

/** A dataset file (dataset.md) and the table it fills, in dependency order: targets first. */
export interface DatasetFile {
  file: string;
  entity: Entity;
}

export const DATASET_FILES: readonly DatasetFile[] = [
  { file: 'organisation', entity: organisation },
  { file: 'project', entity: support.project },
  { file: 'program', entity: support.program },
  { file: 'user', entity: support.user },
  { file: 'employment', entity: support.employment },
  { file: 'partnership', entity: support.partnership },
  { file: 'project_location', entity: support.projectLocation },
  { file: 'result', entity: support.result },
  { file: 'indicator', entity: support.indicator },
  { file: 'indicator_period', entity: support.indicatorPeriod },
  { file: 'indicator_period_data', entity: support.indicatorPeriodData },
  { file: 'indicator_dimension_name', entity: support.indicatorDimensionName },
  { file: 'indicator_dimension_value', entity: support.indicatorDimensionValue },
  { file: 'project_update', entity: support.projectUpdate },
  { file: 'keyword', entity: keyword },
  { file: 'reports', entity: reports },
  { file: 'budget_item', entity: budgetItem },
  { file: 'transaction', entity: transaction },
  { file: 'indicator_period_data_comment', entity: indicatorPeriodDataComment },
  { file: 'recipient_region', entity: recipientRegion },
  { file: 'project_custom_field', entity: projectCustomField },
  { file: 'administrative_location', entity: administrativeLocation },
  { file: 'link', entity: link },
  { file: 'disaggregation_target', entity: disaggregationTarget },
  { file: 'humanitarian_scope', entity: humanitarianScope },
];

/** Every table, each declared once (organisation_location lives inside organisation records). */
export const TABLES: readonly Entity[] = [
  ...DATASET_FILES.map((dataset) => dataset.entity).slice(0, 1),
  organisationLocation,
  ...DATASET_FILES.map((dataset) => dataset.entity).slice(1),
  // Not part of datasets: an import with --replace removes them with the users they belong to.
  support.apiToken,
];

export const ENTITY_BY_TABLE: ReadonlyMap<string, Entity> = new Map(TABLES.map((entity) => [entity.table, entity]));

export function entityOf(table: string): Entity {
  const entity = ENTITY_BY_TABLE.get(table);
  if (!entity) throw new Error(`No declaration for table ${table}`);
  return entity;
}

/** Files a dataset may hold that are not imported: my_projects is computed per caller. */
export const IGNORED_DATASET_FILES = ['my_projects'];
