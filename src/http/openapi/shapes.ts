/**
 * Records as shown: what the component schema of a record adds to the schema its answers are
 * serialized by — RSR's shapes of the lists this service keeps always empty, the table each
 * foreign key leads to (`x-references`), and each field's title as a person reads it.
 */
import { storedFields, type Resource } from '../../resources/define.ts';
import type { Json } from './json.ts';

const nested = (what: string) => ({ type: 'array', items: { type: 'object', description: `${what}, as RSR's nested serializer shows it.` } });
/**
 * Fields of RSR this service keeps no data for, always shown empty ([]): their declarations say
 * only "a list". The document gives the items RSR's serializers give them, so that a client is
 * ready for RSR's values (akvo/rsr/models/organisation.py, the nested serializers).
 */
const RSR_SHAPES: Record<string, Record<string, Json>> = {
  organisation: {
    internal_org_ids: { type: 'array', items: { type: 'integer' }, description: 'Ids of organisations that record an internal id for it.' },
    total_budgets: nested('A total budget'),
    recipient_org_budgets: nested('A recipient organisation budget'),
    region_budgets: nested('A recipient region budget'),
    country_budgets: nested('A recipient country budget'),
    total_expenditures: nested('A total expenditure'),
    documents: nested('A document'),
  },
  transaction: { sectors: nested('A transaction sector') },
  my_projects: { sectors: nested('A sector'), recipient_countries: nested('A recipient country'), roles: nested('A project role') },
};

/** A declared schema that says nothing of a value: `null` alone, or a list of anything. */
const unsaid = (schema: Json) => schema.type === 'null' || (schema.type === 'array' && Object.keys((schema.items ?? {}) as Json).length === 0);

/** RSR's shape of a property whose declaration leaves it unsaid (`shaped`, the property as declared). */
export function rsrShape(resource: Resource, name: string, shaped: Json): Json {
  const shape = RSR_SHAPES[resource.name]?.[name];
  return shape && unsaid(shaped) ? structuredClone(shape) : shaped;
}

export function withRsrShapes(resource: Resource, schema: Json): Json {
  const properties = schema.properties as Record<string, Json>;
  for (const name of Object.keys(properties)) properties[name] = rsrShape(resource, name, properties[name]);
  return schema;
}

/** Foreign keys say which table they lead to (`x-references`): the explorer links them. */
export function withReferences(resource: Resource, schema: Json): Json {
  const properties = schema.properties as Record<string, Json>;
  for (const [name, field] of storedFields(resource)) if (field.references && name !== 'id') properties[name]['x-references'] = field.references;
  return withTitles(resource, schema);
}

const WORDS: Record<string, string> = { id: 'ID', iati: 'IATI', url: 'URL', uri: 'URI' };
const humanize = (name: string) => {
  const text = name.split('_').map((word) => WORDS[word] ?? word).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
};

/**
 * A field's name as a person reads it (each property's `title`; the explorer's column headers):
 * `period_start` "Period start", `iati_org_id` "IATI org ID"; a code and the label derived from
 * it "Currency (code)" and "Currency" (not "Currency label"); `*_show_link` "… (link)".
 */
function fieldTitle(resource: Resource, name: string): string {
  const coded = /^(.+)_label$/.exec(name)?.[1];
  if (coded && resource.fields[name]?.kind === 'derived') return humanize(coded);
  if (resource.fields[`${name}_label`]?.kind === 'derived') return `${humanize(name)} (code)`;
  const linked = /^(.+)_show_link$/.exec(name)?.[1];
  return linked ? `${humanize(linked)} (link)` : humanize(name);
}

export function withTitles(resource: Resource, schema: Json): Json {
  for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) property.title = fieldTitle(resource, name);
  return schema;
}
