/**
 * The OpenAPI 3.1 description of the service, made from the declarations the routes are made
 * from: each resource's record schema (the one its answers are serialized by), its orderable
 * fields, the filters and lookups its fields take, who may write it; the report downloads from
 * their catalogue; the errors from the error catalogue's shapes. Built once, served as it is.
 */
import { lookupsOf, type LookupName } from '../query/filters.ts';
import { MAX_PAGE_SIZE, PAGE_SIZE } from '../query/list-query.ts';
import { formatsOf, MEDIA_TYPES, REPORT_DOWNLOADS, type ReportDownload } from '../reports/catalogue.ts';
import { storedFields, type Resource, type StoredField } from '../resources/define.ts';
import { RESOURCES } from '../resources/index.ts';
import { packageVersion } from '../version.ts';
import { legacySchema, pageSchema, recordSchema } from './schemas.ts';
import { DIMENSION_VALUES } from './explorer-api.ts';

type Json = Record<string, unknown>;

const LOOKUP_MEANING: Record<LookupName, string> = {
  exact: 'equals', iexact: 'equals, ignoring case', contains: 'contains', icontains: 'contains, ignoring case',
  startswith: 'starts with', istartswith: 'starts with, ignoring case', endswith: 'ends with', iendswith: 'ends with, ignoring case',
  in: 'is one of (comma-separated)', gt: 'greater than', gte: 'greater than or equal to', lt: 'less than', lte: 'less than or equal to',
  isnull: 'is null (true) or not (false)', range: 'between two values, inclusive (comma-separated)',
};

/** A TypeBox schema as plain JSON Schema (TypeBox marks its objects with symbols). */
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;
const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const jsonContent = (schema: Json) => ({ 'application/json': { schema } });

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

/** `ordering`: orderable fields, `-` for descending, several joined by commas. */
function orderingParameter(resource: Resource): Json {
  const fields = storedFields(resource).filter(([, field]) => field.orderable).map(([name]) => name);
  return {
    name: 'ordering',
    in: 'query',
    required: false,
    description: `Order of the records: a field, \`-field\` for descending, several separated by commas. Default: ${resource.defaultOrder.map((term) => `${term.descending ? '-' : ''}${term.field}`).join(',')}.`,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: fields.flatMap((name) => [name, `-${name}`]) } },
  };
}

const LIST_CONTENT = (schema: Json) => ({
  ...jsonContent(schema),
  'application/xml': { schema: { type: 'string' } },
  'text/csv': { schema: { type: 'string' } },
});

function listParameters(resource: Resource, paging: 'page' | 'offset'): Json[] {
  const paged = paging === 'page' ? [ref('parameters', 'page')] : [ref('parameters', 'offset')];
  return [...paged, ref('parameters', 'limit'), orderingParameter(resource), ref('parameters', 'format'), ref('parameters', 'filter'), ref('parameters', 'exclude'), ref('parameters', 'q_filter1'), ...filterParameters(resource)];
}

/** The body of a write: the stored fields the caller may set (not the id, not the service's own). */
function writeSchema(resource: Resource, partial: boolean): Json {
  const service = new Set(['id', ...Object.values(resource.serviceFields ?? {})]);
  const fields = storedFields(resource).filter(([name]) => !service.has(name));
  const schema: Json = { type: 'object', properties: Object.fromEntries(fields.map(([name, field]) => [name, writeFieldSchema(field)])) };
  const required = fields.filter(([, field]) => field.required).map(([name]) => name);
  if (!partial && required.length) schema.required = required;
  return schema;
}

function writeFieldSchema(field: StoredField): Json {
  const schema = plain(field.schema);
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.min !== undefined) schema.minimum = field.min;
  if (field.max !== undefined) schema.maximum = field.max;
  if (field.choices) schema.enum = [...field.choices, ...(field.nullable ? [null] : []), ...(field.blank && field.type === 'text' ? [''] : [])];
  if (field.default !== undefined && typeof field.default !== 'function') schema.default = field.default;
  if (field.references) schema.description = `The id of a ${field.references}.`;
  if (field.codelist) schema.description = `A code of the IATI ${field.codelist} code list.`;
  return schema;
}

