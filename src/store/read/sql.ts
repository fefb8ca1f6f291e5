import type pg from 'pg';
import type { Address } from '../../model.js';
import { hexFromBytea } from '../encode.js';

/** What the read queries need of a pool: a place to run one statement. */
export interface Db {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * A timestamptz column rendered in SQL as ISO 8601 UTC with six fractional digits and Z:
 * JavaScript dates hold milliseconds only, and pending-transaction keysets need the microseconds.
 */
export const isoTimestamp = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** An address as the API embeds it: isContract is null when the address has no row in `addresses`. */
export interface AddressItem {
  hash: Address;
  isContract: boolean | null;
}

export function addressItem(hash: Buffer, isContract: boolean | null): AddressItem {
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

/** One key of a keyset: the column (or expression) the page is ordered by, the keyset's value of it, and that value's SQL type. */
export type KeysetKey = readonly [column: string, value: unknown, type: string];

/**
 * The condition for the rows after a keyset in an order whose keys all run one way: `<` after the
 * keyset of a descending order, `>` after that of an ascending one. Several keys are one row-value
 * comparison, `(a, b) < ($1::bigint, $2::integer)`, which an index on (a, b) serves as one range;
 * each value is cast to its column's type, so that the comparison is the index's.
 */
export function keysetCondition(params: SqlParams, comparison: '<' | '>', keys: readonly KeysetKey[]): string {
  const columns = keys.map(([column]) => column);
  const values = keys.map(([, value, type]) => `${params.add(value)}::${type}`);
  return keys.length === 1 ? `${columns[0]} ${comparison} ${values[0]}` : `(${columns.join(', ')}) ${comparison} (${values.join(', ')})`;
}

/**
 * The from, to and created_contract addresses of the rows aliased `alias`, each with what `addresses`
 * knows of it: the columns to select, the joins that give them, and the rows they read into.
 */
export const partyColumns = (alias: string): string =>
  `${alias}.from_address, fa.is_contract AS from_is_contract,
   ${alias}.to_address, ta.is_contract AS to_is_contract,
   ${alias}.created_contract, ca.is_contract AS created_is_contract`;

export const partyJoins = (alias: string): string =>
  `LEFT JOIN addresses fa ON fa.hash = ${alias}.from_address
   LEFT JOIN addresses ta ON ta.hash = ${alias}.to_address
   LEFT JOIN addresses ca ON ca.hash = ${alias}.created_contract`;

export interface PartyRow {
  from_address: Buffer;
  from_is_contract: boolean | null;
  to_address: Buffer | null;
  to_is_contract: boolean | null;
  created_contract: Buffer | null;
  created_is_contract: boolean | null;
}

export function parties(r: PartyRow): { from: AddressItem; to: AddressItem | null; createdContract: AddressItem | null } {
  return {
    from: addressItem(r.from_address, r.from_is_contract),
    to: r.to_address === null ? null : addressItem(r.to_address, r.to_is_contract),
    createdContract: r.created_contract === null ? null : addressItem(r.created_contract, r.created_is_contract),
  };
}
