import { setTimeout as sleep } from 'node:timers/promises';
import { readLimited } from './fetch-json.js';

/**
 * Fetches an NFT's metadata document from its URI: data: URIs (base64 or plain JSON) decoded in place,
 * http(s) fetched, ipfs:// through a gateway; with a timeout, a size limit and retries of transient
 * failures. Whatever goes wrong becomes an error message, never an exception.
 */

export interface NftMetadataOptions {
  /** Where ipfs://<cid>/<path> is fetched: <gateway>/<cid>/<path>. */
  ipfsGateway: string;
  timeoutMs: number;
  maxBytes: number;
  /** Retries after the first attempt, for network failures, 429 and 5xx. */
  retries: number;
}

export type NftMetadataResult = { metadata: Record<string, unknown>; error: null } | { metadata: null; error: string };

class TransientFetchError extends Error {}

const retryDelayMs = 200;

const failure = (error: string): NftMetadataResult => ({ metadata: null, error });

function parseDocument(text: string): NftMetadataResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return failure('the metadata is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return failure('the metadata is not a JSON object');
  // PostgreSQL's jsonb holds no NUL characters.
  return { metadata: JSON.parse(JSON.stringify(parsed).replaceAll('\\u0000', '')) as Record<string, unknown>, error: null };
}

function decodeDataUri(uri: string, maxBytes: number): NftMetadataResult {
  const comma = uri.indexOf(',');
  if (comma < 0) return failure('a data: URI without a comma');
  const header = uri.slice('data:'.length, comma);
  const body = uri.slice(comma + 1);
  let text: string;
  try {
    text = header.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
  } catch {
    text = body;
  }
  if (Buffer.byteLength(text) > maxBytes) return failure(`the metadata is larger than ${maxBytes} bytes`);
  return parseDocument(text);
}

/** The http(s) URL a metadata URI is fetched from, or null when its scheme is not served. */
export function metadataUrl(uri: string, ipfsGateway: string): string | null {
  if (/^https?:\/\//i.test(uri)) return uri;
  const ipfs = /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(uri);
  return ipfs === null ? null : `${ipfsGateway.replace(/\/+$/, '')}/${ipfs[1]}`;
}

async function fetchOnce(url: string, options: NftMetadataOptions): Promise<NftMetadataResult> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), redirect: 'follow' });
  } catch (error) {
    throw new TransientFetchError(`fetching ${url}: ${(error as Error).message}`);
  }
  if (response.status === 429 || response.status >= 500) {
    await response.body?.cancel();
    throw new TransientFetchError(`fetching ${url}: HTTP ${response.status}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    return failure(`fetching ${url}: HTTP ${response.status}`);
  }
  let text: string | null;
  try {
    text = await readLimited(response, options.maxBytes);
  } catch (error) {
    throw new TransientFetchError(`reading ${url}: ${(error as Error).message}`);
  }
  return text === null ? failure(`the metadata at ${url} is larger than ${options.maxBytes} bytes`) : parseDocument(text);
}

export async function fetchNftMetadata(uri: string, options: NftMetadataOptions): Promise<NftMetadataResult> {
  if (/^data:/i.test(uri)) return decodeDataUri(uri, options.maxBytes);
  const url = metadataUrl(uri, options.ipfsGateway);
  if (url === null) return failure(`the URI scheme of ${uri.slice(0, 80)} is not served`);
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchOnce(url, options);
    } catch (error) {
      if (!(error instanceof TransientFetchError) || attempt >= options.retries) return failure((error as Error).message);
      await sleep(retryDelayMs * 2 ** attempt);
    }
  }
}
