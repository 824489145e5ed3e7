/**
 * What the explorer knows of each list, read from the service's OpenAPI document
 * (/rest/v1/openapi.json) rather than written here: its fields, their titles and types, the
 * foreign keys among them, which fields it may be ordered by, the lookups each field's filter
 * takes, and whether (and with which fields) it can be written.
 */
import { get } from './api';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a document read at run time

export interface FieldSpec {
  name: string;
  /** What a person reads: the document's `title` ("Currency", "Currency (code)"), else the name made readable. */
  title: string;
  /** The JSON type of its values (without null). */
  type: string;
  nullable: boolean;
  /** The table a foreign key leads to. */
  references?: string;
  orderable: boolean;
  /** The lookups its filter takes (`exact` first), none when it cannot be filtered. */
  lookups: string[];
}

export interface WriteField {
  name: string;
  title: string;
  type: string;
  nullable: boolean;
  required: boolean;
  choices?: unknown[];
  maxLength?: number;
  description?: string;
  default?: unknown;
}

export interface ResourceSpec {
  name: string;
  title: string;
  fields: FieldSpec[];
  /** The fields a create or an edit may set; none for a read-only list. */
  writes: WriteField[] | null;
}

const typeOf = (schema: Json): { type: string; nullable: boolean } => {
  const types = ([] as string[]).concat(schema.type ?? 'any');
  return { type: types.find((type) => type !== 'null') ?? 'any', nullable: types.includes('null') };
};

function resourceSpec(document: Json, name: string, title: string): ResourceSpec {
  const list = document.paths[`/rest/v1/${name}/`];
  const parameters: Json[] = list.get.parameters;
  const ordering: Json = parameters.find((parameter) => parameter.name === 'ordering') ?? { schema: { items: { enum: [] } }, description: '' };
  const orderable = new Set<string>(ordering.schema.items.enum.filter((value: string) => !value.startsWith('-')));
  const lookups = new Map<string, string[]>();
  for (const { field, lookup } of parameters.map((parameter) => parameter['x-filter']).filter(Boolean)) lookups.set(field, [...(lookups.get(field) ?? []), lookup]);
  const record: Json = document.components.schemas[name];
  const fields = Object.entries(record.properties as Record<string, Json>).map(([field, schema]) => ({
    name: field,
    title: schema.title ?? label(field),
    ...typeOf(schema),
    references: schema['x-references'],
    orderable: orderable.has(field),
    lookups: lookups.get(field) ?? [],
  }));
  const write: Json | undefined = list.post ? document.components.schemas[`${name}_write`] : undefined;
  const writes = write
    ? Object.entries(write.properties as Record<string, Json>).map(([field, schema]) => ({
        name: field,
        title: schema.title ?? label(field),
        ...typeOf(schema),
        required: (write.required ?? []).includes(field),
        choices: schema.enum,
        maxLength: schema.maxLength,
        description: schema.description,
        default: schema.default,
      }))
    : null;
  return { name, title, fields, writes };
}

let loaded: Promise<Map<string, ResourceSpec>> | undefined;

/** Every list the service has, by name, in the order the API's index gives them (read once; again after a failure). */
export function specs(): Promise<Map<string, ResourceSpec>> {
  loaded ??= get<Json>('/rest/v1/openapi.json').then((document) => {
    const titles = new Map<string, string>((document.tags as Json[]).map((tag) => [tag.name, tag.description ?? tag.name]));
    const names = Object.keys(document.paths).filter((path) => /^\/rest\/v1\/[a-z_]+\/$/.test(path)).map((path) => path.split('/')[3]);
    return new Map(names.map((name) => [name, resourceSpec(document, name, titles.get(name) ?? name)]));
  });
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

/** "period_start" → "Period start". */
export const label = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')}`;
