import { negotiate } from '@fastify/accept-negotiator';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { compressionSettings } from './compression.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The encodings an answer is kept in, as @fastify/compress prefers them (compression.ts). */
const encodings = ['br', 'gzip'] as const;
type Encoding = (typeof encodings)[number];

/** A JSON answer serialized once, with its strong ETag and, past the threshold, each compressed body. */
export interface EncodedAnswer {
  json: Buffer;
  etag: string;
  /** Empty under the compression threshold, where compression saves nothing. */
  compressed: ReadonlyMap<Encoding, Buffer>;
}

/** The bytes an answer holds, identity and compressed bodies together: what it costs the process to keep. */
export const encodedSize = (answer: EncodedAnswer): number =>
  answer.json.length + [...answer.compressed.values()].reduce((sum, body) => sum + body.length, 0);

/** The ETag @fastify/etag gives the same body (sha1, base64, strong), so that a client's tag holds across both paths. */
const etagOf = (body: Buffer): string => `"${createHash('sha1').update(body).digest('base64')}"`;

/** A route's serialized answer, kept with its ETag and compressed bodies; compression runs on libuv's threads, off the event loop. */
export async function encodeAnswer(serialized: string | Buffer | ArrayBuffer): Promise<EncodedAnswer> {
  const body = Buffer.isBuffer(serialized)
    ? serialized
    : typeof serialized === 'string'
      ? Buffer.from(serialized)
      : Buffer.from(serialized);
  if (body.length < compressionSettings.thresholdBytes) return { json: body, etag: etagOf(body), compressed: new Map() };
  const [br, gz] = await Promise.all([
    brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: compressionSettings.brotliQuality } }),
    gzipped(body, { level: compressionSettings.gzipLevel }),
  ]);
  return {
    json: body,
    etag: etagOf(body),
    compressed: new Map<Encoding, Buffer>([
      ['br', br],
      ['gzip', gz],
    ]),
  };
}

/** The encoding @fastify/compress would choose for this request (the same negotiation and aliases); null: identity. */
function chosenEncoding(request: FastifyRequest): Encoding | null {
  const accepted = request.headers['accept-encoding'];
  if (accepted === undefined || request.headers['x-no-compression'] !== undefined) return null;
  const choice = negotiate(accepted.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), [...encodings]);
  return choice === 'br' || choice === 'gzip' ? choice : null;
}

/**
 * Sends a kept answer as the route would have: the body in the encoding the client accepts, its ETag
 * (@fastify/etag answers a matching If-None-Match with a 304), and Vary on Accept-Encoding. The
 * Content-Encoding set here tells @fastify/compress the body is already compressed.
 */
export function sendEncoded(request: FastifyRequest, reply: FastifyReply, answer: EncodedAnswer): Buffer {
  void reply.header('content-type', 'application/json; charset=utf-8').header('etag', answer.etag);
  if (answer.compressed.size === 0) return answer.json;
  const vary = reply.getHeader('vary');
  void reply.header('vary', vary === undefined ? 'accept-encoding' : `${String(vary)}, accept-encoding`);
  const encoding = chosenEncoding(request);
  if (encoding === null) return answer.json;
  void reply.header('content-encoding', encoding);
  return answer.compressed.get(encoding)!;
}
