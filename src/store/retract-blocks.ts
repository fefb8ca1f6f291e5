import type { Pool, PoolClient } from 'pg';
import type { InternalTransactionType, TokenTransferRecord, TokenType } from '../model.js';
import { applyCounterDeltas, counterDeltas } from './address-counters.js';
import { applyTotalsDelta, blockTotals } from './chain-totals.js';
import { internalTransactionParties, retractCoinBalances, transactionParties } from './coin-balances.js';
import { applyDailyDelta, dailyDeltaOfBlocks } from './daily-figures.js';
import { retractContractCodes } from './contract-codes.js';
import { retractEnsNames } from './ens-names.js';
import { retractListCheckpoints } from './list-checkpoints.js';
import { proxyChangeTopics, retractProxies } from './proxies.js';
import { bigintFromNumeric, hexFromBytea, hexFromNullableBytea } from './encode.js';
import { revertTokenTransfers } from './token-ledger.js';
import { notifyChange } from './notifications.js';
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

interface RetractedTransactionRow {
  from_address: Buffer;
  to_address: Buffer | null;
  created_contract: Buffer | null;
  gas_used: string;
}

interface RetractedFrameRow {
  type: InternalTransactionType;
  from_address: Buffer;
  to_address: Buffer | null;
  created_contract: Buffer | null;
  value: string;
}

const toTransferRecord = (r: RetractedTransferRow): TokenTransferRecord => ({
  blockHash: hexFromBytea(r.block_hash),
  blockNumber: BigInt(r.block_number),
  transactionHash: hexFromBytea(r.transaction_hash),
  transactionIndex: r.transaction_index,
  logIndex: r.log_index,
  batchIndex: r.batch_index,
  tokenAddress: hexFromBytea(r.token_address),
  tokenType: r.token_type,
  from: hexFromBytea(r.from_address),
  to: hexFromBytea(r.to_address),
  amount: BigInt(r.amount),
  tokenId: bigintFromNumeric(r.token_id),
});

/**
 * Forgets that the given addresses are contracts when what showed them to be (a creation, a log they
 * emitted) was only in retracted blocks: a contract created on a lost branch does not exist on the
 * chain that replaced it, even where its creation was an internal one not traced yet (and a creation
 * or a log on the new branch marks it again when its block is written).
 */
async function forgetRetractedContracts(client: PoolClient, candidates: Buffer[]): Promise<void> {
  if (candidates.length === 0) return;
  await client.query(
    `DELETE FROM addresses a WHERE a.hash = ANY($1::bytea[])
       AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.created_contract = a.hash AND t.status IS DISTINCT FROM 0)
       AND NOT EXISTS (SELECT 1 FROM internal_transactions i WHERE i.created_contract = a.hash AND i.error IS NULL)
       AND NOT EXISTS (SELECT 1 FROM logs l WHERE l.address = a.hash)`,
    [candidates],
  );
}

/**
 * Takes the consensus blocks at and above a height off the canonical chain, in one transaction:
 * they stay as non-consensus rows (so that a lookup by number can say the block lost consensus),
 * every row derived from them is removed (their uncles' rows too), and the token balances and owners they moved are moved back.
 */
