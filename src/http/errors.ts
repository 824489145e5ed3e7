/** Every error the API answers with, in one catalogue (http.md, "Errors"). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** Route headers (Allow) are left off where the original's router sends none. */
  readonly withRouteHeaders: boolean;
  /** Headers of the error itself (Retry-After). */
  readonly headers: Record<string, string>;

  constructor(status: number, body: Record<string, unknown>, withRouteHeaders = true, headers: Record<string, string> = {}) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.withRouteHeaders = withRouteHeaders;
    this.headers = headers;
  }
}

export const notFound = (withRouteHeaders = true) => new ApiError(404, { detail: 'Not found.' }, withRouteHeaders);
export const invalidPage = () => new ApiError(404, { detail: 'Invalid page.' });
export const methodNotAllowed = (method: string) => new ApiError(405, { detail: `Method "${method}" not allowed.` });
export const notAuthenticated = () => new ApiError(403, { detail: 'Authentication credentials were not provided.' });
/** An `Authorization: Token` header that names no usable key (DRF's TokenAuthentication messages). */
export const badToken = (detail: 'Invalid token header. No credentials provided.' | 'Invalid token header. Token string should not contain spaces.' | 'User inactive or deleted.' | 'Invalid token.') =>
  new ApiError(403, { detail });
export const permissionDenied = () => new ApiError(403, { detail: 'You do not have permission to perform this action.' });
export const unsupportedMediaType = (type: string) => new ApiError(415, { detail: `Unsupported media type "${type}" in request.` });
/** The database is away (outage, restart, a write during an import): worth trying again in a second. */
/** A write the database's storage refused (engine.storageFault): nothing was saved, and it may be sent again later. */
export const storageFull = () => new ApiError(507, { detail: "The database's storage is full: nothing was saved. Try again later." }, false, { 'retry-after': '30' });
export const storageReadOnly = () => new ApiError(503, { detail: 'The database accepts no changes at the moment (read-only): nothing was saved. Try again later.' }, false, { 'retry-after': '30' });
export const databaseUnavailable = () => new ApiError(503, { detail: 'Database unavailable' }, false, { 'retry-after': '1' });
/** Shed while the event loop lags (guards.ts): the same request in a few seconds will likely do. */
export const overloaded = () => new ApiError(503, { detail: 'The service is overloaded; try again shortly.' }, false, { 'retry-after': '10' });
/** DRF's Throttled, word for word: 429 and when to come back. */
export const throttled = (seconds: number) =>
  new ApiError(429, { detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.` }, false, { 'retry-after': String(seconds) });
/** The report threads' line is full (reports/pool.ts). */
export const reportsBusy = (seconds: number) => new ApiError(503, { detail: 'Too many reports are being made; try again shortly.' }, false, { 'retry-after': String(seconds) });
/** As many whole-list downloads as a worker reads at once are being read (whole-lists.ts). */
export const downloadsBusy = (seconds: number) => new ApiError(503, { detail: 'Too many whole lists are being downloaded; try again shortly.' }, false, { 'retry-after': String(seconds) });
/** A statement stopped by STATEMENT_TIMEOUT_MS: this request asks more of the database than one answer may. */
export const queryTooLong = () => new ApiError(503, { detail: 'The query took too long and was stopped; narrow it with filters or a smaller page.' }, false);
/** GET /readyz while the service cannot answer: why, for the operator (and a probe's log). */
export const notReady = (reason: string) => new ApiError(503, { status: 'unavailable', reason }, false, { 'retry-after': '1', 'cache-control': 'no-store' });
/** Report downloads answer anonymous callers 401 (spec/reports.md), lists 403. */
export const reportNeedsSignIn = () => new ApiError(401, { detail: 'Authentication credentials were not provided.' });
/** A report's `format` that is none of its formats, or missing. */
export const badReportFormat = (format: string | undefined) =>
  new ApiError(400, { format: [format === undefined ? 'This field is required.' : `"${format}" is not a valid choice.`] });
export const serverError = () => new ApiError(500, { detail: 'A server error occurred.' }, false);
/** A filter or ordering the caller may not use, or that cannot be applied (decisions D8, D9). */
export const badFilter = (message: string) => new ApiError(400, { detail: message });
export const jsonParseError = (message: string) => new ApiError(400, { detail: `JSON parse error - ${message}` });
/** DRF's MultiPartParser refusal of a body it cannot split. */
export const multipartParseError = (message: string) => new ApiError(400, { detail: `Multipart form parse error - ${message}` });
export const notADictionary = (type: string) => new ApiError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] });
/** DRF's validation error body: each field's messages, in field order. */
export const invalidData = (problems: Record<string, string[]>) => new ApiError(400, problems);
/** Refusals of the HTTP framework itself (a body over the limit: 413), in the catalogue's shape. */
export const refusedByFramework = (status: number, message: string) => new ApiError(status, { detail: message });
export const invalidHost = () => new ApiError(400, { detail: 'Invalid host header.' }, false);

/**
 * Requests Node's HTTP parser refuses before any route sees them: too slow, headers (or URL)
 * too large, or not HTTP at all. Answered in the same `{"detail"}` shape as every other error.
 */
export function clientError(code: string | undefined): ApiError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(408, { detail: 'Request timeout.' }, false);
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError(431, { detail: 'Request header fields too large.' }, false);
  return new ApiError(400, { detail: 'Bad request.' }, false);
}
