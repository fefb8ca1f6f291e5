import type { Pool, PoolClient } from 'pg';
import type { BlockBundle, BlockRecord, BlockTraces } from '../model.js';
import { markContracts } from './addresses.js';
import { applyCounterDeltas, counterDeltas } from './address-counters.js';
import { applyTotalsDelta, blockTotals } from './chain-totals.js';
import { coinBalanceParties, markCoinBalances } from './coin-balances.js';
import { applyDailyDelta, dailyDeltaOfBlocks } from './daily-figures.js';
import { markProxyChecks, proxyChangeParties } from './proxies.js';
import { copyRows, csvLine, type Cell, type RowSet } from './copy.js';
import { notifyChange } from './notifications.js';
import {
  byteaArrayCell,
  byteaArrayCsv,
  byteaCell,
  byteaFromHex,
  nullableByteaCell,
  nullableByteaCsv,
  numericCell,
  numericCsv,
  timestampCell,
} from './encode.js';
import { removeMinedFromPending } from './pending-transactions.js';
import { applyTokenTransfers, recordTokens } from './token-ledger.js';
import { writeTraceRows } from './write-traces.js';
import { inTransaction } from './transaction.js';

const blockColumns = [
  'hash',
  'number',
  'parent_hash',
  'consensus',
  'timestamp',
  'miner',
  'nonce',
  'difficulty',
  'total_difficulty',
  'size',
  'extra_data',
  'state_root',
  'gas_limit',
  'gas_used',
  'base_fee_per_gas',
  'blob_gas_used',
  'excess_blob_gas',
  'uncles',
  'transactions_count',
  'withdrawals_count',
  'transaction_fees',
  'burnt_fees',
  'priority_fee',
  'blob_transactions_count',
  'beacon_deposits_count',
] as const;

const transactionColumns = [
  'hash',
  'block_number',
  'block_hash',
  'index',
  'block_timestamp',
  'from_address',
  'to_address',
  'created_contract',
  'nonce',
  'type',
  'value',
  'gas_limit',
  'gas_price',
  'max_fee_per_gas',
  'max_priority_fee_per_gas',
  'input',
  'status',
  'gas_used',
  'cumulative_gas_used',
  'max_fee_per_blob_gas',
  'blob_gas_used',
  'blob_gas_price',
  'blob_versioned_hashes',
] as const;

const authorizationColumns = [
  'block_hash',
  'transaction_index',
  'index',
  'chain_id',
  'address',
  'nonce',
  'y_parity',
  'r',
  's',
  'authority',
] as const;

const withdrawalColumns = ['block_hash', 'index', 'block_number', 'validator_index', 'address', 'amount'] as const;

const tokenTransferColumns = [
  'block_hash',
  'log_index',
  'batch_index',
  'block_number',
  'transaction_hash',
  'transaction_index',
  'token_address',
  'token_type',
  'from_address',
  'to_address',
  'amount',
  'token_id',
] as const;

const logColumns = [
  'block_hash',
  'log_index',
  'block_number',
  'transaction_hash',
  'transaction_index',
  'address',
  'first_topic',
  'second_topic',
  'third_topic',
  'fourth_topic',
  'data',
] as const;

function blockRows(bundles: readonly BlockBundle[]): string[] {
  return bundles.map(({ block }) => csvLine(blockCells(block, true)));
}

function blockCells(b: BlockRecord, consensus: boolean): Cell[] {
  return [
    byteaCell(b.hash),
    numericCell(b.number),
    byteaCell(b.parentHash),
    String(consensus),
    timestampCell(b.timestamp),
    byteaCell(b.miner),
    nullableByteaCell(b.nonce),
    numericCell(b.difficulty),
    numericCell(b.totalDifficulty),
    numericCell(b.size),
    byteaCell(b.extraData),
    byteaCell(b.stateRoot),
    numericCell(b.gasLimit),
    numericCell(b.gasUsed),
    numericCell(b.baseFeePerGas),
    numericCell(b.blobGasUsed),
    numericCell(b.excessBlobGas),
    byteaArrayCell(b.uncles),
    numericCell(b.transactionsCount),
    numericCell(b.withdrawalsCount),
    numericCell(b.transactionFees),
    numericCell(b.burntFees),
    numericCell(b.priorityFee),
    numericCell(b.blobTransactionsCount),
    numericCell(b.beaconDepositsCount),
  ];
}

// The rows below are many: each is one CSV line built straight from its record, without an array of
// cells or a test for quoting, since only free text (csvText) can need quotes.

