import type { BlockRecord, Hex } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import { indexedHead } from '../index-progress.js';
import { type AddressItem, type Db, SqlParams, addressItem, isoTimestamp, keysetCondition } from './sql.js';

export interface BlockRewardItem {
  /** validator, emission_funds or uncle. */
  type: string;
  reward: bigint;
}

/** A block as the API reads it: the indexed record, with its miner's facts and its rewards. */
export type BlockItem = Omit<BlockRecord, 'number' | 'timestamp' | 'miner' | 'size' | 'beaconDepositsCount'> & {
  number: number;
  /** Null for blocks stored before deposit requests were counted. */
  beaconDepositsCount: number | null;
  consensus: boolean;
  /** For an uncle, the block that lists it; null for every other block. */
  nephewHash: Hex | null;
  /** ISO 8601. */
  timestamp: string;
  miner: AddressItem;
  size: number | null;
  rewards: BlockRewardItem[];
};

export interface BlocksValidatedKeyset {
  blockNumber: number;
}

interface BlockRow {
  hash: Buffer;
  number: string;
  parent_hash: Buffer;
  consensus: boolean;
  nephew_hash: Buffer | null;
  timestamp: string;
  miner: Buffer;
  miner_is_contract: boolean | null;
  nonce: Buffer | null;
  difficulty: string | null;
  total_difficulty: string | null;
  size: string | null;
  extra_data: Buffer;
  state_root: Buffer;
  gas_limit: string;
  gas_used: string;
  base_fee_per_gas: string | null;
  blob_gas_used: string | null;
  excess_blob_gas: string | null;
  uncles: Buffer[];
  transactions_count: number;
  withdrawals_count: number;
  blob_transactions_count: number;
  beacon_deposits_count: number | null;
  transaction_fees: string;
  burnt_fees: string;
  priority_fee: string;
}

interface BlockRewardRow {
  block_hash: Buffer;
  type: string;
  reward: string;
}

async function readRewards(db: Db, blockHashes: Buffer[]): Promise<Map<Hex, BlockRewardItem[]>> {
  const byBlock = new Map<Hex, BlockRewardItem[]>();
  if (blockHashes.length === 0) return byBlock;
  const { rows } = await db.query<BlockRewardRow>(
    'SELECT block_hash, type, reward FROM block_rewards WHERE block_hash = ANY($1) ORDER BY block_hash, address, type',
    [blockHashes],
  );
  for (const row of rows) {
    const key = hexFromBytea(row.block_hash);
    const rewards = byBlock.get(key) ?? [];
    rewards.push({ type: row.type, reward: BigInt(row.reward) });
    byBlock.set(key, rewards);
  }
  return byBlock;
}

function toBlockItem(r: BlockRow, rewards: BlockRewardItem[]): BlockItem {
  return {
    hash: hexFromBytea(r.hash),
    number: Number(r.number),
    parentHash: hexFromBytea(r.parent_hash),
    consensus: r.consensus,
    nephewHash: hexFromNullableBytea(r.nephew_hash),
    timestamp: r.timestamp,
    miner: addressItem(r.miner, r.miner_is_contract),
    nonce: hexFromNullableBytea(r.nonce),
    difficulty: bigintFromNumeric(r.difficulty),
    totalDifficulty: bigintFromNumeric(r.total_difficulty),
    size: r.size === null ? null : Number(r.size),
    extraData: hexFromBytea(r.extra_data),
    stateRoot: hexFromBytea(r.state_root),
    gasLimit: BigInt(r.gas_limit),
    gasUsed: BigInt(r.gas_used),
    baseFeePerGas: bigintFromNumeric(r.base_fee_per_gas),
    blobGasUsed: bigintFromNumeric(r.blob_gas_used),
    excessBlobGas: bigintFromNumeric(r.excess_blob_gas),
    uncles: r.uncles.map(hexFromBytea),
    transactionsCount: r.transactions_count,
    withdrawalsCount: r.withdrawals_count,
    blobTransactionsCount: r.blob_transactions_count,
    beaconDepositsCount: r.beacon_deposits_count,
    transactionFees: BigInt(r.transaction_fees),
    burntFees: BigInt(r.burnt_fees),
    priorityFee: BigInt(r.priority_fee),
    rewards,
  };
}

