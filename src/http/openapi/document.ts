/**
 * The OpenAPI 3.1 description of the service, made from the declarations the routes are made
 * from: each resource's record schema (the one its answers are serialized by), its orderable
 * fields, the filters and lookups its fields take, who may write it and what a write must hold
 * (the declarations validation reads); the report downloads from their catalogue; the errors
 * from the error catalogue's shapes. Built once, served as it is; checked by Spectral, Redocly
 * and a client generated from it (test/openapi-tools.test.ts).
 *
 * This file assembles the document (info, servers, tags, paths, components) from the parts the
 * other files of this folder make: shapes.ts (records as shown), write-schemas.ts (what a write
 * must hold), parameters.ts (filters, ordering, paging), responses.ts (headers, errors, 304),
 * security.ts (the token), operations.ts (a resource's paths), report-downloads.ts and
 * explorer-paths.ts; json.ts holds the pieces they share.
 */
import type { Resource } from '../../resources/define.ts';
import { RESOURCES } from '../../resources/index.ts';
import { packageVersion } from '../../version.ts';
import { legacySchema, pageSchema, recordSchema } from '../schemas.ts';
import { explorerPaths, explorerSchemas } from './explorer-paths.ts';
import { jsonContent, plain, ref, type Json } from './json.ts';
import { FIELD_METADATA, METADATA, resourcePaths } from './operations.ts';
import { PARAMETERS } from './parameters.ts';
import { REPORTS_TAG, reportPaths } from './report-downloads.ts';
import { ERROR, errors, FIELD_ERRORS, headers, HEADERS, NOT_MODIFIED, responseComponents } from './responses.ts';
import { OPTIONAL_TOKEN, SECURITY_SCHEMES } from './security.ts';
import { withReferences, withRsrShapes } from './shapes.ts';
import { writeSchema } from './write-schemas.ts';

/** A resource's component schemas: its record, its pages, and (when writable) its write bodies. */
function schemasOf(resource: Resource): Record<string, Json> {
  const name = resource.name;
  const items = { type: 'array', items: ref('schemas', name) };
  const schemas: Record<string, Json> = {
    [name]: withReferences(resource, withRsrShapes(resource, plain(recordSchema(resource)))),
    [`${name}_page`]: plain({ ...pageSchema(resource), properties: { ...pageSchema(resource).properties, results: items } }),
    [`${name}_legacy_page`]: plain({ ...legacySchema(resource), properties: { ...legacySchema(resource).properties, objects: items } }),
  };
  if (!resource.readOnly) {
    schemas[`${name}_write`] = writeSchema(resource, 'create');
    schemas[`${name}_replace`] = writeSchema(resource, 'replace');
    schemas[`${name}_patch`] = writeSchema(resource, 'patch');
  }
  return schemas;
}

/** The API root: every list's URL. */
const INDEX = {
  get: {
    tags: ['index'], operationId: 'index', summary: 'Every list, by name', security: OPTIONAL_TOKEN,
    description: 'The URL of each list, by its name.',
    parameters: [ref('parameters', 'if_none_match')],
    responses: {
      200: { description: 'The URL of each list.', headers: headers('ETag', 'Vary'), content: jsonContent({ type: 'object', additionalProperties: { type: 'string', format: 'uri' } }) },
      ...NOT_MODIFIED,
      ...errors(403, 429, 503),
    },
  },
};

function build(): Json {
  let schemas: Record<string, Json> = { Error: ERROR, FieldErrors: FIELD_ERRORS, Metadata: METADATA, FieldMetadata: FIELD_METADATA };
  let paths: Record<string, Json> = { '/rest/v1/': INDEX };
  for (const resource of RESOURCES) {
    schemas = { ...schemas, ...schemasOf(resource) };
    paths = { ...paths, ...resourcePaths(resource) };
  }
  paths = { ...paths, ...reportPaths() };
  schemas = { ...schemas, ...explorerSchemas() };
  paths = { ...paths, ...explorerPaths() };
  return {
    openapi: '3.1.0',
    info: {
      title: 'rsr-api',
      version: packageVersion(),
      description: 'Development-project reporting data (budgets, transactions, organisations, locations, results, custom fields, links, keywords, report definitions), wire-compatible with the version-1 REST interface of Akvo RSR. Every list and record is also at `/rest/v1/<name>.<format>` and `/rest/v1/<name>/<id>.<format>`, and answers `OPTIONS` with its field metadata. Filters follow foreign keys (`project__title__icontains=water`).',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    // Relative: the document describes the server it is read from, wherever that is deployed.
    servers: [{ url: '/' }],
    tags: [
      { name: 'index', description: 'The API root' },
      ...RESOURCES.map((resource) => ({ name: resource.name, description: resource.title })),
      { name: REPORTS_TAG, description: 'Report files (signed-in callers)' },
      { name: 'explorer', description: 'What the web explorer reads besides the lists' },
    ],
    paths,
    components: {
      schemas,
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: responseComponents(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

let built: Json | undefined;

/** The document (made on first use: it reads every declaration). */
export function openApiDocument(): Json {
  return (built ??= build());
}
