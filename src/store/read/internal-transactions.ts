import type { CallType, Hex, InternalTransactionRecord, InternalTransactionType } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import {
  type AddressItem,
  type Db,
  type PartyRow,
  SqlParams,
  partyColumns,
  partyJoins,
  parties,
  isoTimestamp,
  keysetCondition,
} from './sql.js';

export interface InternalTransactionKeyset {
  blockNumber: number;
  transactionIndex: number;
  index: number;
}

/** Which side of an internal transaction the address is on; null for either. */
export type InternalTransactionSide = 'to' | 'from' | null;

export interface InternalTransactionItem {
  blockNumber: number;
  transactionIndex: number;
  index: number;
  transactionHash: Hex;
  /** ISO 8601. */
  timestamp: string;
  type: InternalTransactionType;
  callType: CallType | null;
  from: AddressItem;
  to: AddressItem | null;
  createdContract: AddressItem | null;
  value: bigint;
  gas: bigint | null;
  error: string | null;
}

interface InternalTransactionRow extends PartyRow {
  block_number: string;
  transaction_index: number;
  index: number;
  transaction_hash: Buffer;
  timestamp: string;
  type: InternalTransactionType;
  call_type: CallType | null;
  value: string;
  gas: string | null;
  error: string | null;
}

const order = 'block_number DESC, transaction_index DESC, index DESC';

/**
 * The internal transactions of an address, newest first, below the keyset if one is given. "to"
 * includes the creations of the address. The top-level call frame of each transaction is left out,
 * since it repeats the transaction (a top-level creation stays). Each side is read from its own
 * keyset index, then merged without duplicates.
 */
export async function listAddressInternalTransactions(
  db: Db,
  address: Hex,
  side: InternalTransactionSide,
  after: InternalTransactionKeyset | null,
  limit: number,
): Promise<InternalTransactionItem[]> {
  const params = new SqlParams();
  const hash = params.add(byteaFromHex(address));
  const below =
    after === null
      ? ''
      : `AND ${keysetCondition(params, '<', [
          ['block_number', after.blockNumber, 'bigint'],
          ['transaction_index', after.transactionIndex, 'integer'],
          ['index', after.index, 'integer'],
        ])}`;
  const limitParam = params.add(limit);
  const columns =
    side === 'from'
      ? ['from_address']
      : side === 'to'
        ? ['to_address', 'created_contract']
        : ['from_address', 'to_address', 'created_contract'];
  const matches = columns.map(
    (column) =>
      `(SELECT block_hash, block_number, transaction_index, index FROM internal_transactions
        WHERE ${column} = ${hash} AND (type <> 'call' OR index > 0) ${below}
        ORDER BY ${order} LIMIT ${limitParam})`,
  );
  const { rows } = await db.query<InternalTransactionRow>(
    `SELECT i.block_number, i.transaction_index, i.index, i.transaction_hash, ${isoTimestamp('b.timestamp')} AS timestamp,
            i.type, i.call_type, ${partyColumns('i')}, i.value, i.gas, i.error
     FROM (SELECT * FROM (${matches.join(' UNION ')}) m ORDER BY ${order} LIMIT ${limitParam}) m
     JOIN internal_transactions i USING (block_hash, transaction_index, index)
     JOIN blocks b ON b.hash = i.block_hash
     ${partyJoins('i')}
     ORDER BY i.${order.replaceAll(', ', ', i.')}`,
    params.values,
  );
  return rows.map(toInternalTransactionItem);
}

/**
 * GET /api/v2/internal-transactions: every internal transaction, newest first, the top-level call of
 * each transaction left out as E7 leaves it out; below the keyset if one is given. One range of
 * internal_transactions_position (migration 030), whose predicate the query repeats.
 */
export async function listInternalTransactions(
  db: Db,
  after: InternalTransactionKeyset | null,
  limit: number,
): Promise<InternalTransactionItem[]> {
  const params = new SqlParams();
  const conditions = ["(type <> 'call' OR index > 0)"];
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['block_number', after.blockNumber, 'bigint'],
        ['transaction_index', after.transactionIndex, 'integer'],
        ['index', after.index, 'integer'],
      ]),
    );
  }
  const { rows } = await db.query<InternalTransactionRow>(
    `SELECT i.block_number, i.transaction_index, i.index, i.transaction_hash, ${isoTimestamp('b.timestamp')} AS timestamp,
            i.type, i.call_type, ${partyColumns('i')}, i.value, i.gas, i.error
     FROM (SELECT * FROM internal_transactions WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${params.add(limit)}) i
     JOIN blocks b ON b.hash = i.block_hash
     ${partyJoins('i')}
     ORDER BY i.${order.replaceAll(', ', ', i.')}`,
    params.values,
  );
  return rows.map(toInternalTransactionItem);
}

