import type { Pool, PoolClient } from 'pg';
import type { Address, BlockRewardRecord, BlockTraces, Hex, InternalTransactionRecord } from '../model.js';
import { markContracts } from './addresses.js';
import { internalTransactionParties, markCoinBalances } from './coin-balances.js';
import { copyRows, csvText, type RowSet } from './copy.js';
import { applyDailyDelta, dailyDeltaOfTraces } from './daily-figures.js';
import { byteaCell, byteaFromHex, hexFromBytea, nullableByteaCsv, nullableByteaFromHex, numericCsv } from './encode.js';
import { inRedoableTransaction } from './transaction.js';
import { notifyChange } from './notifications.js';

const internalTransactionColumns = [
  'block_hash',
  'transaction_index',
  'index',
  'block_number',
  'transaction_hash',
  'trace_address',
  'type',
  'call_type',
  'from_address',
  'to_address',
  'created_contract',
  'value',
  'gas',
  'gas_used',
  'error',
  'input',
  'output',
] as const;

/** One CSV line a frame, built straight from it: only its error is free text that can need quotes. */
function internalTransactionRows(traces: BlockTraces): string[] {
  const block = `${byteaCell(traces.blockHash)},`;
  return traces.internalTransactions.map(
    (t) =>
      `${block}${t.transactionIndex},${t.index},${traces.blockNumber},${byteaCell(t.transactionHash)},"{${t.traceAddress.join(',')}}",` +
      `${t.type},${t.callType ?? ''},${byteaCell(t.from)},${nullableByteaCsv(t.to)},${nullableByteaCsv(t.createdContract)},${t.value},` +
      `${numericCsv(t.gas)},${numericCsv(t.gasUsed)},${csvText(t.error)},${t.index === 0 ? '' : nullableByteaCsv(t.input)},${nullableByteaCsv(t.output)}\n`,
  );
}

/** The internal_transactions rows of traced blocks, as COPY takes them. */
export function internalTransactionRowSet(blocks: readonly BlockTraces[]): RowSet {
  return { table: 'internal_transactions', columns: internalTransactionColumns, rows: blocks.flatMap(internalTransactionRows) };
}

/** What a transaction's traces say about it. */
interface TransactionOutcome {
  hash: Hex;
  /** The top-level frame's error, as Blockscout shows it for a failed transaction. */
  error: string | null;
  revertReason: Hex | null;
  hasErrorInInternalTransactions: boolean;
}

function transactionOutcomes(frames: readonly InternalTransactionRecord[]): TransactionOutcome[] {
  const outcomes = new Map<Hex, TransactionOutcome>();
  for (const frame of frames) {
    const outcome = outcomes.get(frame.transactionHash) ?? {
      hash: frame.transactionHash,
      error: null,
      revertReason: null,
      hasErrorInInternalTransactions: false,
    };
    if (frame.index === 0) {
      outcome.error = frame.error;
      outcome.revertReason = frame.error !== null && frame.output !== null && frame.output !== '0x' ? frame.output : null;
    } else if (frame.error !== null) {
      outcome.hasErrorInInternalTransactions = true;
    }
    outcomes.set(frame.transactionHash, outcome);
  }
  return [...outcomes.values()];
}

/** Minted rewards per (address, type), the validator's with the block's transaction fees, as Blockscout records them. */
function summedRewards(rewards: readonly BlockRewardRecord[]): BlockRewardRecord[] {
  const byKey = new Map<string, BlockRewardRecord>();
  for (const reward of rewards) {
    const key = `${reward.address}:${reward.type}`;
    const sum = byKey.get(key);
    byKey.set(key, Object.assign({}, reward, { reward: (sum?.reward ?? 0n) + reward.reward }));
  }
  return [...byKey.values()];
}

