/** Secrets kept out of what the service prints and logs: passwords in URLs, keys in query strings. */

/** A parameter named a secret, alone or as the last word (`api_key`, `access-token`): not `keyword`. */
const SECRET_PARAMETER = /([?&](?:[\w-]*[_-])?(?:password|passwd|token|secret|key|apikey|signature|auth)=)[^&#]*/gi;

/** A URL as it may be shown: a password in it, and any query parameter that names a secret, as `***`. */
export function maskUrl(raw: string): string {
  if (!raw.includes('?') && !raw.includes('@')) return raw; // nothing to hide: most request paths
  return raw.replace(/^([a-z][\w+.-]*:\/\/[^/:@]*:)[^@/]*@/i, '$1***@').replace(SECRET_PARAMETER, '$1***');
}

/**
 * Paths pino blanks in every log line, whatever logged them (headers are never logged by the
 * service itself: this is for what a later change might log). Named paths, no wildcards: a
 * wildcard would walk every line logged.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie',
  'password', 'token', 'key', 'authorization',
];