/** Consensus blocks mined by the address, highest first, below the keyset if one is given. */
export async function listBlocksValidated(db: Db, miner: Hex, after: BlocksValidatedKeyset | null, limit: number): Promise<BlockItem[]> {
  const params = new SqlParams();
  const conditions = ['b.consensus', `b.miner = ${params.add(byteaFromHex(miner))}`];
  if (after !== null) conditions.push(keysetCondition(params, '<', [['b.number', after.blockNumber, 'bigint']]));
  return readBlocks(
    db,
    `SELECT * FROM blocks b WHERE ${conditions.join(' AND ')} ORDER BY b.number DESC LIMIT ${params.add(limit)}`,
    params,
  );
}

/** Renders the blocks that `selected` (a query over blocks b) picks, highest first, with their rewards. */
async function readBlocks(db: Db, selected: string, params: SqlParams): Promise<BlockItem[]> {
  const { rows } = await db.query<BlockRow>(
    `SELECT b.hash, b.number, b.parent_hash, b.consensus, b.nephew_hash, ${isoTimestamp('b.timestamp')} AS timestamp,
            b.miner, ma.is_contract AS miner_is_contract, b.nonce, b.difficulty, b.total_difficulty, b.size,
            b.extra_data, b.state_root, b.gas_limit, b.gas_used, b.base_fee_per_gas, b.blob_gas_used,
            b.excess_blob_gas, b.uncles, b.transactions_count, b.withdrawals_count, b.transaction_fees,
            b.burnt_fees, b.priority_fee, b.blob_transactions_count, b.beacon_deposits_count
     FROM (${selected}) b
     LEFT JOIN addresses ma ON ma.hash = b.miner
     ORDER BY b.number DESC`,
    params.values,
  );
  const rewards = await readRewards(
    db,
    rows.map((row) => row.hash),
  );
  return rows.map((row) => toBlockItem(row, rewards.get(hexFromBytea(row.hash)) ?? []));
}

/** Which blocks a list holds: the consensus chain, the blocks that lost consensus in a reorg, or the uncles. */
export type BlockListKind = 'consensus' | 'lost' | 'uncle';

// Each kind is one range of its partial index on number (blocks_consensus_number, blocks_reorg_number, blocks_uncle_number).
const kindConditions: Record<BlockListKind, string> = {
  consensus: 'b.consensus',
  lost: 'NOT b.consensus AND b.nephew_hash IS NULL',
  uncle: 'b.nephew_hash IS NOT NULL',
};

/** Blocks of one kind, highest first, below the keyset if one is given. */
export async function listBlocks(db: Db, kind: BlockListKind, after: BlocksValidatedKeyset | null, limit: number): Promise<BlockItem[]> {
  const params = new SqlParams();
  const conditions = [kindConditions[kind]];
  if (after !== null) conditions.push(keysetCondition(params, '<', [['b.number', after.blockNumber, 'bigint']]));
  return readBlocks(
    db,
    `SELECT * FROM blocks b WHERE ${conditions.join(' AND ')} ORDER BY b.number DESC LIMIT ${params.add(limit)}`,
    params,
  );
}

/** A block as its own page reads it: the list's item with the count of its internal transactions. */
export type BlockDetailItem = BlockItem & {
  /** Its internal transactions but each transaction's top-level call; null until the block is traced. */
  internalTransactionsCount: number | null;
};

