/**
 * A GET of a JSON document from an outside source (a price source, a token list), with a timeout and a
 * size limit. Whatever goes wrong becomes an OffchainSourceError naming the URL, without its query
 * string (which may hold a key).
 */

/** An outside source did not answer, answered an error status or a document of another shape. */
export class OffchainSourceError extends Error {
  override name = 'OffchainSourceError';
}

export interface FetchJsonOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
}

/** The URL as an error shows it: no query, no credentials. */
export const shownUrl = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/** A response's body as text, or null when it is longer than maxBytes (read no further). */
export async function readLimited(response: Response, maxBytes: number): Promise<string | null> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON string with something in it besides white space, trimmed; null for anything else. */
export const jsonText = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** A JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses a JSON document, or says which source gave something else. */
export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OffchainSourceError(`${where} answered something that is not JSON`);
  }
}

export async function fetchJson(url: string, options: FetchJsonOptions): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...options.headers },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'follow',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new OffchainSourceError(`${shownUrl(url)} could not be reached: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new OffchainSourceError(`${shownUrl(url)} answered HTTP ${response.status}`);
  }
  const text = await readLimited(response, options.maxBytes);
  if (text === null) throw new OffchainSourceError(`${shownUrl(url)} answered more than ${options.maxBytes} bytes`);
  return parseJson(text, shownUrl(url));
}
