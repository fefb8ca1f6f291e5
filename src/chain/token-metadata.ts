import { decodeAbiParameters, hexToBytes, type Hex as ViemHex } from 'viem';
import { type Address, type Hex, type TokenMetadata, isHexData } from '../model.js';
import type { ContractCaller } from './contract-calls.js';

const selectors = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const;

const MAX_DECIMALS = 255n;
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
  if (isHexData(data, 32)) return cleanText(hexToBytes(data as ViemHex));
  try {
    const [bytes] = decodeAbiParameters([{ type: 'bytes' }], data as ViemHex);
    return cleanText(hexToBytes(bytes));
  } catch {
    return null;
  }
}

/** A uint256 answer; null unless the answer is exactly one word (and, with a bound, within it). */
export function decodeUint(data: Hex, max?: bigint): bigint | null {
  if (!isHexData(data, 32)) return null;
  const value = BigInt(data);
  return max !== undefined && value > max ? null : value;
}

const fields = ['name', 'symbol', 'decimals', 'totalSupply'] as const;

/** Reads the name, symbol, decimals and total supply of each token, all the calls at once. */
export async function readTokenMetadata(caller: ContractCaller, tokens: readonly Address[]): Promise<Map<Address, TokenMetadata>> {
  const answers = await caller.call(tokens.flatMap((to) => fields.map((field) => ({ to, data: selectors[field] }))));
  return new Map(
    tokens.map((token, i) => {
      const answer = (field: (typeof fields)[number]) => answers[i * fields.length + fields.indexOf(field)] ?? null;
      const decoded = <T>(field: (typeof fields)[number], decode: (data: Hex) => T | null) => {
        const data = answer(field);
        return data === null ? null : decode(data);
      };
      return [
        token,
        {
          name: decoded('name', decodeText),
          symbol: decoded('symbol', decodeText),
          decimals: decoded('decimals', (data) => decodeUint(data, MAX_DECIMALS)),
          totalSupply: decoded('totalSupply', decodeUint),
        },
      ];
    }),
  );
}

/** Reads each token's total supply again; null where the call fails. */
export async function readTotalSupplies(caller: ContractCaller, tokens: readonly Address[]): Promise<(bigint | null)[]> {
  const answers = await caller.call(tokens.map((to) => ({ to, data: selectors.totalSupply })));
  return answers.map((answer) => (answer === null ? null : decodeUint(answer)));
}
