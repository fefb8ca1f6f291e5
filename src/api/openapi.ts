import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { liveSocketPath } from './live/socket-route.js';
import { version } from './routes/backend-version.js';

/**
 * The API's OpenAPI 3 document, generated from the schemas the routes declare (their parameters, and
 * the response schemas their answers are already serialized with, so documenting them changes no
 * answer), and a reference page for people that loads nothing from another host.
 */

/** The document, as JSON. Outside /api: every path there is one of Blockscout's data endpoints. */
export const openApiDocumentPath = '/openapi.json';
/** The reference page (Swagger UI, its assets served from node_modules): where Blockscout's frontend has its API docs. */
export const apiReferencePath = '/api-docs';

/** Registers the document and the page; call before the routes, which the document collects as they register. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Sextant',
        version,
        description: "Blockscout's REST API v2, served by Sextant from its index of the chain.",
      },
    },
    // The websocket is Phoenix Channels over one GET upgrade: not a REST operation.
    transform: ({ schema, url }) => ({ schema: url === liveSocketPath ? Object.assign({}, schema, { hide: true }) : schema, url }),
  });
  await app.register(swaggerUi, { routePrefix: apiReferencePath, uiConfig: { deepLinking: true } });
  app.get(openApiDocumentPath, { schema: { hide: true } }, async () => app.swagger());
}