/** The blocks' rewards in one statement, each validator's with its block's transaction fees. */
async function writeRewards(client: PoolClient, blocks: readonly BlockTraces[]): Promise<void> {
  const rows = blocks.flatMap((traces) => summedRewards(traces.rewards).map((r) => Object.assign({}, r, { blockHash: traces.blockHash })));
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO block_rewards (block_hash, address, type, reward)
     SELECT r.block_hash, r.address, r.type, r.reward + CASE WHEN r.type = 'validator' THEN b.transaction_fees ELSE 0 END
       FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::numeric[]) AS r (block_hash, address, type, reward)
       JOIN blocks b ON b.hash = r.block_hash`,
    [
      rows.map((r) => byteaFromHex(r.blockHash)),
      rows.map((r) => byteaFromHex(r.address)),
      rows.map((r) => r.type),
      rows.map((r) => r.reward.toString()),
    ],
  );
}

const isClean = (o: TransactionOutcome): boolean => o.error === null && !o.hasErrorInInternalTransactions;

/**
 * The trace-derived fields of the blocks' transactions that found an error, in one statement for all
 * the blocks. A clean transaction is left as it was written: in a traced block, null there reads as no
 * error, and rewriting every transaction (a whole new row version in each of its indexes) cost the
 * indexer more than any other statement but the balance upsert.
 */
async function writeOutcomes(client: PoolClient, blocks: readonly BlockTraces[]): Promise<void> {
  const outcomes = blocks.flatMap((traces) =>
    transactionOutcomes(traces.internalTransactions).flatMap((o) =>
      isClean(o) ? [] : [Object.assign({}, o, { blockHash: traces.blockHash })],
    ),
  );
  if (outcomes.length === 0) return;
  await client.query(
    `UPDATE transactions t
        SET error = o.error, revert_reason = o.revert_reason, has_error_in_internal_transactions = o.has_error
       FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::bytea[], $5::boolean[]) AS o (block_hash, hash, error, revert_reason, has_error)
      WHERE t.hash = o.hash AND t.block_hash = o.block_hash`,
    [
      outcomes.map((o) => byteaFromHex(o.blockHash)),
      outcomes.map((o) => byteaFromHex(o.hash)),
      outcomes.map((o) => o.error),
      outcomes.map((o) => nullableByteaFromHex(o.revertReason)),
      outcomes.map((o) => o.hasErrorInInternalTransactions),
    ],
  );
}

/** The contracts the frames that did not fail created. */
const createdContracts = (traces: readonly BlockTraces[]): Address[] =>
  traces.flatMap((t) => t.internalTransactions.flatMap((f) => (f.createdContract === null || f.error !== null ? [] : [f.createdContract])));

/** The rows traces add, inside the caller's transaction: internal transactions, block rewards, the outcomes of failed transactions. */
export async function writeTraceRows(client: PoolClient, blocks: readonly BlockTraces[]): Promise<void> {
  const { table, columns, rows } = internalTransactionRowSet(blocks);
  await copyRows(client, table, columns, rows);
  await writeRewards(client, blocks);
  await writeOutcomes(client, blocks);
}

/**
 * Stores the traces of blocks with everything derived from them (the addresses whose coin balance
 * their internal transactions moved marked for a read), and marks the blocks traced, in one transaction. A block that lost consensus (or was traced) meanwhile is skipped: its row is locked
 * first, so a reorg retracting it waits for this transaction or has already happened.
 * Returns how many blocks were stored.
 */
export async function writeBlockTraces(pool: Pool, blocks: readonly BlockTraces[]): Promise<number> {
  if (blocks.length === 0) return 0;
  return inRedoableTransaction(pool, async (client) => {
    const { rows } = await client.query<{ hash: Buffer }>(
      'SELECT hash FROM blocks WHERE hash = ANY($1::bytea[]) AND consensus AND traced_at IS NULL ORDER BY hash FOR UPDATE',
      [blocks.map((b) => byteaFromHex(b.blockHash))],
    );
    const current = new Set(rows.map((r) => hexFromBytea(r.hash)));
    const kept = blocks.filter((b) => current.has(b.blockHash));
    await writeTraceRows(client, kept);
    await markContracts(client, createdContracts(kept));
    await markCoinBalances(client, internalTransactionParties(kept.flatMap((t) => t.internalTransactions)));
    await client.query('UPDATE blocks SET traced_at = now() WHERE hash = ANY($1::bytea[])', [rows.map((r) => r.hash)]);
    await applyDailyDelta(
      client,
      await dailyDeltaOfTraces(
        client,
        kept.map((b) => byteaFromHex(b.blockHash)),
      ),
      1n,
    );
    if (kept.length > 0) {
      const numbers = kept.map((b) => Number(b.blockNumber));
      await notifyChange(client, { kind: 'traced', from: Math.min(...numbers), to: Math.max(...numbers) });
    }
    return kept.length;
  });
}
