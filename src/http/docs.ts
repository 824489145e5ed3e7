/**
 * The API described for people and programs: the OpenAPI document at /rest/v1/openapi.json
 * (openapi/document.ts) and Swagger UI at /docs/, served from the package itself (no CDN: it works
 * offline and behind a firewall).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi/document.ts';
import { representJson, send, type Representation } from './respond.ts';

export async function registerDocs(app: FastifyInstance): Promise<void> {
  // The same bytes for every request: made once, compressed once per encoding.
  let document: Representation | undefined;
  app.get('/rest/v1/openapi.json', async (request, reply) => send(request, reply, (document ??= representJson(reply, openApiDocument()))));
  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument() as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No call to the public validator.swagger.io badge: nothing leaves the machine.
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0, tryItOutEnabled: true } as never,
  });
}
