import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** How long a browser may reuse a preflight's answer before asking again, in seconds. */
const PREFLIGHT_MAX_AGE_S = 86_400;

/**
 * Cross-origin reads: any origin when `origins` is null (a public read API), else only those listed.
 * A preflight (`OPTIONS`) is answered `204` on every path, with or without the headers a browser
 * sends; a browser reads a refused origin from the absence of `Access-Control-Allow-Origin`.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[] | null): Promise<void> {
  await app.register(cors, {
    origin: origins === null ? '*' : [...origins],
    methods: ['GET', 'HEAD'],
    maxAge: PREFLIGHT_MAX_AGE_S,
    // Not a 400 in plain text for an OPTIONS without Origin: every answer that has a body is JSON.
    strictPreflight: false,
  });
}
