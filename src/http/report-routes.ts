/**
 * The report downloads under /py-reports/ (spec/reports.md): signed-in callers only, a format
 * the report offers, a project, organisation or program the caller may see; the file as an
 * attachment named after the day, the id and the report.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lastValue } from '../query/params.ts';
import { formatsOf, MEDIA_TYPES, produce, REPORT_DOWNLOADS, type ReportDownload, type ReportFormat } from '../reports/catalogue.ts';
import { PREVIEW_STYLE } from '../reports/html/render.ts';
import { dateRange, downloadCookie, reportBoolean, reportFilename, todayIn } from '../reports/params.ts';
import { ReportsBusy, RETRY_AFTER_SECONDS, TooManyReports, type MadeReport, type ReportPool } from '../reports/pool.ts';
import { callerKey } from './callers.ts';
import { badReportFormat, notFound, reportNeedsSignIn, reportsBusy, throttled } from './errors.ts';
import { pageHeaders } from './page-security.ts';
import { representFile, send, sendStream } from './respond.ts';
import { queryPairs } from './url.ts';

const MAX_ID = 2 ** 31 - 1;
/** A preview is a page: it carries the page headers, its stylesheet allowed by its hash (a report file carries none). */
const PREVIEW_HEADERS = pageHeaders([PREVIEW_STYLE]);

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
  if (format === undefined || !formatsOf(report).includes(format as ReportFormat)) throw badReportFormat(format);
  if (!/^[0-9]+$/.test(request.params.id) || Number(request.params.id) > MAX_ID) throw notFound();
  const id = Number(request.params.id);
  const { reader, timeZone } = request.server.services;
  const lookup = reader.lookup(request.caller);
  // The scope names the table; who may see a record of it is store/visibility.ts's to say.
  const [target] = (await lookup.visible(report.scope, [id])).has(id) ? await lookup.byColumn(report.scope, 'id', [id]) : [];
  if (!target) throw notFound();
  const today = todayIn(timeZone);
  const range = dateRange(lastValue(pairs, report.dates[0]), lastValue(pairs, report.dates[1]), today);
  // A client that goes away stops a long report (the organisation export reads batch by batch).
  const abandoned = new AbortController();
  reply.raw.once('close', () => abandoned.abort());
  const started = performance.now();
  // Until the last byte is sent: a streamed export is made as it is sent.
  reply.raw.once('finish', () => request.server.services.metrics.reportSeconds.observe({ report: report.path, format }, (performance.now() - started) / 1000));
  const comments = reportBoolean(lastValue(pairs, 'comment'));
  const preview = format === 'pdf' && reportBoolean(lastValue(pairs, 'show-html'));
  const { reports } = request.server.services;
  const { body, type } = reports
    ? await madeOnThread(request, reports, { scope: report.scope, path: report.path, format: format as ReportFormat, id, caller: request.caller, timeZone, today, range, comments, preview }, abandoned.signal)
    : await produce(report, format as ReportFormat, target, { lookup, caller: request.caller, timeZone, today, range, comments, signal: abandoned.signal }, preview);
  const cookie = downloadCookie(lastValue(pairs, 'did'));
  const headers: Record<string, string> = { 'content-type': type, ...(cookie ? { 'set-cookie': cookie } : {}) };
  if (preview) Object.assign(headers, PREVIEW_HEADERS);
  else headers['content-disposition'] = `attachment; filename="${reportFilename(today, id, report.path, MEDIA_TYPES[format as ReportFormat].extension)}"`;
  if (Buffer.isBuffer(body)) return send(request, reply, representFile(reply, body, headers));
  return sendStream(reply, body, headers);
}

/** The report made on the pool's threads; a caller or a crowd past the pool's limits is refused. */
async function madeOnThread(request: FastifyRequest, reports: ReportPool, task: Parameters<ReportPool['make']>[0], signal: AbortSignal): Promise<MadeReport> {
  try {
    // Counted for the caller as every per-caller limit counts (callers.ts): a download needs a key, so per user.
    return await reports.make(task, callerKey(request), signal);
  } catch (error) {
    if (error instanceof TooManyReports) {
      request.server.services.metrics.callerLimited.inc({ limit: 'reports' });
      throw throttled(RETRY_AFTER_SECONDS);
    }
    if (error instanceof ReportsBusy) throw reportsBusy(RETRY_AFTER_SECONDS);
    throw error;
  }
}

export function registerReports(app: FastifyInstance): void {
  for (const report of REPORT_DOWNLOADS) {
    app.get(`/py-reports/${report.scope}/:id/${report.path}/`, { config: { report } }, download);
  }
}
