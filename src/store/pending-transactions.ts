import type { Pool, PoolClient } from 'pg';
import type { Hex, PoolTransaction } from '../model.js';
import { byteaFromHex, nullableByteaFromHex, numericCell } from './encode.js';
import { notifyChange } from './notifications.js';
import { inTransaction } from './transaction.js';

/**
 * Orders pool snapshots against block writes. A snapshot holds it exclusively, block writes share
 * it, each from its own statement: whichever commits second then sees the other's rows, so a
 * snapshot taken just before a block was written cannot bring its transactions back as pending.
 * (7411 is the migrator's, 7413 the signature loader's.)
 */
const POOL_SNAPSHOT_LOCK = 7412;

export interface PoolSnapshotChanges {
  /** Transactions seen for the first time. */
  added: number;
  /** Transactions gone from the pool: mined, replaced or dropped. */
  removed: number;
}

/**
 * Makes pending_transactions the node's pool as `snapshot` shows it, in one transaction: a
 * transaction already listed keeps the time it was first seen, one no longer in the pool leaves,
 * and one already mined is never listed.
 */
export async function replacePendingTransactions(pool: Pool, snapshot: readonly PoolTransaction[]): Promise<PoolSnapshotChanges> {
  const unique = [...new Map(snapshot.map((t) => [t.hash, t])).values()];
  const hashes = unique.map((t) => byteaFromHex(t.hash));
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [POOL_SNAPSHOT_LOCK]);
    const removed = await client.query('DELETE FROM pending_transactions WHERE hash <> ALL($1::bytea[])', [hashes]);
    const added = await client.query(
      `INSERT INTO pending_transactions (hash, inserted_at, from_address, to_address, nonce, type, value, gas_limit,
                                         gas_price, max_fee_per_gas, max_priority_fee_per_gas, input)
       SELECT s.hash, now(), s.from_address, s.to_address, s.nonce, s.type, s.value, s.gas_limit,
              s.gas_price, s.max_fee_per_gas, s.max_priority_fee_per_gas, s.input
       FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::bigint[], $5::smallint[], $6::numeric[], $7::numeric[],
                   $8::numeric[], $9::numeric[], $10::numeric[], $11::bytea[])
            AS s(hash, from_address, to_address, nonce, type, value, gas_limit,
                 gas_price, max_fee_per_gas, max_priority_fee_per_gas, input)
       WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.hash = s.hash)
       ON CONFLICT (hash) DO NOTHING`,
      [
        hashes,
        unique.map((t) => byteaFromHex(t.from)),
        unique.map((t) => nullableByteaFromHex(t.to)),
        unique.map((t) => numericCell(t.nonce)),
        unique.map((t) => t.type),
        unique.map((t) => numericCell(t.value)),
        unique.map((t) => numericCell(t.gasLimit)),
        unique.map((t) => numericCell(t.gasPrice)),
        unique.map((t) => numericCell(t.maxFeePerGas)),
        unique.map((t) => numericCell(t.maxPriorityFeePerGas)),
        unique.map((t) => byteaFromHex(t.input)),
      ],
    );
    const changes = { added: added.rowCount ?? 0, removed: removed.rowCount ?? 0 };
    if (changes.added > 0) await notifyChange(client, { kind: 'pending', added: changes.added });
    return changes;
  });
}

/** Takes transactions off the pending list as the block write in `client`'s transaction mines them. */
export async function removeMinedFromPending(client: PoolClient, minedHashes: readonly Hex[]): Promise<void> {
  if (minedHashes.length === 0) return;
  await client.query('SELECT pg_advisory_xact_lock_shared($1)', [POOL_SNAPSHOT_LOCK]);
  await client.query('DELETE FROM pending_transactions WHERE hash = ANY($1::bytea[])', [minedHashes.map(byteaFromHex)]);
}
