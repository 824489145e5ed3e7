/**
 * Who may call: the one security scheme (a token in Authorization) and the two ways operations
 * take it, optionally (reads) or necessarily (writes, report downloads). Kept apart because
 * every kind of operation names one of them.
 */

/** Reads: anonymous, or with a token, which changes what they return (private projects' records, e-mail addresses, OPTIONS' actions). */
export const OPTIONAL_TOKEN = [{}, { token: [] }];
/** Writes and report downloads: a token only. */
export const TOKEN = [{ token: [] }];

/** components.securitySchemes. */
export const SECURITY_SCHEMES = {
  token: {
    type: 'apiKey', in: 'header', name: 'Authorization',
    description: 'An API key, sent as `Authorization: Token <key>` (make one with `rsr-api token create --email <address>`). Reads take it optionally: a signed-in caller sees what its roles allow (records of private and unpublished projects, e-mail addresses). Writes and report downloads need it. A key that is not valid is refused (403) on every request.',
  },
};
