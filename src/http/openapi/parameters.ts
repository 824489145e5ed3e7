/**
 * The query and header parameters: the shared ones (components.parameters: paging, format, the
 * dictionary filters, If-None-Match) and a list's own, made from its declaration — `ordering`
 * over its orderable fields, and `field` and `field__lookup` for each field it may be filtered by.
 */
import { lookupsOf, type LookupName } from '../../query/filters.ts';
import { MAX_PAGE_SIZE, PAGE_SIZE } from '../../query/list-query.ts';
import { storedFields, type Resource, type StoredField } from '../../resources/define.ts';
import { ref, type Json } from './json.ts';

/** components.parameters. */
export const PARAMETERS: Record<string, Json> = {
  page: { name: 'page', in: 'query', required: false, description: 'Page number, or `last`.', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { const: 'last' }] } },
  offset: { name: 'offset', in: 'query', required: false, description: 'Records to skip.', schema: { type: 'integer', minimum: 0 } },
  limit: { name: 'limit', in: 'query', required: false, description: `Records per page (default ${PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
  format: { name: 'format', in: 'query', required: false, description: 'The representation (else the Accept header; JSON by default; `api` is JSON).', schema: { type: 'string', enum: ['json', 'api', 'xml', 'csv'] } },
  filter: { name: 'filter', in: 'query', required: false, description: "Filters as a Python dictionary literal, e.g. `{'title__icontains':'water'}`.", schema: { type: 'string' } },
  exclude: { name: 'exclude', in: 'query', required: false, description: 'Records matching this dictionary are left out.', schema: { type: 'string' } },
  q_filter1: { name: 'q_filter1', in: 'query', required: false, description: 'Dictionaries `q_filter1`, `q_filter2`, … combined with OR.', schema: { type: 'string' } },
  bom: { name: 'bom', in: 'query', required: false, description: 'CSV only: start the file with a UTF-8 byte order mark, for Excel on Windows (default false).', schema: { type: 'boolean' } },
  delimiter: { name: 'delimiter', in: 'query', required: false, description: 'CSV only: what separates cells: `,` (default), `;` (for Excel where the decimal mark is a comma), or `tab`.', schema: { type: 'string', enum: [',', ';', 'tab'] } },
  if_none_match: { name: 'If-None-Match', in: 'header', required: false, description: 'The ETag of a copy the caller holds: 304 without a body while it is current.', schema: { type: 'string' } },
};

const LOOKUP_MEANING: Record<LookupName, string> = {
  exact: 'equals', iexact: 'equals, ignoring case', contains: 'contains', icontains: 'contains, ignoring case',
  startswith: 'starts with', istartswith: 'starts with, ignoring case', endswith: 'ends with', iendswith: 'ends with, ignoring case',
  in: 'is one of (comma-separated)', gt: 'greater than', gte: 'greater than or equal to', lt: 'less than', lte: 'less than or equal to',
  isnull: 'is null (true) or not (false)', range: 'between two values, inclusive (comma-separated)',
};

/** The JSON Schema of a filter's value: the field's type, as text for `in` and `range`. */
function filterValueSchema(field: StoredField, lookup: LookupName): Json {
  if (lookup === 'isnull') return { type: 'boolean' };
  if (lookup === 'in' || lookup === 'range') return { type: 'string', description: 'comma-separated values' };
  if (field.type === 'date') return { type: 'string', format: 'date' };
  if (field.type === 'timestamp') return { type: 'string', format: 'date-time' };
  const type = { int: 'integer', decimal: 'number', bool: 'boolean' }[field.type as string] ?? 'string';
  return { type };
}

/** The field filters of a resource: `field` and `field__lookup` for each stored field anyone may filter by. */
function filterParameters(resource: Resource): Json[] {
  const parameters: Json[] = [];
  for (const [name, field] of storedFields(resource)) {
    if (field.type === 'json' || field.filter !== undefined) continue;
    for (const lookup of lookupsOf(field)) {
      const target = field.references ? ` (the id of a ${field.references}; follow it with \`${name}__<field>\`)` : '';
      parameters.push({
        name: lookup === 'exact' ? name : `${name}__${lookup}`,
        in: 'query',
        required: false,
        description: `Records whose \`${name}\`${target} ${LOOKUP_MEANING[lookup]}.`,
        schema: filterValueSchema(field, lookup),
        // What the parameter filters, for programs that build filters (the explorer).
        'x-filter': { field: name, lookup },
      });
    }
  }
  return parameters;
}

export const orderText = (resource: Resource) => resource.defaultOrder.map((term) => `${term.descending ? '-' : ''}${term.field}`).join(',');

/** `ordering`: orderable fields, `-` for descending, several joined by commas. */
function orderingParameter(resource: Resource): Json {
  const fields = storedFields(resource).filter(([, field]) => field.orderable).map(([name]) => name);
  return {
    name: 'ordering',
    in: 'query',
    required: false,
    description: `Order of the records: a field, \`-field\` for descending, several separated by commas. Default: ${orderText(resource)}.`,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: fields.flatMap((name) => [name, `-${name}`]) } },
  };
}

/** The filters of a list and its ordering, as every way of reading it takes them. */
const selection = (resource: Resource) => [orderingParameter(resource), ref('parameters', 'filter'), ref('parameters', 'exclude'), ref('parameters', 'q_filter1'), ...filterParameters(resource)];
const csvOptions = [ref('parameters', 'bom'), ref('parameters', 'delimiter')];

/** The list's query; `suffixed`: the format is the path's, not `?format=`. */
export function listParameters(resource: Resource, paging: 'page' | 'offset', suffixed = false): Json[] {
  const paged = paging === 'page' ? [ref('parameters', 'page')] : [ref('parameters', 'offset')];
  const format = suffixed ? [] : [ref('parameters', 'format')];
  return [...paged, ref('parameters', 'limit'), ...format, ...selection(resource), ...csvOptions, ref('parameters', 'if_none_match')];
}

/** A whole-list download's query: the list's filters and ordering, no page; the CSV options for CSV. */
export function wholeListParameters(resource: Resource, format: 'csv' | 'xlsx'): Json[] {
  return [...selection(resource), ...(format === 'csv' ? csvOptions : [])];
}
