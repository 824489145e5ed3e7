/**
 * A resource's operations and the paths they sit on: the list and one record (each also with a
 * format suffix), OPTIONS and the metadata schemas it answers with, create, replace, patch and
 * delete for a writable resource, and the legacy `/api/v1/` list.
 */
import { PAGE_SIZE } from '../../query/list-query.ts';
import type { Resource } from '../../resources/define.ts';
import { LIST_FILE_TYPES, type ListFileFormat } from '../list-files.ts';
import { jsonContent, ref, type Json } from './json.ts';
import { listParameters, orderText, wholeListParameters } from './parameters.ts';
import { errors, headers, LIST_CONTENT, NOT_MODIFIED } from './responses.ts';
import { OPTIONAL_TOKEN, TOKEN } from './security.ts';
import { INTEGER_RANGE, writeBody } from './write-schemas.ts';

const ID = { name: 'id', in: 'path', required: true, description: "The record's id.", schema: { type: 'integer', minimum: 1, maximum: INTEGER_RANGE.maximum } };
const SUFFIX = { name: 'format', in: 'path', required: true, description: 'The representation: JSON, XML or CSV.', schema: { type: 'string', enum: ['json', 'xml', 'csv'] } };

/** `budget item`: the resource's title inside a sentence. */
const noun = (resource: Resource) => resource.title.toLowerCase();

