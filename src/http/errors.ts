/** Every error the API answers with, in one catalogue (http.md, "Errors"). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** Route headers (Allow) are left off where the original's router sends none. */
  readonly withRouteHeaders: boolean;

  constructor(status: number, body: Record<string, unknown>, withRouteHeaders = true) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.withRouteHeaders = withRouteHeaders;
  }
}

export const notFound = (withRouteHeaders = true) => new ApiError(404, { detail: 'Not found.' }, withRouteHeaders);
export const invalidPage = () => new ApiError(404, { detail: 'Invalid page.' });
export const methodNotAllowed = (method: string) => new ApiError(405, { detail: `Method "${method}" not allowed.` });
export const notAuthenticated = () => new ApiError(403, { detail: 'Authentication credentials were not provided.' });
export const permissionDenied = () => new ApiError(403, { detail: 'You do not have permission to perform this action.' });
export const unsupportedMediaType = (type: string) => new ApiError(415, { detail: `Unsupported media type "${type}" in request.` });
export const databaseUnavailable = () => new ApiError(503, { detail: 'Database unavailable' });
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
