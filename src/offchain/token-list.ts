import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Address, TokenListEntry } from '../model.js';
import { OffchainSourceError, fetchJson, isJsonObject, jsonText, parseJson } from './fetch-json.js';

/**
 * A token list in the common JSON format (tokenlists.org's schema: `{ "tokens": [{ chainId, address,
 * name, symbol, decimals, logoURI }] }`), read from an http(s) URL or a file (a path or a file: URL).
 * Only the entries of the given chain id are kept; an entry without a valid address is skipped.
 */

const maxBytes = 32 * 1024 * 1024;
const timeoutMs = 30_000;

const decimals = (value: unknown): bigint | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255 ? BigInt(value) : null;

async function readSource(source: string): Promise<unknown> {
  if (/^https?:\/\//i.test(source)) return fetchJson(source, { timeoutMs, maxBytes });
  const path = source.startsWith('file:') ? fileURLToPath(source) : source;
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    throw new OffchainSourceError(
      `the token list ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseJson(content, `the token list ${path}`);
}

/** The list's tokens of this chain, one per address (the first entry of an address wins). */
export async function readTokenList(source: string, chainId: number): Promise<TokenListEntry[]> {
  const list = await readSource(source);
  if (!isJsonObject(list) || !Array.isArray(list.tokens)) throw new OffchainSourceError('the token list has no "tokens" array');
  const entries = new Map<Address, TokenListEntry>();
  for (const token of list.tokens) {
    if (!isJsonObject(token) || token.chainId !== chainId) continue;
    if (typeof token.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(token.address)) continue;
    const address = token.address.toLowerCase() as Address;
    if (entries.has(address)) continue;
    entries.set(address, {
      address,
      name: jsonText(token.name),
      symbol: jsonText(token.symbol),
      decimals: decimals(token.decimals),
      logoUri: jsonText(token.logoURI),
    });
  }
  return [...entries.values()];
}