/** Foreign keys say which table they lead to (`x-references`): the explorer links them. */
function withReferences(resource: Resource, schema: Json): Json {
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

function withTitles(resource: Resource, schema: Json): Json {
  for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) property.title = fieldTitle(resource, name);
  return schema;
}

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), ref('responses', String(status))]));

function resourcePaths(resource: Resource): Record<string, Json> {
  const tags = [resource.name];
  const writable = !resource.readOnly;
  const name = resource.name;
  const list: Json = {
    get: {
      tags, operationId: `${name}_list`, summary: `${resource.title} list`, ...(resource.description ? { description: resource.description } : {}),
      parameters: listParameters(resource, 'page'),
      responses: { 200: { description: 'One page of the records the caller may see.', content: LIST_CONTENT(ref('schemas', `${name}_page`)) }, ...errors(400, 403, 404, 429, 503) },
    },
  };
  if (writable) {
    list.post = {
      tags, operationId: `${name}_create`, summary: `Create a ${resource.title.toLowerCase()}`, security: [{ token: [] }],
      requestBody: { required: true, content: { ...jsonContent(ref('schemas', `${name}_write`)), 'application/x-www-form-urlencoded': { schema: ref('schemas', `${name}_write`) } } },
      responses: { 201: { description: 'Created.', content: jsonContent(ref('schemas', name)) }, ...errors(400, 403, 413, 415, 503) },
    };
  }
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
  const detail: Json = {
    parameters: [id],
    get: {
      tags, operationId: `${name}_read`, summary: `One ${resource.title.toLowerCase()}`, parameters: [ref('parameters', 'format')],
      responses: { 200: { description: 'The record.', content: LIST_CONTENT(ref('schemas', name)) }, ...errors(403, 404, 503) },
    },
  };
  if (writable) {
    const change = (method: string, partial: boolean) => ({
      tags, operationId: `${name}_${method}`, summary: `${partial ? 'Change some fields of' : 'Replace'} a ${resource.title.toLowerCase()}`, security: [{ token: [] }],
      requestBody: { required: true, content: jsonContent(ref('schemas', `${name}_${partial ? 'patch' : 'write'}`)) },
      responses: { 200: { description: 'The record as stored.', content: jsonContent(ref('schemas', name)) }, ...errors(400, 403, 404, 413, 415, 503) },
    });
    detail.put = change('update', false);
    detail.patch = change('partial_update', true);
    detail.delete = { tags, operationId: `${name}_delete`, summary: `Delete a ${resource.title.toLowerCase()}`, security: [{ token: [] }], responses: { 204: { description: 'Deleted.' }, ...errors(403, 404, 503) } };
  }
  const legacy = {
    get: {
      tags, operationId: `${name}_legacy_list`, summary: `${resource.title} list, the older offset interface`,
      parameters: listParameters(resource, 'offset'),
      responses: { 200: { description: 'The records from `offset` on.', content: LIST_CONTENT(ref('schemas', `${name}_legacy_page`)) }, ...errors(400, 403, 503) },
    },
  };
  return { [`/rest/v1/${name}/`]: list, [`/rest/v1/${name}/{id}/`]: detail, [`/api/v1/${name}/`]: legacy };
}

function reportPath(report: ReportDownload): Json {
  const formats = formatsOf(report);
  const content = Object.fromEntries(formats.map((format) => [MEDIA_TYPES[format].type, { schema: { type: 'string', contentMediaType: MEDIA_TYPES[format].type } }]));
  const date = (name: string, what: string) => ({ name, in: 'query', required: false, description: `${what} of the reported period (YYYY-MM-DD).`, schema: { type: 'string', format: 'date' } });
  const parameters: Json[] = [
    { name: 'id', in: 'path', required: true, description: `The ${report.scope}'s id.`, schema: { type: 'integer', minimum: 1 } },
    { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: formats } },
    date(report.dates[0], 'Start'),
    date(report.dates[1], 'End'),
    { name: 'comment', in: 'query', required: false, description: 'Include the comments on updates.', schema: { type: 'boolean' } },
    { name: 'did', in: 'query', required: false, description: 'A download id, returned as a cookie once the file is ready.', schema: { type: 'string' } },
  ];
  if (formats.includes('pdf')) parameters.push({ name: 'show-html', in: 'query', required: false, description: 'The PDF report as an HTML page, to preview it.', schema: { type: 'boolean' } });
  return {
    get: {
      tags: ['reports'], operationId: `report_${report.scope}_${report.path.replace(/-/g, '_')}`, summary: `${report.path} (${report.scope})`, security: [{ token: [] }],
      parameters,
      responses: { 200: { description: 'The report, as an attachment.', content }, ...errors(400, 401, 404, 503) },
    },
  };
}