function listRead(resource: Resource, suffixed: boolean): Json {
  const name = resource.name;
  return {
    tags: [name], operationId: suffixed ? `${name}_list_as` : `${name}_list`, summary: `${resource.title} list${suffixed ? ', in the format the suffix names' : ''}`, security: OPTIONAL_TOKEN,
    description: `${resource.description ? `${resource.description} ` : ''}One page of the records the caller may see (anonymous callers see none of private or unpublished projects), ${PAGE_SIZE} a page by default, ordered by ${orderText(resource)} unless \`ordering\` says otherwise, filtered by any field with the lookups listed.${suffixed ? ` The same as \`/rest/v1/${name}/?format=<format>\`.` : ''}`,
    parameters: listParameters(resource, 'page', suffixed),
    responses: { 200: { description: 'One page of the records the caller may see.', headers: headers('ETag', 'Vary', 'Allow', 'Link', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', `${name}_page`)) }, ...NOT_MODIFIED, ...errors(400, 403, 404, 429, 503) },
  };
}

function wholeListRead(resource: Resource, format: ListFileFormat): Json {
  const name = resource.name;
  return {
    tags: [name], operationId: `${name}_download_${format}`, summary: `${resource.title} list, whole, as ${format === 'csv' ? 'CSV' : 'an Excel workbook'}`, security: OPTIONAL_TOKEN,
    description: `Every record of the list the caller may see, with the list's filters and ordering (no page), as a file sent as it is read: one column per field in the API's order, nested values as JSON text${format === 'xlsx' ? ', numbers and dates as such, the records going on in another sheet past a sheet\'s 1,048,575 rows' : ''}. A caller may have as many downloads at once as large pages (429 beyond).`,
    parameters: wholeListParameters(resource, format),
    responses: { 200: { description: 'The whole list, as an attachment.', headers: headers('Vary', 'Content-Disposition', 'X-Total-Count'), content: { [LIST_FILE_TYPES[format].split(';')[0]]: { schema: { type: 'string' } } } }, ...errors(400, 403, 404, 429, 503) },
  };
}

function recordRead(resource: Resource, suffixed: boolean): Json {
  const name = resource.name;
  return {
    tags: [name], operationId: suffixed ? `${name}_read_as` : `${name}_read`, summary: `One ${noun(resource)}${suffixed ? ', in the format the suffix names' : ''}`, security: OPTIONAL_TOKEN,
    description: `The record as the caller may see it: 404 for one it may not see.${suffixed ? ` The same as \`/rest/v1/${name}/{id}/?format=<format>\`.` : ''}`,
    parameters: [...(suffixed ? [] : [ref('parameters', 'format')]), ref('parameters', 'if_none_match')],
    responses: { 200: { description: 'The record.', headers: headers('ETag', 'Vary', 'Allow', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', name)) }, ...NOT_MODIFIED, ...errors(403, 404, 429, 503) },
  };
}

/** OPTIONS: DRF's description of the endpoint (metadata.ts). */
function options(resource: Resource, scope: 'list' | 'record'): Json {
  const list = scope === 'list';
  return {
    tags: [resource.name], operationId: `${resource.name}_${scope}_metadata`, summary: `Describe the ${noun(resource)} ${scope === 'list' ? 'list' : 'record endpoint'}`, security: OPTIONAL_TOKEN,
    description: list
      ? 'Its name and description, the media types it renders and parses, and for a caller who may create records, each field (`actions.POST`: type, whether required or read-only, length, range, choices).'
      : 'Its name and description, and the media types it renders and parses.',
    responses: { 200: { description: "DRF's metadata of the endpoint.", headers: headers('ETag', 'Vary', 'Allow'), content: jsonContent(ref('schemas', 'Metadata')) }, ...errors(403, 404, 429, 503) },
  };
}

/** DRF's SimpleMetadata, as metadata.ts writes it. */
export const FIELD_METADATA = {
  type: 'object',
  required: ['type', 'required', 'read_only', 'label'],
  properties: {
    type: { type: 'string', description: "DRF's name of the field's kind: `integer`, `string`, `choice`, `field` (a foreign key), `url`, …" },
    required: { type: 'boolean' },
    read_only: { type: 'boolean' },
    label: { type: 'string' },
    max_length: { type: 'integer' },
    min_value: { type: 'number' },
    max_value: { type: 'number' },
    choices: { type: 'array', items: { type: 'object', required: ['value', 'display_name'], properties: { value: { type: ['string', 'integer'] }, display_name: { type: 'string' } } } },
  },
};
export const METADATA = {
  type: 'object',
  required: ['name', 'description', 'renders', 'parses'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    renders: { type: 'array', items: { type: 'string' } },
    parses: { type: 'array', items: { type: 'string' } },
    actions: { type: 'object', properties: { POST: { type: 'object', additionalProperties: ref('schemas', 'FieldMetadata') } } },
  },
};

function create(resource: Resource): Json {
  const name = resource.name;
  return {
    tags: [name], operationId: `${name}_create`, summary: `Create a ${noun(resource)}`, security: TOKEN,
    description: `Checks the body against the ${noun(resource)}'s rules (400 with messages per field) and the caller's permission (403), stores the record and answers with it as a GET would show it, its URL in Location.`,
    requestBody: writeBody(`${name}_write`),
    responses: { 201: { description: 'Created: the record as stored.', headers: headers('Location', 'ETag', 'Vary', 'Allow', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', name)) }, ...errors(400, 403, 404, 413, 415, 429, 503) },
  };
}

function change(resource: Resource, kind: 'replace' | 'patch'): Json {
  const name = resource.name;
  const patch = kind === 'patch';
  return {
    tags: [name], operationId: `${name}_${patch ? 'partial_update' : 'update'}`, summary: `${patch ? 'Change some fields of' : 'Replace'} a ${noun(resource)}`, security: TOKEN,
    description: patch ? 'Changes the fields the body names; the others keep their values. No default is applied.' : 'Writes the fields the body names: required fields must be given; an optional field left out keeps its stored value (no default is applied).',
    requestBody: writeBody(`${name}_${patch ? 'patch' : 'replace'}`),
    responses: { 200: { description: 'The record as stored.', headers: headers('ETag', 'Vary', 'Allow', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', name)) }, ...errors(400, 403, 404, 413, 415, 429, 503) },
  };
}

function remove(resource: Resource): Json {
  return {
    tags: [resource.name], operationId: `${resource.name}_delete`, summary: `Delete a ${noun(resource)}`, security: TOKEN,
    description: 'Deletes the record, when the caller may.',
    responses: { 204: { description: 'Deleted.', headers: headers('Vary', 'Allow') }, ...errors(403, 404, 429, 503) },
  };
}

function legacyRead(resource: Resource): Json {
  const name = resource.name;
  return {
    tags: [name], operationId: `${name}_legacy_list`, summary: `${resource.title} list, the older offset interface`, security: OPTIONAL_TOKEN,
    description: "The original's older interface: the same records, filters and order as the list, from `offset` on, in a `{meta, objects}` envelope.",
    parameters: listParameters(resource, 'offset'),
    responses: { 200: { description: 'The records from `offset` on.', headers: headers('ETag', 'Vary', 'Link', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', `${name}_legacy_page`)) }, ...NOT_MODIFIED, ...errors(400, 403, 404, 429, 503) },
  };
}

/**
 * A resource's paths: the list and one record, each also with a format suffix (DRF's
 * format_suffix_patterns: `/rest/v1/<name>.csv`, `/rest/v1/<name>/<id>.xml`), and the legacy list.
 */
export function resourcePaths(resource: Resource): Record<string, Json> {
  const name = resource.name;
  const writable = !resource.readOnly;
  const list: Json = { get: listRead(resource, false), options: options(resource, 'list'), ...(writable ? { post: create(resource) } : {}) };
  const detail: Json = { parameters: [ID], get: recordRead(resource, false), options: options(resource, 'record') };
  if (writable) Object.assign(detail, { put: change(resource, 'replace'), patch: change(resource, 'patch'), delete: remove(resource) });
  return {
    [`/rest/v1/${name}/`]: list,
    [`/rest/v1/${name}.{format}`]: { parameters: [SUFFIX], get: listRead(resource, true) },
    [`/rest/v1/${name}/{id}/`]: detail,
    [`/rest/v1/${name}/{id}.{format}`]: { parameters: [ID, SUFFIX], get: recordRead(resource, true) },
    [`/api/v1/${name}/`]: { get: legacyRead(resource) },
    [`/download/${name}.csv`]: { get: wholeListRead(resource, 'csv') },
    [`/download/${name}.xlsx`]: { get: wholeListRead(resource, 'xlsx') },
  };
}
