import compress from '@fastify/compress';
import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/**
 * The compression the API applies, from `npm run bench:compression` (bench/README.md, "Compression"):
 * brotli at quality 4 takes about as much CPU per answer as gzip's default for smaller bodies, where 11
 * costs ten to thirty times more; below the threshold, the bytes saved do not pay for the work and the
 * header.
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