const number = { type: ['number', 'null'] };
const date = { type: ['string', 'null'], format: 'date' };
const PROJECT_RESULTS = {
  type: 'object',
  required: ['project', 'results'],
  properties: {
    project: { type: 'object', required: ['id', 'title', 'subtitle'], properties: { id: { type: 'integer' }, title: { type: 'string' }, subtitle: { type: 'string' } } },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['title', 'type', 'indicators'],
        properties: {
          title: { type: 'string' },
          type: { type: 'string' },
          indicators: {
            type: 'array',
            items: {
              type: 'object',
              required: ['title', 'measure', 'quantitative', 'periods'],
              properties: {
                title: { type: 'string' },
                measure: { type: 'string' },
                quantitative: { type: 'boolean' },
                periods: { type: 'array', items: { type: 'object', required: ['start', 'end', 'target', 'actual'], properties: { start: date, end: date, target: number, actual: number } } },
              },
            },
          },
        },
      },
    },
  },
};

const ERROR = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };
const FIELD_ERRORS = { type: 'object', description: 'Messages per field (or `non_field_errors`), or a `detail`.', additionalProperties: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] } };
const RESPONSES: Record<string, [string, Json]> = {
  400: ['A filter, page or body that cannot be used: a `detail`, or messages per field.', FIELD_ERRORS],
  401: ['Signing in is needed (report downloads).', ERROR],
  403: ['No credentials, a bad token, or no permission.', ERROR],
  404: ['No such record or page (or one the caller may not see), or an unknown format.', ERROR],
  413: ['The body is too large.', ERROR],
  415: ['The body is of a media type not accepted.', ERROR],
  429: ['Too many requests (when a rate limit is set): try again after Retry-After seconds.', ERROR],
  503: ['The database is away or the service overloaded: try again (Retry-After).', ERROR],
};

