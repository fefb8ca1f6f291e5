import Fastify from 'fastify';
import type { ApiApp, ApiContext } from '../../src/api/route.js';
import { apiRoutes } from '../../src/api/server.js';

/** The URL of every GET route the API registers (`/api/v2/transactions/:transaction_hash/raw-trace`, …). */
export function servedPaths(): string[] {
  const app = Fastify();
  const urls: string[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method === 'GET' || (Array.isArray(route.method) && route.method.includes('GET'))) urls.push(route.url);
  });
  // Registering reads nothing from the context: handlers use it only when a request comes.
  const context = { db: null, indexerStatus: null, instanceTransfersSuccessorUrl: null } as unknown as ApiContext;
  for (const route of apiRoutes) route(app as unknown as ApiApp, context);
  return urls;
}