/** Any stored block, consensus or not, by its hash, with what its page adds; null when unknown. */
export async function readBlockDetail(db: Db, hash: Hex): Promise<BlockDetailItem | null> {
  const params = new SqlParams();
  const [block] = await readBlocks(db, `SELECT * FROM blocks b WHERE b.hash = ${params.add(byteaFromHex(hash))}`, params);
  if (block === undefined) return null;
  // Counted by the primary key's block_hash prefix; null while the trace stage has not reached it.
  const { rows } = await db.query<{ count: string | null }>(
    `SELECT CASE WHEN b.traced_at IS NULL THEN NULL
                 ELSE (SELECT count(*) FROM internal_transactions i WHERE i.block_hash = b.hash AND (i.type <> 'call' OR i.index > 0))
            END AS count
     FROM blocks b WHERE b.hash = $1`,
    [byteaFromHex(hash)],
  );
  const count = rows[0]?.count ?? null;
  return Object.assign(block, { internalTransactionsCount: count === null ? null : Number(count) });
}

/** A stored block as a lookup by hash or number finds it. */
export interface BlockIdentityItem {
  hash: Hex;
  number: number;
  consensus: boolean;
}

interface BlockIdentityRow {
  hash: Buffer;
  number: string;
  consensus: boolean;
}

const toBlockIdentityItem = (row: BlockIdentityRow): BlockIdentityItem => ({
  hash: hexFromBytea(row.hash),
  number: Number(row.number),
  consensus: row.consensus,
});

/** Any block, consensus or not, with this hash. */
export async function findBlockByHash(db: Db, hash: Hex): Promise<BlockIdentityItem | null> {
  const { rows } = await db.query<BlockIdentityRow>('SELECT hash, number, consensus FROM blocks WHERE hash = $1', [byteaFromHex(hash)]);
  return rows[0] === undefined ? null : toBlockIdentityItem(rows[0]);
}

/**
 * The consensus block at this height; else, at or below the indexed head, a block at this height that
 * lost consensus in a reorg (an uncle is never found by its number); else null.
 */
export async function findBlockByNumber(db: Db, number: number): Promise<BlockIdentityItem | null> {
  // The second branch runs only when the first finds nothing, and then only at or below the head.
  const { rows } = await db.query<BlockIdentityRow>(
    `(SELECT hash, number, consensus FROM blocks WHERE number = $1 AND consensus)
     UNION ALL
     (SELECT hash, number, consensus FROM blocks
      WHERE number = $1 AND NOT consensus AND nephew_hash IS NULL AND $1 <= ${indexedHead}
      LIMIT 1)
     LIMIT 1`,
    [number],
  );
  return rows[0] === undefined ? null : toBlockIdentityItem(rows[0]);
}

/** The newest consensus block's number and miner, or null before the first block. */
export async function findNewestBlock(db: Db): Promise<{ number: number; miner: Hex } | null> {
  const { rows } = await db.query<{ number: string; miner: Buffer }>(
    'SELECT number, miner FROM blocks WHERE consensus ORDER BY number DESC LIMIT 1',
  );
  return rows[0] === undefined ? null : { number: Number(rows[0].number), miner: hexFromBytea(rows[0].miner) };
}

/** The consensus blocks numbered from..to, highest first, at most `limit` of them (the highest). */
export async function listConsensusBlocksBetween(db: Db, range: BlockRange, limit: number): Promise<BlockItem[]> {
  const params = new SqlParams();
  return readBlocks(
    db,
    `SELECT * FROM blocks b WHERE b.consensus AND b.number BETWEEN ${params.add(range.from)}::bigint AND ${params.add(range.to)}::bigint
     ORDER BY b.number DESC LIMIT ${params.add(limit)}`,
    params,
  );
}

/** Block numbers from..to, inclusive. */
export interface BlockRange {
  from: number;
  to: number;
}

/** How many transactions the consensus blocks numbered from..to hold. */
export async function countTransactionsBetween(db: Db, range: BlockRange): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    'SELECT coalesce(sum(transactions_count), 0) AS count FROM blocks WHERE consensus AND number BETWEEN $1::bigint AND $2::bigint',
    [range.from, range.to],
  );
  return Number(rows[0]?.count ?? 0);
}
