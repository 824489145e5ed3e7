/**
 * The API described for people and programs: the OpenAPI document at /rest/v1/openapi.json
 * (openapi/document.ts) and Swagger UI at /docs/, served from the package itself (no CDN: it works
 * offline and behind a firewall), with the page headers (page-security.ts).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi/document.ts';
import { securePages } from './page-security.ts';
import { representJson, send, type Representation } from './respond.ts';

/**
 * The one inline `<style>` Swagger UI makes: the colours of its own logo in the top bar (an SVG
 * React draws from swagger-ui-standalone-preset.js, before @fastify/swagger-ui puts its logo, an
 * image, in its place). Allowed by its hash; test/page-security.test.ts fails when an upgrade of
 * @fastify/swagger-ui changes it.
 */
export const SWAGGER_UI_STYLES = ['.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}'];

export async function registerDocs(app: FastifyInstance): Promise<void> {
  // The same bytes for every request: made once, compressed once per encoding.
  let document: Representation | undefined;
  app.get('/rest/v1/openapi.json', async (request, reply) => send(request, reply, (document ??= representJson(reply, openApiDocument()))));
  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument() as never } });
  // Swagger UI in a scope of its own: its pages and files carry the page headers (page-security.ts;
  // its page has no inline script), the document it reads as JSON or YAML does not.
  await app.register(async (ui) => {
    await securePages(ui, (url) => url === '/docs/json' || url === '/docs/yaml', SWAGGER_UI_STYLES);
    await ui.register(swaggerUi, {
      routePrefix: '/docs',
      // No call to the public validator.swagger.io badge: nothing leaves the machine.
      uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0, tryItOutEnabled: true } as never,
    });
  });
}
