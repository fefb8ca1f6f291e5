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
  /** A transaction of the read's block that moved the address's coin (see balanceTransaction); null when none did. */
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
  transaction_hash: Buffer | null;
}

/**
 * The transaction a balance read c is shown with, as Blockscout finds it: one of the read's block that
 * the address sent or received and that moved coin (a value, or a fee paid), else the transaction of
 * a successful call, creation or self-destruct in that block that carried value from or to it. Each is
 * one range of the address's index on transactions or internal transactions.
 */
const balanceTransaction = `coalesce(
     (SELECT t.hash FROM transactions t
      WHERE t.block_number = c.block_number AND (t.from_address = c.address OR t.to_address = c.address)
        AND (t.value > 0 OR (t.gas_price > 0 AND t.gas_used > 0))
      ORDER BY t.index LIMIT 1),
     (SELECT i.transaction_hash FROM internal_transactions i
      WHERE i.block_number = c.block_number
        AND (i.from_address = c.address OR i.to_address = c.address OR i.created_contract = c.address)
        AND i.type IN ('call', 'create', 'create2', 'selfdestruct') AND (i.call_type IS NULL OR i.call_type = 'call')
        AND i.value > 0 AND i.error IS NULL
      ORDER BY i.transaction_index, i.index LIMIT 1))`;

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
            ${isoTimestamp('b.timestamp')} AS block_timestamp, ${balanceTransaction} AS transaction_hash
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
    transactionHash: r.transaction_hash === null ? null : hexFromBytea(r.transaction_hash),
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
            ${isoTimestamp('b.timestamp')} AS block_timestamp, ${balanceTransaction} AS transaction_hash
     FROM address_coin_balances c
     JOIN blocks b ON b.number = c.block_number AND b.consensus
     WHERE c.block_number = $1::bigint AND c.address = ANY($2::bytea[])`,
    [blockNumber, addresses.map(byteaFromHex)],
  );
  return rows.map((r) => ({ address: hexFromBytea(r.address), ...historyItem(r) }));
}

/** The sum of every address's latest coin balance read (ethsupply), in wei: an index-only read of the positive balances. */
export async function sumCoinBalances(db: Db): Promise<bigint> {
  const { rows } = await db.query<{ total: string }>(
    'SELECT coalesce(sum(value), 0)::text AS total FROM address_current_coin_balances WHERE value > 0',
  );
  return BigInt(rows[0]!.total);
}

/** An address's coin balance on one day (UTC): Blockscout's balance chart point. */
export interface CoinBalanceDay {
  /** YYYY-MM-DD. */
  date: string;
  value: bigint;
}

/**
 * The balance chart of an address, as Blockscout draws it: for each day (UTC) from `days` days ago on,
 * the largest balance read that day, days in order; the last day's point is the newest read itself.
 * The reads are one range of the primary key (address, block_number), from the first block of the
 * window (the blocks' timestamp index).
 */
export async function listCoinBalancesByDay(db: Db, address: Address, days: number): Promise<CoinBalanceDay[]> {
  const { rows } = await db.query<{ day: string; value: string; newest: boolean }>(
    `WITH since AS (
       SELECT min(number) AS number FROM blocks
       WHERE consensus AND timestamp >= (date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => $2)) AT TIME ZONE 'UTC'
     ), reads AS (
       SELECT to_char(b.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, c.value, c.block_number
       FROM address_coin_balances c JOIN blocks b ON b.number = c.block_number AND b.consensus
       WHERE c.address = $1 AND c.block_number >= (SELECT number FROM since)
     )
     SELECT day, max(value)::text AS value, false AS newest FROM reads GROUP BY day
     UNION ALL
     (SELECT day, value::text, true FROM reads ORDER BY block_number DESC LIMIT 1)
     ORDER BY day, newest`,
    [byteaFromHex(address), days],
  );
  const points = rows.filter((r) => !r.newest).map((r) => ({ date: r.day, value: BigInt(r.value) }));
  const newest = rows.find((r) => r.newest);
  if (newest !== undefined && points.length > 0) points[points.length - 1] = { date: newest.day, value: BigInt(newest.value) };
  return points;
}
