import type { Pool, PoolClient } from 'pg';
import type { Address, Hex } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { inRedoableTransaction } from './transaction.js';

/**
 * An address a background stage is to read something of, with the number it was marked under: each
 * mark is a new number, so that a read made before the address was marked again does not clear it.
 */
export interface AddressMark {
  address: Address;
  mark: bigint;
}

/** The tables of numbered marks, one per stage. */
export type AddressMarkTable = 'coin_balance_marks' | 'ens_marks' | 'proxy_marks';

/** Marked addresses, in address order (any stable order will do). */
export async function findAddressMarks(pool: Pool, table: AddressMarkTable, limit: number): Promise<AddressMark[]> {
  const { rows } = await pool.query<{ address: Buffer; mark: string }>(`SELECT address, mark FROM ${table} ORDER BY address LIMIT $1`, [
    limit,
  ]);
  return rows.map((r) => ({ address: hexFromBytea(r.address), mark: BigInt(r.mark) }));
}

/**
 * Runs `write` with the entries in address order (the order concurrent writers lock rows in), in one
 * transaction that first locks the row of the block `blockHash` names, if it is still in consensus.
 * False, and nothing written, when it is not: a retraction then comes either before (the work is
 * dropped, the marks kept) or after (and marks what was read at the lost heights again). True at once
 * when there is nothing to write.
 */
export async function writeAtConsensusBlock<E extends { address: Address }>(
  pool: Pool,
  blockHash: Hex,
  entries: readonly E[],
  write: (client: PoolClient, sorted: E[]) => Promise<void>,
): Promise<boolean> {
  const sorted = [...entries].sort((a, b) => inLockOrder(a.address, b.address));
  if (sorted.length === 0) return true;
  return inRedoableTransaction(pool, async (client) => {
    if (!(await lockConsensusBlock(client, blockHash))) return false;
    await write(client, sorted);
    return true;
  });
}

/**
 * Locks, inside the caller's transaction, the row of the block `blockHash` names if it is in consensus,
 * so that no retraction of it can interleave with the transaction; false when it is not in consensus.
 */
export async function lockConsensusBlock(client: PoolClient, blockHash: Hex): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM blocks WHERE hash = $1 AND consensus FOR SHARE', [byteaFromHex(blockHash)]);
  return rowCount !== 0;
}

/**
 * Clears the marks read under, inside the writer's transaction: an address marked again since keeps its
 * new mark. The rows are locked in address order first, the order the block writers mark them in: a
 * DELETE joined to the list locks them in whatever order its plan reads them (a hash join, in the
 * table's), and deadlocked with a writer marking the same addresses.
 */
export async function clearAddressMarks(client: PoolClient, table: AddressMarkTable, read: readonly AddressMark[]): Promise<void> {
  await client.query(
    `WITH locked AS (
       SELECT m.address, m.mark FROM ${table} m JOIN unnest($1::bytea[], $2::bigint[]) r(address, mark)
         ON m.address = r.address AND m.mark = r.mark
       ORDER BY m.address FOR UPDATE OF m
     )
     DELETE FROM ${table} m USING locked WHERE m.address = locked.address AND m.mark = locked.mark`,
    [read.map((e) => byteaFromHex(e.address)), read.map((e) => e.mark.toString())],
  );
}
