import type { TokenType } from '../model.js';

/**
 * An Etherscan-style account list: the transactions an address sent, received or created (txlist), or
 * its transfers of one token type (tokentx, tokennfttx, token1155tx). Its order is block order.
 */
export type AccountList = 'transactions' | TokenType;

/** One side of a list (the address as sender, as recipient...): one range of one of the table's indexes. */
export interface ListSide {
  table: string;
  /** Conditions on the table (aliased s), their values already in the statement's parameters. */
  conditions: string[];
}

/** The sides with `conditions` added to each. */
export const withConditions = (sides: readonly ListSide[], conditions: readonly string[]): ListSide[] =>
  sides.map((side) => ({ table: side.table, conditions: [...side.conditions, ...conditions] }));

/** The list's keys, its order's columns from the first. */
export const accountListKeys = (list: AccountList): readonly string[] =>
  list === 'transactions' ? ['block_number', 'index'] : ['block_number', 'log_index', 'batch_index'];

/**
 * The sides of an account list of the address in `address` (a placeholder or a column): its
 * transactions (`type` null), or its transfers of the token type in `type`. A row two sides hold (a
 * transaction to itself) is one row of the list.
 */
export function accountListSides(address: string, type: string | null): ListSide[] {
  if (type === null) {
    return ['from_address', 'to_address', 'created_contract'].map((column) => ({
      table: 'transactions',
      conditions: [`s.${column} = ${address}`],
    }));
  }
  return ['from_address', 'to_address'].map((column) => ({
    table: 'token_transfers',
    conditions: [`s.${column} = ${address}`, `s.token_type = ${type}`],
  }));
}

/**
 * The keys of the sides' rows in block order (`descending`: the reverse), each side read in its index's
 * order and merged, a row two sides hold once, up to `limit` rows. DISTINCT ON, unlike DISTINCT or
 * UNION, cannot be hashed: the planner, which cannot tell how many merged rows are distinct, would hash
 * them, reading every side's rows up to the limit and sorting what is left. DISTINCT ON keeps the rows
 * in the merge's order and drops a row equal to the one before it.
 */
export function mergedKeys(sides: readonly ListSide[], keys: readonly string[], descending: boolean, limit: string): string {
  const direction = descending ? 'DESC' : 'ASC';
  const order = keys.map((key) => `${key} ${direction}`).join(', ');
  // Each side ordered in its own subquery: a UNION ALL member with a WHERE clause is planned on its
  // own, and only its ORDER BY makes it the ordered index scan that the merge reads.
  const scans = sides.map(
    ({ table, conditions }) =>
      `(SELECT ${keys.map((key) => `s.${key}`).join(', ')} FROM ${table} s WHERE ${conditions.join(' AND ')}
        ORDER BY ${keys.map((key) => `s.${key} ${direction}`).join(', ')} LIMIT ${limit})`,
  );
  return `SELECT DISTINCT ON (${keys.join(', ')}) * FROM (${scans.join(' UNION ALL ')}) k ORDER BY ${order}`;
}

/** The checkpoint columns a list's keys are kept in (list_checkpoints: migration 071). */
export const checkpointColumns = (keys: readonly string[]): readonly string[] =>
  ['block_number', 'index', 'batch_index'].slice(0, keys.length);

/** The condition that a side's row is at or after (`descending`: at or before) the keyset in `at`, one placeholder per key. */
export function fromKeyset(keys: readonly string[], at: readonly string[], descending: boolean): string {
  return `(${keys.map((key) => `s.${key}`).join(', ')}) ${descending ? '<=' : '>='} (${at.join(', ')})`;
}