function toInternalTransactionItem(r: InternalTransactionRow): InternalTransactionItem {
  return {
    blockNumber: Number(r.block_number),
    transactionIndex: r.transaction_index,
    index: r.index,
    transactionHash: hexFromBytea(r.transaction_hash),
    timestamp: r.timestamp,
    type: r.type,
    callType: r.call_type,
    ...parties(r),
    value: BigInt(r.value),
    gas: bigintFromNumeric(r.gas),
    error: r.error,
  };
}

/**
 * The internal transactions of one transaction, newest first as E7 lists them (its top-level call
 * left out, as E7 leaves it out), below the keyset if one is given. They share the transaction's
 * block number and index, so the keyset narrows to index, which the transaction's index serves.
 */
export async function listTransactionInternalTransactions(
  db: Db,
  transaction: { hash: Hex; blockNumber: number; index: number },
  after: InternalTransactionKeyset | null,
  limit: number,
): Promise<InternalTransactionItem[]> {
  let below: number | null = null;
  if (after !== null) {
    const position = after.blockNumber - transaction.blockNumber || after.transactionIndex - transaction.index;
    if (position < 0) return [];
    if (position === 0) below = after.index;
  }
  const params = new SqlParams();
  // Through the primary key (block hash, transaction index, index), as E6 reads a trace: the index keyed by
  // transaction hash was dropped for what it cost the block writes (migration 009).
  const conditions = [
    `i.block_hash = (SELECT t.block_hash FROM transactions t WHERE t.hash = ${params.add(byteaFromHex(transaction.hash))})`,
    `i.transaction_index = ${params.add(transaction.index)}::integer`,
    "(i.type <> 'call' OR i.index > 0)",
  ];
  if (below !== null) conditions.push(`i.index < ${params.add(below)}::integer`);
  const { rows } = await db.query<InternalTransactionRow>(
    `SELECT i.block_number, i.transaction_index, i.index, i.transaction_hash, ${isoTimestamp('b.timestamp')} AS timestamp,
            i.type, i.call_type, ${partyColumns('i')}, i.value, i.gas, i.error
     FROM (SELECT * FROM internal_transactions i WHERE ${conditions.join(' AND ')} ORDER BY i.index DESC LIMIT ${params.add(limit)}) i
     JOIN blocks b ON b.hash = i.block_hash
     ${partyJoins('i')}
     ORDER BY i.index DESC`,
    params.values,
  );
  return rows.map(toInternalTransactionItem);
}

/** One stored trace frame, with what E6 repeats of its block. */

interface TraceFrameRow {
  transaction_index: number;
  index: number;
  trace_address: number[];
  type: InternalTransactionType;
  call_type: CallType | null;
  from_address: Buffer;
  to_address: Buffer | null;
  created_contract: Buffer | null;
  value: string;
  gas: string | null;
  gas_used: string | null;
  input: Buffer | null;
  output: Buffer | null;
  error: string | null;
}

/**
 * The trace frames of a transaction in order, [] while its block is not traced; 'pending' for a
 * pool transaction; null for an unknown one.
 */
export async function readTransactionTrace(db: Db, transactionHash: Hex): Promise<InternalTransactionRecord[] | 'pending' | null> {
  const hash = byteaFromHex(transactionHash);
  const { rows } = await db.query<TraceFrameRow>(
    `SELECT i.transaction_index, i.index, i.trace_address, i.type, i.call_type,
            i.from_address, i.to_address, i.created_contract, i.value, i.gas, i.gas_used,
            CASE WHEN i.index = 0 THEN t.input ELSE i.input END AS input, i.output, i.error
     FROM transactions t
     JOIN internal_transactions i ON i.block_hash = t.block_hash AND i.transaction_index = t.index
     WHERE t.hash = $1
     ORDER BY i.index`,
    [hash],
  );
  if (rows.length === 0) {
    const known = await db.query<{ mined: boolean; pending: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM transactions WHERE hash = $1) AS mined,
              EXISTS (SELECT 1 FROM pending_transactions WHERE hash = $1) AS pending`,
      [hash],
    );
    const { mined, pending } = known.rows[0]!;
    return mined ? [] : pending ? 'pending' : null;
  }
  // Every frame's transaction is the one asked for: its hash is not read again for each.
  return rows.map((r) => ({
    transactionHash,
    transactionIndex: r.transaction_index,
    index: r.index,
    traceAddress: r.trace_address,
    type: r.type,
    callType: r.call_type,
    from: hexFromBytea(r.from_address),
    to: hexFromNullableBytea(r.to_address),
    createdContract: hexFromNullableBytea(r.created_contract),
    value: BigInt(r.value),
    gas: bigintFromNumeric(r.gas),
    gasUsed: bigintFromNumeric(r.gas_used),
    input: hexFromNullableBytea(r.input),
    output: hexFromNullableBytea(r.output),
    error: r.error,
  }));
}
