import type { Pool } from 'pg';
import type { TokenTransferRecord, TokenType } from '../model.js';
import { bufferToHex } from './encode.js';
import { revertTokenTransfers } from './token-ledger.js';
import { inTransaction } from './transaction.js';

interface RetractedTransferRow {
  block_hash: Buffer;
  log_index: number;
  batch_index: number;
  block_number: string;
  transaction_hash: Buffer;
  transaction_index: number;
  token_address: Buffer;
  token_type: TokenType;
  from_address: Buffer;
  to_address: Buffer;
  amount: string;
  token_id: string | null;
}

const toTransferRecord = (r: RetractedTransferRow): TokenTransferRecord => ({
  blockHash: bufferToHex(r.block_hash),
  blockNumber: BigInt(r.block_number),
  transactionHash: bufferToHex(r.transaction_hash),
  transactionIndex: r.transaction_index,
  logIndex: r.log_index,
  batchIndex: r.batch_index,
  tokenAddress: bufferToHex(r.token_address),
  tokenType: r.token_type,
  from: bufferToHex(r.from_address),
  to: bufferToHex(r.to_address),
  amount: BigInt(r.amount),
  tokenId: r.token_id === null ? null : BigInt(r.token_id),
});

/**
 * Takes the consensus blocks at and above a height off the canonical chain, in one transaction:
 * they stay as non-consensus rows (so that a lookup by number can say the block lost consensus),
 * every row derived from them is removed, and the token balances and owners they moved are moved back.
 */
export async function retractBlocksFrom(pool: Pool, fromNumber: bigint): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ hash: Buffer }>(
      'UPDATE blocks SET consensus = false WHERE consensus AND number >= $1 RETURNING hash',
      [fromNumber.toString()],
    );
    const hashes = rows.map((r) => r.hash);
    await client.query('DELETE FROM transactions WHERE block_number >= $1', [fromNumber.toString()]);
    for (const table of ['withdrawals', 'internal_transactions', 'block_rewards']) {
      await client.query(`DELETE FROM ${table} WHERE block_hash = ANY($1::bytea[])`, [hashes]);
    }
    const retracted = await client.query<RetractedTransferRow>(
      'DELETE FROM token_transfers WHERE block_hash = ANY($1::bytea[]) RETURNING *',
      [hashes],
    );
    await revertTokenTransfers(client, retracted.rows.map(toTransferRecord));
    return hashes.length;
  });
}
