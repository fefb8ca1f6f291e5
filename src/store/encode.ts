import type { Hex } from '../model.js';

/** Values as PostgreSQL reads them in COPY CSV input and in query parameters. */

export function byteaCell(hex: Hex): string {
  return `\\x${hex.slice(2)}`;
}

export function optionalByteaCell(hex: Hex | null): string | null {
  return hex === null ? null : byteaCell(hex);
}

export function byteaArrayCell(hexes: readonly Hex[]): string {
  return `{${hexes.map((h) => `\\\\x${h.slice(2)}`).join(',')}}`;
}

export function numericCell(value: bigint | number | null): string | null {
  return value === null ? null : value.toString();
}

export function timestampCell(secondsSinceEpoch: bigint): string {
  return new Date(Number(secondsSinceEpoch) * 1000).toISOString();
}

export function hexToBuffer(hex: Hex): Buffer {
  return Buffer.from(hex.slice(2), 'hex');
}

export function bufferToHex(buffer: Buffer): Hex {
  return `0x${buffer.toString('hex')}`;
}
