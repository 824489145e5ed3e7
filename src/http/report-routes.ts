/**
 * The report downloads under /py-reports/ (spec/reports.md): signed-in callers only, a format
 * the report offers, a project, organisation or program the caller may see; the file as an
 * attachment named after the day, the id and the report.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lastValue } from '../query/params.ts';
import { MEDIA_TYPES, REPORT_DOWNLOADS, type ReportDownload, type ReportFormat } from '../reports/catalogue.ts';
import { dateRange, downloadCookie, reportBoolean, reportFilename, todayIn } from '../reports/params.ts';
import { badReportFormat, notFound, reportNeedsSignIn } from './errors.ts';
import { representFile, send } from './respond.ts';
import { queryPairs } from './url.ts';

const MAX_ID = 2 ** 31 - 1;

declare module 'fastify' {
  interface FastifyContextConfig {
    report?: ReportDownload;
  }
}

async function download(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const report = request.routeOptions.config.report!;
  if (request.caller.userId === null && !request.caller.isAdmin) throw reportNeedsSignIn();
  const pairs = queryPairs(request);
  const format = lastValue(pairs, 'format');
  const make = format !== undefined && Object.hasOwn(report.formats, format) ? report.formats[format as ReportFormat] : undefined;
  if (!make) throw badReportFormat(format);
  if (!/^[0-9]+$/.test(request.params.id) || Number(request.params.id) > MAX_ID) throw notFound();
  const id = Number(request.params.id);
  const { reader, timeZone } = request.server.services;
  const lookup = reader.lookup(request.caller);
  // The scope names the table; who may see a record of it is store/visibility.ts's to say.
  const [target] = (await lookup.visible(report.scope, [id])).has(id) ? await lookup.byColumn(report.scope, 'id', [id]) : [];
  if (!target) throw notFound();
  const today = todayIn(timeZone);
  const range = dateRange(lastValue(pairs, report.dates[0]), lastValue(pairs, report.dates[1]), today);
  const body = await make(target, { lookup, caller: request.caller, timeZone, today, range, comments: reportBoolean(lastValue(pairs, 'comment')) });
  const cookie = downloadCookie(lastValue(pairs, 'did'));
  const { type, extension } = MEDIA_TYPES[format as ReportFormat];
  return send(request, reply, representFile(reply, body, type, reportFilename(today, id, report.path, extension), cookie ? { 'set-cookie': cookie } : {}));
}

export function registerReports(app: FastifyInstance): void {
  for (const report of REPORT_DOWNLOADS) {
    app.get(`/py-reports/${report.scope}/:id/${report.path}/`, { config: { report } }, download);
  }
}
