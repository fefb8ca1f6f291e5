import { decodeAbiParameters, hexToBytes, type Hex as ViemHex } from 'viem';
import type { Address, Hex } from '../model.js';
import type { RpcClient } from './rpc.js';

/** What a token contract says about itself; null where it reverted, answered garbage or did not answer. */
export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: bigint | null;
  totalSupply: bigint | null;
}

const selectors = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const;

const MAX_DECIMALS = 255n;
const WORD_LENGTH = 66;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text without NULs and surrounding blanks; null when nothing is left or the bytes are not UTF-8. */
function cleanText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  const cleaned = text.replaceAll('\u0000', '').trim();
  return cleaned === '' ? null : cleaned;
}

/** A name or symbol: an ABI string, or a bytes32 (as early tokens return them). */
export function decodeText(data: Hex): string | null {
  if (data.length === WORD_LENGTH) return cleanText(hexToBytes(data as ViemHex));
  try {
    const [bytes] = decodeAbiParameters([{ type: 'bytes' }], data as ViemHex);
    return cleanText(hexToBytes(bytes));
  } catch {
    return null;
  }
}

/** A uint256 answer; null unless the answer is exactly one word (and, with a bound, within it). */
export function decodeUint(data: Hex, max?: bigint): bigint | null {
  if (!/^0x[0-9a-fA-F]{64}$/.test(data)) return null;
  const value = BigInt(data);
  return max !== undefined && value > max ? null : value;
}

async function call(client: RpcClient, to: Address, data: Hex): Promise<Hex | null> {
  try {
    const result = await client.request<unknown>('eth_call', [{ to, data }, 'latest']);
    return typeof result === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(result) ? (result as Hex) : null;
  } catch {
    return null;
  }
}

/** Reads one token's name, symbol, decimals and total supply, the four calls at once. */
export async function readTokenMetadata(client: RpcClient, token: Address): Promise<TokenMetadata> {
  const [name, symbol, decimals, totalSupply] = await Promise.all([
    call(client, token, selectors.name),
    call(client, token, selectors.symbol),
    call(client, token, selectors.decimals),
    call(client, token, selectors.totalSupply),
  ]);
  return {
    name: name === null ? null : decodeText(name),
    symbol: symbol === null ? null : decodeText(symbol),
    decimals: decimals === null ? null : decodeUint(decimals, MAX_DECIMALS),
    totalSupply: totalSupply === null ? null : decodeUint(totalSupply),
  };
}