const PARAMETERS: Record<string, Json> = {
  page: { name: 'page', in: 'query', required: false, description: 'Page number, or `last`.', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { const: 'last' }] } },
  offset: { name: 'offset', in: 'query', required: false, description: 'Records to skip.', schema: { type: 'integer', minimum: 0 } },
  limit: { name: 'limit', in: 'query', required: false, description: `Records per page (default ${PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
  format: { name: 'format', in: 'query', required: false, description: 'The representation (else the Accept header; JSON by default; `api` is JSON).', schema: { type: 'string', enum: ['json', 'api', 'xml', 'csv'] } },
  filter: { name: 'filter', in: 'query', required: false, description: "Filters as a Python dictionary literal, e.g. `{'title__icontains':'water'}`.", schema: { type: 'string' } },
  exclude: { name: 'exclude', in: 'query', required: false, description: 'Records matching this dictionary are left out.', schema: { type: 'string' } },
  q_filter1: { name: 'q_filter1', in: 'query', required: false, description: 'Dictionaries `q_filter1`, `q_filter2`, … combined with OR.', schema: { type: 'string' } },
};

function build(): Json {
  const schemas: Record<string, Json> = { Error: ERROR, FieldErrors: FIELD_ERRORS };
  let paths: Record<string, Json> = {
    '/rest/v1/': { get: { tags: ['index'], operationId: 'index', summary: 'Every list, by name', responses: { 200: { description: 'The URL of each list.', content: jsonContent({ type: 'object', additionalProperties: { type: 'string', format: 'uri' } }) } } } },
  };
  for (const resource of RESOURCES) {
    schemas[resource.name] = withReferences(resource, plain(recordSchema(resource)));
    schemas[`${resource.name}_page`] = plain({ ...pageSchema(resource), properties: { ...pageSchema(resource).properties, results: { type: 'array', items: ref('schemas', resource.name) } } });
    schemas[`${resource.name}_legacy_page`] = plain({ ...legacySchema(resource), properties: { ...legacySchema(resource).properties, objects: { type: 'array', items: ref('schemas', resource.name) } } });
    if (!resource.readOnly) {
      schemas[`${resource.name}_write`] = withTitles(resource, writeSchema(resource, false));
      schemas[`${resource.name}_patch`] = withTitles(resource, writeSchema(resource, true));
    }
    paths = { ...paths, ...resourcePaths(resource) };
  }
  for (const report of REPORT_DOWNLOADS) paths[`/py-reports/${report.scope}/{id}/${report.path}/`] = reportPath(report);
  schemas.ProjectResults = PROJECT_RESULTS;
  paths['/explorer/api/names/{scope}/'] = {
    get: {
      tags: ['explorer'], operationId: 'explorer_names', summary: 'Projects or programs the caller may see, by title (the report form\'s pickers): the first 20',
      parameters: [
        { name: 'scope', in: 'path', required: true, schema: { type: 'string', enum: ['project', 'program'] } },
        { name: 'title', in: 'query', required: false, description: 'Text the title contains (case and accents ignored).', schema: { type: 'string' } },
      ],
      responses: {
        200: { description: 'How many match, and the first 20 by title.', content: jsonContent({ type: 'object', required: ['count', 'results'], properties: { count: { type: 'integer' }, results: { type: 'array', items: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } } } } }) },
        ...errors(400, 404, 503),
      },
    },
  };
  schemas.dimension_value = plain(recordSchema(DIMENSION_VALUES));
  schemas.dimension_value_page = plain({ ...pageSchema(DIMENSION_VALUES), properties: { ...pageSchema(DIMENSION_VALUES).properties, results: { type: 'array', items: ref('schemas', 'dimension_value') } } });
  paths['/explorer/api/dimension-values/'] = {
    get: {
      tags: ['explorer'], operationId: 'explorer_dimension_values', summary: "Disaggregation dimension values with their dimension's name (the charts' labels), paged and filtered as the lists are",
      parameters: listParameters(DIMENSION_VALUES, 'page'),
      responses: { 200: { description: 'One page of the values the caller may see.', content: jsonContent(ref('schemas', 'dimension_value_page')) }, ...errors(400, 404, 503) },
    },
  };
  paths['/explorer/api/projects/{id}/results/'] = {
    get: {
      tags: ['explorer'], operationId: 'explorer_project_results', summary: "A project's results: each indicator's target and actual per period (the explorer's results view)",
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      responses: { 200: { description: 'The results.', content: jsonContent(ref('schemas', 'ProjectResults')) }, ...errors(404, 503) },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'rsr-api',
      version: packageVersion(),
      description: 'Development-project reporting data (budgets, transactions, organisations, locations, results, custom fields, links, keywords, report definitions), wire-compatible with the version-1 REST interface of Akvo RSR. Every list is also at `/rest/v1/<name>.<format>` and answers `OPTIONS` with its field metadata. Filters follow foreign keys (`project__title__icontains=water`).',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    tags: [{ name: 'index' }, ...RESOURCES.map((resource) => ({ name: resource.name, description: resource.title })), { name: 'reports', description: 'Report downloads (signed-in callers)' }, { name: 'explorer', description: 'What the web explorer reads besides the lists' }],
    paths,
    components: {
      schemas,
      parameters: PARAMETERS,
      responses: Object.fromEntries(Object.entries(RESPONSES).map(([status, [description, schema]]) => [status, { description, content: jsonContent(schema) }])),
      securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key, sent as `Authorization: Token <key>`.' } },
    },
  };
}

let built: Json | undefined;

/** The document (made on first use: it reads every declaration). */
export function openApiDocument(): Json {
  return (built ??= build());
}
