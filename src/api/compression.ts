import compress from '@fastify/compress';
import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/**
 * The compression the API applies, from `npm run bench:compression` (bench/README.md, "Compression"):
 * brotli at quality 4 leaves a 77 KB E2 page at 4.3 KB for about 0.2 to 0.3 ms of CPU, no more than
 * gzip's default and smaller, where quality 11 takes 65 ms for 0.6 KB less. Under 1 KB (an empty page)
 * compression saves nothing or grows the body.
 */
export const compressionSettings = { brotliQuality: 4, gzipLevel: constants.Z_DEFAULT_COMPRESSION, thresholdBytes: 1024 } as const;

/** gzip and brotli when the client accepts them (brotli preferred); identity otherwise. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: compressionSettings.thresholdBytes,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: compressionSettings.brotliQuality } },
    zlibOptions: { level: compressionSettings.gzipLevel },
  });
}