export async function retractBlocksFrom(pool: Pool, fromNumber: bigint): Promise<number> {
  return inTransaction(pool, async (client) => {
    // What the blocks brought to the daily figures, read from their rows before these go.
    const retracting = await client.query<{ hash: Buffer; number: string }>(
      'SELECT hash, number FROM blocks WHERE consensus AND number >= $1',
      [fromNumber.toString()],
    );
    const daily = await dailyDeltaOfBlocks(
      client,
      retracting.rows.map((r) => r.hash),
      retracting.rows.map((r) => BigInt(r.number)),
    );
    const { rows } = await client.query<{ hash: Buffer; miner: Buffer; transactions_count: number; gas_used: string }>(
      'UPDATE blocks SET consensus = false WHERE consensus AND number >= $1 RETURNING hash, miner, transactions_count, gas_used',
      [fromNumber.toString()],
    );
    const hashes = rows.map((r) => r.hash);
    await client.query('DELETE FROM blocks WHERE nephew_hash = ANY($1::bytea[])', [hashes]);
    const created = await client.query<RetractedTransactionRow>(
      'DELETE FROM transactions WHERE block_number >= $1 RETURNING from_address, to_address, created_contract, gas_used',
      [fromNumber.toString()],
    );
    const retractedFrames = await client.query<RetractedFrameRow>(
      'DELETE FROM internal_transactions WHERE block_hash = ANY($1::bytea[]) RETURNING type, from_address, to_address, created_contract, value',
      [hashes],
    );
    for (const table of ['withdrawals', 'block_rewards']) {
      await client.query(`DELETE FROM ${table} WHERE block_hash = ANY($1::bytea[])`, [hashes]);
    }
    const authorities = await client.query<{ authority: Buffer }>(
      'DELETE FROM transaction_authorizations WHERE block_hash = ANY($1::bytea[]) RETURNING authority',
      [hashes],
    );
    const emitters = await client.query<{ address: Buffer; first_topic: Buffer | null }>(
      'DELETE FROM logs WHERE block_hash = ANY($1::bytea[]) RETURNING address, first_topic',
      [hashes],
    );
    // An upgrade or a delegation that was only in the lost blocks is undone: those proxies are read again.
    await retractProxies(client, fromNumber, [
      ...emitters.rows
        .filter((r) => r.first_topic !== null && proxyChangeTopics.includes(hexFromBytea(r.first_topic)))
        .map((r) => hexFromBytea(r.address)),
      ...authorities.rows.flatMap((r) => (r.authority === null ? [] : [hexFromBytea(r.authority)])),
    ]);
    await forgetRetractedContracts(client, [
      ...[...created.rows, ...retractedFrames.rows].flatMap((r) => (r.created_contract === null ? [] : [r.created_contract])),
      ...emitters.rows.map((r) => r.address),
    ]);
    const retracted = await client.query<RetractedTransferRow>(
      'DELETE FROM token_transfers WHERE block_hash = ANY($1::bytea[]) RETURNING *',
      [hashes],
    );
    const transfers = retracted.rows.map(toTransferRecord);
    await revertTokenTransfers(client, transfers);
    const transactions = created.rows.map((r) => ({
      from: hexFromBytea(r.from_address),
      to: hexFromNullableBytea(r.to_address),
      createdContract: hexFromNullableBytea(r.created_contract),
      gasUsed: BigInt(r.gas_used),
    }));
    // The balances read at the lost heights go; whoever the lost blocks touched is read again.
    const frames = retractedFrames.rows.map((r) => ({
      type: r.type,
      from: hexFromBytea(r.from_address),
      to: hexFromNullableBytea(r.to_address),
      createdContract: hexFromNullableBytea(r.created_contract),
      value: BigInt(r.value),
    }));
    await retractCoinBalances(client, fromNumber, [
      ...transactionParties(transactions),
      ...internalTransactionParties(frames),
      ...rows.map((r) => hexFromBytea(r.miner)),
    ]);
    await retractContractCodes(client, fromNumber);
    await retractEnsNames(client, fromNumber);
    await retractListCheckpoints(client, fromNumber);
    const addresses = await applyCounterDeltas(
      client,
      counterDeltas(
        {
          transactions,
          tokenTransfers: transfers,
          miners: rows.map((r) => hexFromBytea(r.miner)),
        },
        -1n,
      ),
    );
    await applyDailyDelta(client, daily, -1n);
    await applyTotalsDelta(
      client,
      blockTotals(
        rows.map((r) => ({ transactionsCount: r.transactions_count, gasUsed: BigInt(r.gas_used) })),
        addresses,
        -1n,
      ),
    );
    if (hashes.length > 0) await notifyChange(client, { kind: 'retracted', from: Number(fromNumber) });
    return hashes.length;
  });
}
