/**
 * The headers every page carries (the explorer and its files, the page offered on an API address,
 * /docs/ and its files, a report's HTML preview), so that a page holding a signed-in API key
 * defends itself: a Content-Security-Policy that runs only the service's own scripts and styles
 * (no inline code, no other host, no plugin, not framed, no <base>), `nosniff`, and no Referer
 * (a list's address carries its filters). What programs read (JSON, XML, CSV, report files) is
 * sent without them, byte for byte as before.
 *
 * Our own pages are representations made once (respond.ts): the headers are part of them, so
 * they cost nothing per request and a 304 carries them too. Swagger UI's routes are the
 * package's, so @fastify/helmet sets the same headers there (docs.ts), from the same options.
 */
import { createHash } from 'node:crypto';
import helmet, { type FastifyHelmetOptions, type fastifyHelmet } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

type Directives = Record<string, string[]>;

/** helmet's own policy writer: on the plugin at runtime (its types put it on the named export only). */
const { contentSecurityPolicy } = helmet as unknown as Pick<typeof fastifyHelmet, 'contentSecurityPolicy'>;

const DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** The CSP source of an inline `<style>` element's text: its SHA-256 (CSP Level 2). */
const styleHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const directivesWith = (styles: readonly string[]): Directives => ({ ...DIRECTIVES, 'style-src': [...DIRECTIVES['style-src'], ...styles.map(styleHash)] });

function helmetOptions(directives: Directives): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives },
    xContentTypeOptions: true,
    referrerPolicy: { policy: 'no-referrer' },
    // For browsers without `frame-ancestors`.
    xFrameOptions: { action: 'deny' },
    // Not helmet's other defaults: HSTS is the TLS terminator's to send (the service may be
    // reached over plain HTTP on a LAN), the cross-origin policies and the rest change nothing here.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: false,
    xXssProtection: false,
  };
}

/** The policy as helmet writes it (and checks it: a source without its quotes is refused). */
function policyText(directives: Directives): string {
  let text = '';
  const response = { setHeader: (_name: string, value: string) => void (text = value) };
  contentSecurityPolicy({ useDefaults: false, directives })({} as never, response as never, (error?: Error) => {
    if (error) throw error;
  });
  return text;
}

/**
 * A page's headers, as helmet (helmetOptions) sends them; `styles`: the text of inline `<style>`
 * elements the page holds, allowed by their hash.
 */
export function pageHeaders(styles: readonly string[] = []): Readonly<Record<string, string>> {
  return Object.freeze({
    'content-security-policy': policyText(directivesWith(styles)),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  });
}

/** The headers of a page without inline styles, and of the files pages load. */
export const PAGE_HEADERS = pageHeaders();

/**
 * The same headers (pageHeaders(styles)) on every route of `scope` (Swagger UI's), set by
 * @fastify/helmet; routes whose URL `isData` says is data a program reads (the document as JSON,
 * YAML) are left as they are. Its hooks are the scope's only: the API's routes do not pass them.
 */
export async function securePages(scope: FastifyInstance, isData: (url: string) => boolean, styles: readonly string[] = []): Promise<void> {
  scope.addHook('onRoute', (route) => {
    if (isData(route.url)) route.helmet = false;
  });
  await scope.register(helmet, helmetOptions(directivesWith(styles)));
}