function transactionRows(bundles: readonly BlockBundle[]): string[] {
  const lines: string[] = [];
  for (const { block, transactions } of bundles) {
    const timestamp = timestampCell(block.timestamp);
    for (const t of transactions) {
      lines.push(
        `${byteaCell(t.hash)},${t.blockNumber},${byteaCell(t.blockHash)},${t.index},${t.blockTimestamp === block.timestamp ? timestamp : timestampCell(t.blockTimestamp)},` +
          `${byteaCell(t.from)},${nullableByteaCsv(t.to)},${nullableByteaCsv(t.createdContract)},${t.nonce},${numericCsv(t.type)},${t.value},` +
          `${t.gasLimit},${numericCsv(t.gasPrice)},${numericCsv(t.maxFeePerGas)},${numericCsv(t.maxPriorityFeePerGas)},${byteaCell(t.input)},` +
          `${numericCsv(t.status)},${numericCsv(t.gasUsed)},${numericCsv(t.cumulativeGasUsed)},${numericCsv(t.maxFeePerBlobGas)},` +
          `${numericCsv(t.blobGasUsed)},${numericCsv(t.blobGasPrice)},${t.type === 3 ? byteaArrayCsv(t.blobVersionedHashes) : ''}\n`,
      );
    }
  }
  return lines;
}

function authorizationRows(bundles: readonly BlockBundle[]): string[] {
  const lines: string[] = [];
  for (const { transactions } of bundles)
    for (const t of transactions)
      t.authorizations.forEach((a, index) =>
        lines.push(
          `${byteaCell(t.blockHash)},${t.index},${index},${a.chainId},${byteaCell(a.address)},${a.nonce},${a.yParity},${a.r},${a.s},${nullableByteaCsv(a.authority)}\n`,
        ),
      );
  return lines;
}

function withdrawalRows(bundles: readonly BlockBundle[]): string[] {
  const lines: string[] = [];
  for (const { withdrawals } of bundles)
    for (const w of withdrawals)
      lines.push(`${byteaCell(w.blockHash)},${w.index},${w.blockNumber},${w.validatorIndex},${byteaCell(w.address)},${w.amount}\n`);
  return lines;
}

function tokenTransferRows(bundles: readonly BlockBundle[]): string[] {
  const lines: string[] = [];
  for (const { tokenTransfers } of bundles)
    for (const t of tokenTransfers)
      lines.push(
        `${byteaCell(t.blockHash)},${t.logIndex},${numericCsv(t.batchIndex)},${t.blockNumber},${byteaCell(t.transactionHash)},${t.transactionIndex},` +
          `${byteaCell(t.tokenAddress)},${t.tokenType},${byteaCell(t.from)},${byteaCell(t.to)},${numericCsv(t.amount)},${numericCsv(t.tokenId)}\n`,
      );
  return lines;
}

function logRows(bundles: readonly BlockBundle[]): string[] {
  const lines: string[] = [];
  for (const { logs } of bundles)
    for (const l of logs) {
      if (l.topics.length > 4)
        throw new Error(`log ${l.logIndex} of block ${l.blockHash} has ${l.topics.length} topics; a log has at most 4`);
      lines.push(
        `${byteaCell(l.blockHash)},${l.logIndex},${l.blockNumber},${byteaCell(l.transactionHash)},${l.transactionIndex},${byteaCell(l.address)},` +
          `${nullableByteaCsv(l.topics[0] ?? null)},${nullableByteaCsv(l.topics[1] ?? null)},${nullableByteaCsv(l.topics[2] ?? null)},` +
          `${nullableByteaCsv(l.topics[3] ?? null)},${byteaCell(l.data)}\n`,
      );
    }
  return lines;
}

/** The rows a batch of blocks adds to the tables written by COPY, in the order they are written. */
export function blockRowSets(bundles: readonly BlockBundle[]): RowSet[] {
  return [
    { table: 'blocks', columns: blockColumns, rows: blockRows(bundles) },
    { table: 'transactions', columns: transactionColumns, rows: transactionRows(bundles) },
    { table: 'transaction_authorizations', columns: authorizationColumns, rows: authorizationRows(bundles) },
    { table: 'withdrawals', columns: withdrawalColumns, rows: withdrawalRows(bundles) },
    { table: 'token_transfers', columns: tokenTransferColumns, rows: tokenTransferRows(bundles) },
    { table: 'logs', columns: logColumns, rows: logRows(bundles) },
  ];
}

/**
 * Adds the uncles of the blocks as non-consensus rows that name their nephew. An uncle already stored
 * as a block that lost consensus in a reorg is the same block: it is marked as the uncle it now is.
 * Few blocks have uncles, and none since the merge: one INSERT (not COPY, which cannot merge) does.
 */
