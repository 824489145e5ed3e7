/**
 * What the web explorer reads besides the lists (/explorer/api/, explorer-api.ts): the names
 * its pickers search, the disaggregation dimension values its charts label, a project's results
 * — their paths, and the schemas of their answers.
 */
import { DIMENSION_VALUES } from '../explorer-api.ts';
import { pageSchema, recordSchema } from '../schemas.ts';
import { jsonContent, plain, ref, type Json } from './json.ts';
import { listParameters } from './parameters.ts';
import { errors, headers, LIST_CONTENT, NOT_MODIFIED } from './responses.ts';
import { OPTIONAL_TOKEN } from './security.ts';

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

export function explorerPaths(): Record<string, Json> {
  const tags = ['explorer'];
  const ok = (description: string, schema: Json) => ({ 200: { description, headers: headers('ETag', 'Vary'), content: jsonContent(schema) }, ...NOT_MODIFIED });
  return {
    '/explorer/api/names/{scope}/': {
      get: {
        tags, operationId: 'explorer_names', summary: 'Projects or programs the caller may see, by title (the report form\'s pickers): the first 20', security: OPTIONAL_TOKEN,
        description: 'How many projects (or programs) the caller may see have a title containing the text (case and accents ignored), and the first 20 of them by title.',
        parameters: [
          { name: 'scope', in: 'path', required: true, description: 'Projects or programs.', schema: { type: 'string', enum: ['project', 'program'] } },
          { name: 'title', in: 'query', required: false, description: 'Text the title contains (case and accents ignored).', schema: { type: 'string' } },
          ref('parameters', 'if_none_match'),
        ],
        responses: {
          ...ok('How many match, and the first 20 by title.', { type: 'object', required: ['count', 'results'], properties: { count: { type: 'integer' }, results: { type: 'array', items: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } } } } }),
          ...errors(400, 403, 404, 429, 503),
        },
      },
    },
    '/explorer/api/dimension-values/': {
      get: {
        tags, operationId: 'explorer_dimension_values', summary: "Disaggregation dimension values with their dimension's name (the charts' labels), paged and filtered as the lists are", security: OPTIONAL_TOKEN,
        description: 'Disaggregation dimension values of the projects the caller may see, each with the name of its dimension, which the disaggregation targets name by id only.',
        parameters: listParameters(DIMENSION_VALUES, 'page'),
        // Answered as the lists are (read-handlers.ts#list): JSON, XML or CSV.
        responses: { 200: { description: 'One page of the values the caller may see.', headers: headers('ETag', 'Vary', 'Allow', 'Content-Disposition'), content: LIST_CONTENT(ref('schemas', 'dimension_value_page')) }, ...NOT_MODIFIED, ...errors(400, 403, 404, 429, 503) },
      },
    },
    '/explorer/api/projects/{id}/results/': {
      get: {
        tags, operationId: 'explorer_project_results', summary: "A project's results: each indicator's target and actual per period (the explorer's results view)", security: OPTIONAL_TOKEN,
        description: "A project's results, read as the results reports read them (404 for a project the caller may not see).",
        parameters: [{ name: 'id', in: 'path', required: true, description: "The project's id.", schema: { type: 'integer', minimum: 1 } }, ref('parameters', 'if_none_match')],
        responses: { ...ok('The results.', ref('schemas', 'ProjectResults')), ...errors(403, 404, 429, 503) },
      },
    },
  };
}

/** The schemas of what the explorer's paths answer with (components.schemas). */
export function explorerSchemas(): Record<string, Json> {
  return {
    ProjectResults: PROJECT_RESULTS,
    dimension_value: plain(recordSchema(DIMENSION_VALUES)),
    dimension_value_page: plain({ ...pageSchema(DIMENSION_VALUES), properties: { ...pageSchema(DIMENSION_VALUES).properties, results: { type: 'array', items: ref('schemas', 'dimension_value') } } }),
  };
}
