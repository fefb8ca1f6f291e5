import type { Address, Hex } from '../../src/model.js';

/** The few ABI encodings the generated node answers with. */

export const uintWord = (value: bigint | number): string => value.toString(16).padStart(64, '0');

export const addressTopic = (address: Address): Hex => `0x${address.slice(2).padStart(64, '0')}`;

export const uintTopic = (value: bigint | number): Hex => `0x${uintWord(value)}`;

/** An ABI-encoded `string` return value. */
export function abiString(text: string): Hex {
  const bytes = Buffer.from(text, 'utf8');
  const padded = Buffer.alloc(Math.ceil(bytes.length / 32) * 32);
  bytes.copy(padded);
  return `0x${uintWord(32)}${uintWord(bytes.length)}${padded.toString('hex')}`;
}

const arrayWords = (values: readonly bigint[]) => uintWord(values.length) + values.map(uintWord).join('');

/** Two `uint256[]` arguments, as ERC-1155 TransferBatch data. */
export function abiUintArrays(first: readonly bigint[], second: readonly bigint[]): Hex {
  const head = uintWord(64) + uintWord(64 + 32 * (first.length + 1));
  return `0x${head}${arrayWords(first)}${arrayWords(second)}`;
}

/** The tail of `safeBatchTransferFrom(from, to, ids, amounts, data)` after its two addresses, with empty `data`. */
export function abiUintArraysAndBytes(ids: readonly bigint[], amounts: readonly bigint[]): Hex {
  const idsAt = 5 * 32;
  const amountsAt = idsAt + 32 * (ids.length + 1);
  const bytesAt = amountsAt + 32 * (amounts.length + 1);
  return `0x${uintWord(idsAt)}${uintWord(amountsAt)}${uintWord(bytesAt)}${arrayWords(ids)}${arrayWords(amounts)}${uintWord(0)}`;
}

/** A call's input: its selector and its ABI-encoded arguments, given as hex words already in order. */
export const callInput = (selector: Hex, ...encoded: Hex[]): Hex => `${selector}${encoded.map((part) => part.slice(2)).join('')}` as Hex;
