import Fastify from 'fastify';
import type { ApiApp, ApiContext } from '../../src/api/route.js';
import { apiRoutes } from '../../src/api/server.js';

/** A GET route the API registers: its URL and the names of the parameters its schema declares. */
export interface ServedRoute {
  /** `/api/v2/transactions/:transaction_hash/raw-trace`, … */
  url: string;
  params: string[];
  query: string[];
  /** The query parameters whose schema is an integer. */
  integerQuery: string[];
}

type Properties = Record<string, { type?: unknown }>;
const properties = (schema: unknown): Properties => (schema as { properties?: Properties } | undefined)?.properties ?? {};
const propertyNames = (schema: unknown): string[] => Object.keys(properties(schema));
const integerNames = (schema: unknown): string[] =>
  Object.entries(properties(schema)).flatMap(([name, property]) => (property.type === 'integer' ? [name] : []));

/** Every GET route the API registers. */
export function servedRoutes(): ServedRoute[] {
  const app = Fastify();
  const routes: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method === 'GET' || (Array.isArray(route.method) && route.method.includes('GET'))) {
      const { params, querystring } = route.schema ?? {};
      routes.push({
        url: route.url,
        params: propertyNames(params),
        query: propertyNames(querystring),
        integerQuery: integerNames(querystring),
      });
    }
  });
  // Registering reads nothing from the context: handlers use it only when a request comes.
  const context = { db: null, indexerStatus: null, instanceTransfersSuccessorUrl: null } as unknown as ApiContext;
  for (const route of apiRoutes) route(app as unknown as ApiApp, context);
  return routes;
}

/** The URL of every GET route the API registers. */
export const servedPaths = (): string[] => servedRoutes().map((route) => route.url);

/** The URL of every route that takes a POST only: a form to submit. */
export function postOnlyPaths(): string[] {
  const app = Fastify();
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const known = methods.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) known.add(method);
    methods.set(route.url, known);
  });
  const context = { db: null, indexerStatus: null, instanceTransfersSuccessorUrl: null } as unknown as ApiContext;
  for (const route of apiRoutes) route(app as unknown as ApiApp, context);
  return [...methods].filter(([, known]) => known.has('POST') && !known.has('GET')).map(([url]) => url);
}
