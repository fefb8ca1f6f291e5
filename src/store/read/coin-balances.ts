import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { type Db, SqlParams, isoTimestamp, keysetCondition } from './sql.js';

/** The latest native balance read of an address, and the block it was read at. */
export interface CoinBalanceItem {
  value: bigint;
  blockNumber: number;
}

/** One read of an address's history: its balance, the change since the read before it, and its block. */
export interface CoinBalanceHistoryItem extends CoinBalanceItem {
  /** The value less the previous read's; the value itself for the first read. */
  delta: bigint;
  /** ISO 8601 UTC, six fractional digits. */
  blockTimestamp: string;
  /** Never known: a balance is read at a block, not found in a transaction. */
  transactionHash: Hex | null;
}

export interface CoinBalanceKeyset {
  blockNumber: number;
}

/** The newest balance row of an address; null when none was read. */
export async function findLatestCoinBalance(db: Db, address: Address): Promise<CoinBalanceItem | null> {
  const { rows } = await db.query<{ value: string; block_number: string }>(
    'SELECT value, block_number FROM address_coin_balances WHERE address = $1 ORDER BY block_number DESC LIMIT 1',
    [byteaFromHex(address)],
  );
  const row = rows[0];
  return row === undefined ? null : { value: BigInt(row.value), blockNumber: Number(row.block_number) };
}

interface HistoryRow {
  block_number: string;
  value: string;
  previous: string | null;
  block_timestamp: string;
}

/**
 * An address's balance reads, newest first (block_number descending, unique per address), after a
 * keyset: the primary key (address, block_number) serves the order, and each row's previous read is one
 * more look-up on it, so that a deep page costs what the first does.
 */
export async function listCoinBalanceHistory(
  db: Db,
  address: Address,
  after: CoinBalanceKeyset | null,
  limit: number,
): Promise<CoinBalanceHistoryItem[]> {
  const params = new SqlParams();
  const conditions = [`c.address = ${params.add(byteaFromHex(address))}`];
  if (after !== null) conditions.push(keysetCondition(params, '<', [['c.block_number', after.blockNumber, 'bigint']]));
  const { rows } = await db.query<HistoryRow>(
    `SELECT c.block_number, c.value,
            (SELECT p.value FROM address_coin_balances p WHERE p.address = c.address AND p.block_number < c.block_number
             ORDER BY p.block_number DESC LIMIT 1) AS previous,
            ${isoTimestamp('b.timestamp')} AS block_timestamp
     FROM (SELECT * FROM address_coin_balances c WHERE ${conditions.join(' AND ')}
           ORDER BY c.block_number DESC LIMIT ${params.add(limit)}) c
     JOIN blocks b ON b.number = c.block_number AND b.consensus
     ORDER BY c.block_number DESC`,
    params.values,
  );
  return rows.map(historyItem);
}

function historyItem(r: HistoryRow): CoinBalanceHistoryItem {
  const value = BigInt(r.value);
  return {
    blockNumber: Number(r.block_number),
    value,
    delta: value - (r.previous === null ? 0n : BigInt(r.previous)),
    blockTimestamp: r.block_timestamp,
    transactionHash: null,
  };
}

/** The balances read at one block for any of `addresses`, each with its change since the read before it. */
export async function listCoinBalancesAt(
  db: Db,
  blockNumber: number,
  addresses: readonly Address[],
): Promise<(CoinBalanceHistoryItem & { address: Address })[]> {
  const { rows } = await db.query<HistoryRow & { address: Buffer }>(
    `SELECT c.address, c.block_number, c.value,
            (SELECT p.value FROM address_coin_balances p WHERE p.address = c.address AND p.block_number < c.block_number
             ORDER BY p.block_number DESC LIMIT 1) AS previous,
            ${isoTimestamp('b.timestamp')} AS block_timestamp
     FROM address_coin_balances c
     JOIN blocks b ON b.number = c.block_number AND b.consensus
     WHERE c.block_number = $1::bigint AND c.address = ANY($2::bytea[])`,
    [blockNumber, addresses.map(byteaFromHex)],
  );
  return rows.map((r) => ({ address: hexFromBytea(r.address), ...historyItem(r) }));
}
