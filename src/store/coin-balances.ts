import type { Pool, PoolClient } from 'pg';
import type { Address, Hex, InternalTransactionType } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { notifyChange } from './notifications.js';
import { type AddressMark, clearAddressMarks, findAddressMarks, writeAtConsensusBlock } from './address-marks.js';

/**
 * Marks addresses for a read of their native balance, inside the writer's (or the retraction's)
 * transaction. Each mark is a new number, so that a read made before it does not clear it.
 */
export async function markCoinBalances(client: PoolClient, addresses: Iterable<Address>): Promise<void> {
  // Sorted, so that concurrent writers lock rows in the same order.
  const marked = [...new Set([...addresses].map((a) => a.toLowerCase() as Address))].sort(inLockOrder);
  if (marked.length === 0) return;
  await client.query(
    `INSERT INTO coin_balance_marks AS m (address, mark)
     SELECT a, nextval('coin_balance_mark_numbers') FROM unnest($1::bytea[]) u(a)
     ON CONFLICT (address) DO UPDATE SET mark = excluded.mark`,
    [marked.map(byteaFromHex)],
  );
}

/** Addresses whose balance is to be read, in address order. */
export const findCoinBalanceMarks = (pool: Pool, limit: number): Promise<AddressMark[]> =>
  findAddressMarks(pool, 'coin_balance_marks', limit);

/** The highest consensus block: the height balances are read at. Null before any block is indexed. */
export async function findIndexedHead(pool: Pool): Promise<{ number: bigint; hash: Hex } | null> {
  const { rows } = await pool.query<{ number: string; hash: Buffer }>(
    'SELECT number, hash FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1',
  );
  const row = rows[0];
  return row === undefined ? null : { number: BigInt(row.number), hash: hexFromBytea(row.hash) };
}

/**
 * Stores the balances read at `head` (one history row each; a null, a balance the node could not give,
 * stores none) and clears the marks read under, unless a block written meanwhile marked the address
 * again. Nothing is stored when `head` lost consensus meanwhile: the block row is locked first, so that
 * a retraction either comes before (and the read is dropped, the marks kept) or after (and removes
 * these rows with the height, marking their addresses again).
 */
export async function saveCoinBalances(
  pool: Pool,
  head: { number: bigint; hash: Hex },
  read: readonly (AddressMark & { value: bigint | null })[],
): Promise<boolean> {
  return writeAtConsensusBlock(pool, head.hash, read, async (client, entries) => {
    const known = entries.filter((e) => e.value !== null);
    if (known.length > 0) {
      await client.query(
        `INSERT INTO address_coin_balances (address, block_number, value)
         SELECT a, $2::bigint, v FROM unnest($1::bytea[], $3::numeric[]) u(a, v)
         ON CONFLICT (address, block_number) DO UPDATE SET value = excluded.value`,
        [known.map((e) => byteaFromHex(e.address)), head.number.toString(), known.map((e) => (e.value as bigint).toString())],
      );
      // The latest read of each address, unless a later one is stored already.
      await client.query(
        `INSERT INTO address_current_coin_balances AS c (address, block_number, value)
         SELECT a, $2::bigint, v FROM unnest($1::bytea[], $3::numeric[]) u(a, v)
         ON CONFLICT (address) DO UPDATE SET block_number = excluded.block_number, value = excluded.value
         WHERE c.block_number <= excluded.block_number`,
        [known.map((e) => byteaFromHex(e.address)), head.number.toString(), known.map((e) => (e.value as bigint).toString())],
      );
      await notifyChange(client, { kind: 'balances', blockNumber: Number(head.number) });
    }
    await clearAddressMarks(client, 'coin_balance_marks', entries);
  });
}

/**
 * Inside a retraction: deletes the balance rows of the heights taken off the chain, puts back each of
 * their addresses' latest read below them as its current balance (none if there is none), and marks
 * those addresses, and the given ones (the parties of the retracted blocks), to be read again.
 */
export async function retractCoinBalances(client: PoolClient, fromNumber: bigint, parties: Iterable<Address>): Promise<void> {
  const from = fromNumber.toString();
  const { rows } = await client.query<{ address: Buffer }>('DELETE FROM address_coin_balances WHERE block_number >= $1 RETURNING address', [
    from,
  ]);
  const { rows: current } = await client.query<{ address: Buffer }>(
    'DELETE FROM address_current_coin_balances WHERE block_number >= $1 RETURNING address',
    [from],
  );
  if (current.length > 0) {
    await client.query(
      `INSERT INTO address_current_coin_balances (address, block_number, value)
       SELECT DISTINCT ON (h.address) h.address, h.block_number, h.value
       FROM address_coin_balances h WHERE h.address = ANY($1::bytea[])
       ORDER BY h.address, h.block_number DESC`,
      [current.map((r) => r.address)],
    );
  }
  await markCoinBalances(client, [...rows.map((r) => hexFromBytea(r.address)), ...parties]);
}

/** The addresses whose native balance blocks change visibly: senders, recipients, created contracts, miners, withdrawal receivers. */
export function coinBalanceParties(
  bundles: readonly { block: { miner: Address }; transactions: readonly CountedParties[]; withdrawals: readonly { address: Address }[] }[],
): Address[] {
  return bundles.flatMap(({ block, transactions, withdrawals }) => [
    block.miner,
    ...transactionParties(transactions),
    ...withdrawals.map((w) => w.address),
  ]);
}

interface CountedParties {
  from: Address;
  to: Address | null;
  createdContract: Address | null;
}

export const transactionParties = (transactions: readonly CountedParties[]): Address[] =>
  transactions.flatMap((t) => [t.from, t.to, t.createdContract].filter((a): a is Address => a !== null));

interface MovingFrame {
  type: InternalTransactionType;
  from: Address;
  to: Address | null;
  createdContract: Address | null;
  value: bigint;
}

/**
 * The addresses whose native balance traced frames may move beyond what their transactions show: both
 * ends of a frame that carries value (a created contract as its receiving end) and of every
 * self-destruct (the contract and its beneficiary). A failed frame moved nothing, but reading its ends
 * again only costs a read.
 */
export const internalTransactionParties = (frames: readonly MovingFrame[]): Address[] =>
  frames.flatMap((f) =>
    f.value > 0n || f.type === 'selfdestruct' ? [f.from, f.to, f.createdContract].filter((a): a is Address => a !== null) : [],
  );
