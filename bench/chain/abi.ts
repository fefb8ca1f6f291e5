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

/** Two `uint256[]` arguments, as ERC-1155 TransferBatch data. */
export function abiUintArrays(first: readonly bigint[], second: readonly bigint[]): Hex {
  const array = (values: readonly bigint[]) => uintWord(values.length) + values.map(uintWord).join('');
  const head = uintWord(64) + uintWord(64 + 32 * (first.length + 1));
  return `0x${head}${array(first)}${array(second)}`;
}
