/** Every declared table and API resource. Adding a resource is adding its file and a line here. */
import { storedFields, type Entity, type Resource } from './define.ts';
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

/** The tables behind the lists, filled from dataset files of their own names. */
const SUPPORTING: readonly Entity[] = [
  support.project, support.program, support.user, support.employment, support.partnership,
  support.projectLocation, support.result, support.indicator, support.indicatorPeriod,
  support.indicatorPeriodData, support.indicatorDimensionName, support.indicatorDimensionValue,
  support.projectUpdate,
];

/**
 * Entities ordered so that every foreign key points to a table listed before it (a reference to
 * the table itself, or to one outside the list, does not count); otherwise in the order given.
 */
export function dependencyOrder(entities: readonly Entity[]): Entity[] {
  const tables = new Set(entities.map((entity) => entity.table));
  const placed = new Set<string>();
  const ordered: Entity[] = [];
  const waiting = [...entities];
  while (waiting.length) {
    const ready = waiting.findIndex((entity) => storedFields(entity).every(([, field]) => !field.references || field.references === entity.table || !tables.has(field.references) || placed.has(field.references)));
    if (ready < 0) throw new Error(`Foreign keys in a circle among ${waiting.map((entity) => entity.table).join(', ')}`);
    const [entity] = waiting.splice(ready, 1);
    placed.add(entity.table);
    ordered.push(entity);
  }
  return ordered;
}

/** Lists whose records are computed per caller from other tables (my_projects) have no file. */
const COMPUTED: ReadonlySet<Resource> = new Set(RESOURCES.filter((resource) => resource.visibility.kind === 'own-projects'));

export const DATASET_FILES: readonly DatasetFile[] = dependencyOrder([...SUPPORTING, ...RESOURCES.filter((resource) => !COMPUTED.has(resource))])
  .map((entity) => ({ file: 'name' in entity ? (entity as Resource).name : entity.table, entity }));

/**
 * Every table, each declared once, targets first: organisation_location lives inside organisation
 * records; API tokens are not part of datasets (an import with --replace removes them with the
 * users they belong to).
 */
export const TABLES: readonly Entity[] = dependencyOrder([...DATASET_FILES.map((dataset) => dataset.entity), organisationLocation, support.apiToken]);

export const ENTITY_BY_TABLE: ReadonlyMap<string, Entity> = new Map(TABLES.map((entity) => [entity.table, entity]));

export function entityOf(table: string): Entity {
  const entity = ENTITY_BY_TABLE.get(table);
  if (!entity) throw new Error(`No declaration for table ${table}`);
  return entity;
}

/** Files a dataset may hold that are not imported: my_projects is computed per caller. */
export const IGNORED_DATASET_FILES: readonly string[] = [...COMPUTED].map((resource) => resource.name);