async function insertUncles(client: PoolClient, bundles: readonly BlockBundle[]): Promise<void> {
  const rows = bundles.flatMap(({ block, uncleBlocks }) =>
    uncleBlocks.map((uncle) => [...blockCells(uncle, false), byteaCell(block.hash)]),
  );
  if (rows.length === 0) return;
  const columns = [...blockColumns, 'nephew_hash'];
  let parameter = 0;
  const values = rows.map(() => `(${columns.map(() => `$${++parameter}`).join(', ')})`);
  await client.query(
    `INSERT INTO blocks (${columns.join(', ')}) VALUES ${values.join(', ')}
     ON CONFLICT (hash) DO UPDATE SET nephew_hash = EXCLUDED.nephew_hash WHERE NOT blocks.consensus`,
    rows.flat(),
  );
}

/** The chain's own rows of the blocks (`rowSets`, encoded from `bundles`), inside the caller's transaction. */
async function copyBlockRows(client: PoolClient, bundles: readonly BlockBundle[], rowSets: readonly RowSet[]): Promise<void> {
  // A block that lost consensus and is canonical again (a reorg and its undoing) comes back as new.
  await client.query('DELETE FROM blocks WHERE NOT consensus AND hash = ANY($1::bytea[])', [
    bundles.map((b) => byteaFromHex(b.block.hash)),
  ]);
  for (const { table, columns, rows } of rowSets) await copyRows(client, table, columns, rows);
  await insertUncles(client, bundles);
}

/**
 * A bulk load's batch, far below the head: the blocks' rows and, when traced, their traces' rows, the
 * blocks marked traced, in one transaction. Of the ledger, only the chain's totals of blocks,
 * transactions and gas, by which the indexing status follows the load; the rest (balances, holders,
 * owners, counters, marks) the switch builds for the whole load at once. Nobody reads the blocks
 * before the switch: no change is notified and the node's pool is left alone.
 */
export async function writeBulkBlockBundles(
  pool: Pool,
  bundles: readonly BlockBundle[],
  traces: readonly BlockTraces[] | null,
): Promise<void> {
  if (bundles.length === 0) return;
  const rowSets = blockRowSets(bundles);
  await inTransaction(pool, async (client) => {
    await copyBlockRows(client, bundles, rowSets);
    await recordTokens(
      client,
      bundles.flatMap((b) => b.tokenTransfers),
    );
    await applyTotalsDelta(
      client,
      blockTotals(
        bundles.map((b) => b.block),
        0n,
        1n,
      ),
    );
    if (traces === null) return;
    await writeTraceRows(client, traces);
    await client.query('UPDATE blocks SET traced_at = now() WHERE hash = ANY($1::bytea[])', [
      bundles.map((b) => byteaFromHex(b.block.hash)),
    ]);
  });
}

/**
 * Writes blocks with everything derived from them in one transaction: after a crash at any moment,
 * either all of a batch is in the database or none of it is.
 */
export async function writeBlockBundles(pool: Pool, bundles: readonly BlockBundle[]): Promise<void> {
  if (bundles.length === 0) return;
  // Encoded before the transaction opens, to keep it short.
  const rowSets = blockRowSets(bundles);
  const counters = counterDeltas(
    {
      transactions: bundles.flatMap((b) => b.transactions),
      tokenTransfers: bundles.flatMap((b) => b.tokenTransfers),
      miners: bundles.map((b) => b.block.miner),
    },
    1n,
  );
  return inTransaction(pool, async (client) => {
    await copyBlockRows(client, bundles, rowSets);
    await markContracts(
      client,
      bundles.flatMap((b) => b.addresses.filter((a) => a.isContract).map((a) => a.hash)),
    );
    await applyTokenTransfers(
      client,
      bundles.flatMap((b) => b.tokenTransfers),
    );
    const addresses = await applyCounterDeltas(client, counters);
    await markCoinBalances(client, coinBalanceParties(bundles));
    await markProxyChecks(client, proxyChangeParties(bundles));
    await removeMinedFromPending(
      client,
      bundles.flatMap((b) => b.transactions.map((t) => t.hash)),
    );
    const daily = await dailyDeltaOfBlocks(
      client,
      bundles.map((b) => byteaFromHex(b.block.hash)),
      bundles.map((b) => b.block.number),
    );
    await applyDailyDelta(client, daily, 1n);
    await applyTotalsDelta(
      client,
      blockTotals(
        bundles.map((b) => b.block),
        addresses,
        1n,
      ),
    );
    const numbers = bundles.map((b) => Number(b.block.number));
    await notifyChange(client, { kind: 'blocks', from: Math.min(...numbers), to: Math.max(...numbers) });
  });
}
