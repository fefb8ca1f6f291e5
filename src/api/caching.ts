import etag from '@fastify/etag';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * How long clients and CDNs may reuse an answer. Data moves with each new block, so most answers are
 * kept briefly; an answer a route marks final (see `cacheAsFinal`) no reorg that Sextant follows can
 * change; a malformed request stays malformed; an outage or a rate limit is never kept.
 */
const policies = {
  moving: 'public, max-age=5',
  final: 'public, max-age=86400',
  malformed: 'public, max-age=3600',
  never: 'no-store',
} as const;

function cacheControl(status: number): string {
  if (status >= 500 || status === 429) return policies.never;
  if (status === 400 || status === 422) return policies.malformed;
  return policies.moving;
}

/** Marks a successful answer as final: what it shows lies deeper than any reorg Sextant follows. */
export function cacheAsFinal(reply: FastifyReply): void {
  void reply.header('cache-control', policies.final);
}

/**
 * Strong ETags (a hash of the body) with `304 Not Modified` on a matching `If-None-Match`, and the
 * Cache-Control of each answer. The tag is that of the JSON body before compression, whichever
 * encoding carries it: the body is one, only its transfer differs, and no route serves ranges.
 */
export async function registerCaching(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (_request, reply, payload) => {
    // A route's final mark holds for its answer only, not for an error it ends in.
    if (!reply.hasHeader('cache-control') || reply.statusCode >= 300) void reply.header('cache-control', cacheControl(reply.statusCode));
    // The body encoded once: the ETag's hash, the compression and the socket would each encode a string again.
    return typeof payload === 'string' ? Buffer.from(payload) : payload;
  });
  await app.register(etag);
}
