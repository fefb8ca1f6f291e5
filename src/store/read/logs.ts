import type { Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem, isoTimestamp, keysetCondition } from './sql.js';

/** One receipt log as the API lists it. */
export interface LogItem {
  blockHash: Hex;
  blockNumber: number;
  logIndex: number;
  transactionHash: Hex;
  /** The contract that emitted the log. */
  address: AddressItem;
  /** Always four: the log's topics, then null for each it does not have. */
  topics: (Hex | null)[];
  data: Hex;
  /** ISO 8601: the timestamp of the log's block. */
  timestamp: string;
}

/** A transaction's logs run in log_index order, ascending: the page continues after this index. */
export interface TransactionLogKeyset {
  logIndex: number;
}

/** An address's logs run newest first: (block_number, log_index) descending. */
export interface AddressLogKeyset {
  blockNumber: number;
  logIndex: number;
}

/** The mined transaction whose logs were read, and a page of them. */
export interface TransactionLogs {
  /** The transaction's recipient (null for a contract creation), which Blockscout shows as the logs' smart_contract. */
  to: AddressItem | null;
  logs: LogItem[];
}

interface LogRow {
  block_hash: Buffer;
  block_number: string;
  log_index: number;
  transaction_hash: Buffer;
  address: Buffer;
  address_is_contract: boolean | null;
  first_topic: Buffer | null;
  second_topic: Buffer | null;
  third_topic: Buffer | null;
  fourth_topic: Buffer | null;
  data: Buffer;
  timestamp: string;
}

const logColumns = `l.block_hash, l.block_number, l.log_index, l.transaction_hash, l.address, la.is_contract AS address_is_contract,
  l.first_topic, l.second_topic, l.third_topic, l.fourth_topic, l.data`;

const toLogItem = (r: LogRow): LogItem => ({
  blockHash: hexFromBytea(r.block_hash),
  blockNumber: Number(r.block_number),
  logIndex: r.log_index,
  transactionHash: hexFromBytea(r.transaction_hash),
  address: addressItem(r.address, r.address_is_contract),
  topics: [r.first_topic, r.second_topic, r.third_topic, r.fourth_topic].map(hexFromNullableBytea),
  data: hexFromBytea(r.data),
  timestamp: r.timestamp,
});

interface TransactionRow {
  block_hash: Buffer;
  index: number;
  timestamp: string;
  to_address: Buffer | null;
  to_is_contract: boolean | null;
}

/**
 * The logs of a transaction in log_index order, after the keyset if one is given: the mined
 * transaction's logs, 'pending' for a transaction in the node's pool, null for an unknown one.
 * A transaction's logs are one run of indexes in its block, which the primary key holds in order.
 */
export async function listTransactionLogs(
  db: Db,
  transactionHash: Hex,
  after: TransactionLogKeyset | null,
  limit: number,
): Promise<TransactionLogs | 'pending' | null> {
  const hash = byteaFromHex(transactionHash);
  const found = await db.query<TransactionRow>(
    `SELECT t.block_hash, t.index, ${isoTimestamp('t.block_timestamp')} AS timestamp, t.to_address, ta.is_contract AS to_is_contract
     FROM transactions t LEFT JOIN addresses ta ON ta.hash = t.to_address
     WHERE t.hash = $1`,
    [hash],
  );
  const transaction = found.rows[0];
  if (transaction === undefined) {
    const pending = await db.query('SELECT 1 FROM pending_transactions WHERE hash = $1', [hash]);
    return pending.rows.length > 0 ? 'pending' : null;
  }
  const params = new SqlParams();
  const conditions = [`l.block_hash = ${params.add(transaction.block_hash)}`, `l.transaction_index = ${params.add(transaction.index)}`];
  if (after !== null) conditions.push(keysetCondition(params, '>', [['l.log_index', after.logIndex, 'integer']]));
  const { rows } = await db.query<Omit<LogRow, 'timestamp'>>(
    `SELECT ${logColumns}
     FROM (SELECT * FROM logs l WHERE ${conditions.join(' AND ')} ORDER BY l.log_index LIMIT ${params.add(limit)}) l
     LEFT JOIN addresses la ON la.hash = l.address
     ORDER BY l.log_index`,
    params.values,
  );
  return {
    to: transaction.to_address === null ? null : addressItem(transaction.to_address, transaction.to_is_contract),
    logs: rows.map((r) => toLogItem(Object.assign(r, { timestamp: transaction.timestamp }))),
  };
}

/** The logs an address emitted, newest first, after the keyset if one is given, those with the topic among their four if one is given. */
export async function listAddressLogs(
  db: Db,
  address: Hex,
  topic: Hex | null,
  after: AddressLogKeyset | null,
  limit: number,
): Promise<LogItem[]> {
  const params = new SqlParams();
  const conditions = [`l.address = ${params.add(byteaFromHex(address))}`];
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['l.block_number', after.blockNumber, 'bigint'],
        ['l.log_index', after.logIndex, 'integer'],
      ]),
    );
  }
  if (topic !== null) {
    const t = params.add(byteaFromHex(topic));
    conditions.push(`(l.first_topic = ${t} OR l.second_topic = ${t} OR l.third_topic = ${t} OR l.fourth_topic = ${t})`);
  }
  const { rows } = await db.query<LogRow>(
    `SELECT ${logColumns}, ${isoTimestamp('b.timestamp')} AS timestamp
     FROM (SELECT * FROM logs l WHERE ${conditions.join(' AND ')}
           ORDER BY l.block_number DESC, l.log_index DESC LIMIT ${params.add(limit)}) l
     JOIN blocks b ON b.hash = l.block_hash
     LEFT JOIN addresses la ON la.hash = l.address
     ORDER BY l.block_number DESC, l.log_index DESC`,
    params.values,
  );
  return rows.map(toLogItem);
}
