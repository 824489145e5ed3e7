/** Secrets kept out of what the service prints and logs: passwords in URLs, keys in query strings. */

const SECRET_PARAMETER = /([?&](?:[\w-]*(?:password|passwd|token|secret|key|signature|auth)[\w-]*)=)[^&#]*/gi;

/** A URL as it may be shown: a password in it, and any query parameter that names a secret, as `***`. */
export function maskUrl(raw: string): string {
  return raw.replace(/^([a-z][\w+.-]*:\/\/[^/:@]*:)[^@/]*@/i, '$1***@').replace(SECRET_PARAMETER, '$1***');
}

/** Paths pino blanks in every log line, whatever logged them. */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie',
  'password', '*.password', 'token', '*.token', 'key', '*.key', 'authorization', '*.authorization',
];
