import type pg from 'pg';
import type { Address, Hex } from '../../model.js';

/** What the read queries need of a pool: a place to run one statement. */
export type Db = Pick<pg.Pool, 'query'>;

export const hexFromBytea = (bytes: Buffer): Hex => `0x${bytes.toString('hex')}`;

export const hexFromNullableBytea = (bytes: Buffer | null): Hex | null => (bytes === null ? null : hexFromBytea(bytes));

export const byteaFromHex = (hex: Hex): Buffer => Buffer.from(hex.slice(2), 'hex');

export const bigintFromNumeric = (value: string | null): bigint | null => (value === null ? null : BigInt(value));

/**
 * A timestamptz column rendered in SQL as ISO 8601 UTC with six fractional digits and Z:
 * JavaScript dates hold milliseconds only, and pending-transaction keysets need the microseconds.
 */
export const isoTimestamp = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** An address as the API embeds it: isContract is null when the address has no row in `addresses`. */
export interface AddressRow {
  hash: Address;
  isContract: boolean | null;
}

export function addressRow(hash: Buffer, isContract: boolean | null): AddressRow {
  return { hash: hexFromBytea(hash), isContract };
}

/** Collects the values of a parameterised statement and hands out their placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
