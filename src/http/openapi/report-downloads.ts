/**
 * The report downloads (`/py-reports/<scope>/{id}/<report>/`), one path each from the reports'
 * catalogue: the formats it is made in, its period and options, and the file it answers with.
 */
import { formatsOf, MEDIA_TYPES, REPORT_DOWNLOADS, type ReportDownload } from '../../reports/catalogue.ts';
import { ref, type Json } from './json.ts';
import { errors, headers, NOT_MODIFIED } from './responses.ts';
import { TOKEN } from './security.ts';

export const REPORTS_TAG = 'report downloads';

function reportPath(report: ReportDownload): Json {
  const formats = formatsOf(report);
  const content: Json = Object.fromEntries(formats.map((format) => [MEDIA_TYPES[format].type, { schema: { type: 'string', contentMediaType: MEDIA_TYPES[format].type } }]));
  if (formats.includes('pdf')) content['text/html'] = { schema: { type: 'string' } };
  const date = (name: string, what: string) => ({ name, in: 'query', required: false, description: `${what} of the reported period (YYYY-MM-DD).`, schema: { type: 'string', format: 'date' } });
  const parameters: Json[] = [
    { name: 'id', in: 'path', required: true, description: `The ${report.scope}'s id.`, schema: { type: 'integer', minimum: 1 } },
    { name: 'format', in: 'query', required: true, description: 'The kind of file.', schema: { type: 'string', enum: formats } },
    date(report.dates[0], 'Start'),
    date(report.dates[1], 'End'),
    { name: 'comment', in: 'query', required: false, description: 'Include the comments on updates.', schema: { type: 'boolean' } },
    { name: 'did', in: 'query', required: false, description: 'A download id, returned as a cookie once the file is ready.', schema: { type: 'string' } },
  ];
  if (formats.includes('pdf')) parameters.push({ name: 'show-html', in: 'query', required: false, description: 'The PDF report as an HTML page (`text/html`), to preview it.', schema: { type: 'boolean' } });
  parameters.push(ref('parameters', 'if_none_match'));
  return {
    get: {
      tags: [REPORTS_TAG], operationId: `report_${report.scope}_${report.path.replace(/-/g, '_')}`, summary: `${report.path} (${report.scope})`, security: TOKEN,
      description: `The ${report.path} report of a ${report.scope} the caller may see, as a file in one of its formats (${formats.join(', ')}), made on a report thread (429 or 503 while too many are being made). Each file is made anew and holds the time it was made: its ETag changes from one request to the next.`,
      parameters,
      responses: { 200: { description: 'The report, as an attachment.', headers: headers('Content-Disposition', 'ETag', 'Vary', 'Set-Cookie'), content }, ...NOT_MODIFIED, ...errors(400, 401, 403, 404, 429, 503) },
    },
  };
}

/** Every report download's path, in the catalogue's order. */
export function reportPaths(): Record<string, Json> {
  return Object.fromEntries(REPORT_DOWNLOADS.map((report) => [`/py-reports/${report.scope}/{id}/${report.path}/`, reportPath(report)]));
}
