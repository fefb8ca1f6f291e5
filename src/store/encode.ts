import type { Hex } from '../model.js';

/**
 * Conversions between the model's values (Hex, bigint) and PostgreSQL's: cells of COPY CSV input,
 * query parameters, and the columns pg returns (bytea as a Buffer, numeric and bigint as strings).
 */

export function byteaCell(hex: Hex): string {
  return `\\x${hex.slice(2)}`;
}

export function nullableByteaCell(hex: Hex | null): string | null {
  return hex === null ? null : byteaCell(hex);
}

export function byteaArrayCell(hexes: readonly Hex[]): string {
  return `{${hexes.map((h) => `\\\\x${h.slice(2)}`).join(',')}}`;
}

export function numericCell(value: bigint | number | null): string | null {
  return value === null ? null : value.toString();
}

/** A numeric field of COPY CSV input: NULL is the unquoted empty field. */
export const numericCsv = (value: bigint | number | null): string => (value === null ? '' : value.toString());

/** A bytea field of COPY CSV input: NULL is the unquoted empty field. */
export const nullableByteaCsv = (hex: Hex | null): string => (hex === null ? '' : byteaCell(hex));

/** A bytea[] field of COPY CSV input, quoted for the commas between its elements. */
export const byteaArrayCsv = (hexes: readonly Hex[]): string => `"${byteaArrayCell(hexes)}"`;

export function timestampCell(secondsSinceEpoch: bigint): string {
  return new Date(Number(secondsSinceEpoch) * 1000).toISOString();
}

export const byteaFromHex = (hex: Hex): Buffer => Buffer.from(hex.slice(2), 'hex');

export const nullableByteaFromHex = (hex: Hex | null): Buffer | null => (hex === null ? null : byteaFromHex(hex));

export const hexFromBytea = (bytes: Buffer): Hex => `0x${bytes.toString('hex')}`;

export const hexFromNullableBytea = (bytes: Buffer | null): Hex | null => (bytes === null ? null : hexFromBytea(bytes));

export const bigintFromNumeric = (value: string | null): bigint | null => (value === null ? null : BigInt(value));
