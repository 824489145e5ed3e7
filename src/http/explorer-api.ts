/**
 * What the explorer reads besides the API's lists, under /explorer/api/: a project's results
 * (from the model the results reports are made from), names of projects and programs for the
 * report form's pickers, and the names of disaggregation dimensions and values (the charts'
 * labels). All are read as the caller may see them, and documented in openapi/explorer-paths.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { lastValue } from '../query/params.ts';
import { dateRange, todayIn } from '../reports/params.ts';
import { projectResults } from '../reports/project-results.ts';
import { Type } from '@sinclair/typebox';
import { asc, derived, fk, id, one, ownedByProject, resource, text, type Resource } from '../resources/define.ts';
import { program as programEntity, project as projectEntity } from '../resources/support.ts';
import { notFound } from './errors.ts';
import { listQuery } from './read-handlers.ts';
import { representJson, send } from './respond.ts';
import { queryPairs } from './url.ts';

/** A number where the text is one (targets and actual values are stored as text). */
const numeric = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null);

/**
 * GET /explorer/api/projects/<id>/results/: a project's results for the explorer's results view,
 * from the model the results reports are made from (same visibility: a project the caller may
 * not see is 404): per indicator, each period's target and actual.
 */
export async function projectResultsData(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const id = /^\d{1,9}$/.test(request.params.id) ? Number(request.params.id) : 0;
  const { reader, timeZone } = request.server.services;
  const lookup = reader.lookup(request.caller);
  const [project] = (await lookup.visible('project', [id])).has(id) ? await lookup.byColumn('project', 'id', [id]) : [];
  if (!project) throw notFound();
  const today = todayIn(timeZone);
  const model = await projectResults(project, { lookup, caller: request.caller, timeZone, today, range: dateRange(undefined, undefined, today), comments: false });
  return send(request, reply, representJson(reply, {
    project: { id: project.id, title: project.title, subtitle: project.subtitle ?? '' },
    results: model.results.map((result) => ({
      title: result.title,
      type: result.type,
      indicators: result.indicators.map((indicator) => ({
        title: indicator.title,
        measure: indicator.measure,
        quantitative: indicator.quantitative,
        periods: indicator.periods.map((period) => ({ start: period.start, end: period.end, target: numeric(period.target), actual: numeric(period.actual) })),
      })),
    })),
  }));
}

/**
 * Projects and programs by title, for the report form's pickers. They are no lists of the API,
 * but are read as lists are: through the same visibility (a program is seen where its lead
 * project is), filters and paging.
 */
const NAMED: Readonly<Record<string, Resource>> = {
  project: resource({ name: 'project', title: 'Project', visibility: ownedByProject(), fields: projectEntity.fields }),
  program: resource({ name: 'program', title: 'Program', visibility: ownedByProject('id'), fields: programEntity.fields }),
};
const NAMES_SHOWN = 20;

/** GET /explorer/api/names/<project|program>/?title=<text>: the first 20 the caller may see whose title contains the text. */
export async function names(request: FastifyRequest<{ Params: { scope: string } }>, reply: FastifyReply) {
  const named = Object.hasOwn(NAMED, request.params.scope) ? NAMED[request.params.scope] : undefined;
  if (!named) throw notFound();
  const { filters } = listQuery(named, [['title__icontains', lastValue(queryPairs(request), 'title') ?? '']], request.caller);
  const { reader } = request.server.services;
  const count = await reader.count(named, request.caller, filters);
  const rows = count ? await reader.page(named, request.caller, { order: [asc('title'), asc('id')], pinned: false, limit: NAMES_SHOWN, offset: 0 }, count, filters) : [];
  return send(request, reply, representJson(reply, { count, results: rows.map((row) => ({ id: row.id, title: row.title })) }));
}

/**
 * GET /explorer/api/dimension-values/: disaggregation dimension values with their dimension's
 * name (`Sex: Female`), which the API's disaggregation targets name by id only. A list as the
 * API's are (paging, `name__project=<id>` and the other filters, visibility through the project).
 */
export const DIMENSION_VALUES: Resource = resource({
  name: 'dimension_value',
  title: 'Dimension value',
  table: 'indicator_dimension_value',
  visibility: ownedByProject('name', 'project'),
  fields: {
    id: id(),
    name: fk('indicator_dimension_name', { required: true }),
    dimension: derived(Type.String(), (row, ctx, related) => related.dimension?.name ?? ''),
    value: text({ maxLength: 100 }),
  },
  related: { dimension: one('name', 'indicator_dimension_name') },
});
