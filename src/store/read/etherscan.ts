import { type Address, type Hex, type TokenType, hexQuantity } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import { accountListKeys, accountListSides, withConditions } from '../account-lists.js';
import { indexedHead } from '../index-progress.js';
import { type CheckpointedList, type ListWindow, pageKeys } from './list-pages.js';
import { type Db, SqlParams } from './sql.js';

export type { ListWindow } from './list-pages.js';

/**
 * The rows of the page's keys, each looked up on its own (a nested loop over the page): a join the
 * planner may hash, scanning the whole table for a page of 10,000 keys. OFFSET 0 keeps each subquery
 * from being flattened into such a join.
 */
const lookup = (alias: string, query: string) => `CROSS JOIN LATERAL (${query} OFFSET 0) ${alias}`;

/** A transaction by its position (the transactions_position index). */
const transactionAt = (alias: string, keysAlias: string) =>
  lookup(alias, `SELECT * FROM transactions x WHERE x.block_number = ${keysAlias}.block_number AND x.index = ${keysAlias}.index`);

/**
 * A row of a table keyed by its block's hash (token transfers, internal transactions), by the block
 * number and the rest of its key: through the consensus block of that number, as a reorg removes
 * these rows with their block.
 */
const rowInBlock = (table: string, alias: string, keys: readonly string[], keysAlias: string) =>
  lookup(
    alias,
    `SELECT x.* FROM blocks xb JOIN ${table} x ON x.block_hash = xb.hash
     WHERE xb.number = ${keysAlias}.block_number AND xb.consensus
       AND ${keys.map((key) => `x.${key} = ${keysAlias}.${key}`).join(' AND ')}`,
  );

const orderOf = (alias: string, keys: readonly string[], window: ListWindow) =>
  keys.map((key) => `${alias}.${key} ${window.descending ? 'DESC' : 'ASC'}`).join(', ');

/** A mined transaction as the account module lists it; numbers as decimal strings. */
export interface EtherscanTransactionItem {
  blockNumber: number;
  timestamp: number;
  hash: Hex;
  nonce: string;
  blockHash: Hex;
  index: number;
  from: Address;
  to: Address | null;
  value: string;
  gas: string;
  gasPrice: string | null;
  status: number | null;
  input: Hex;
  createdContract: Address | null;
  cumulativeGasUsed: string;
  gasUsed: string;
  /** Consensus blocks above it. */
  confirmations: number;
}

interface TransactionRow {
  block_number: string;
  timestamp: string;
  hash: Buffer;
  nonce: string;
  block_hash: Buffer;
  index: number;
  from_address: Buffer;
  to_address: Buffer | null;
  value: string;
  gas_limit: string;
  gas_price: string | null;
  status: number | null;
  input: Buffer;
  created_contract: Buffer | null;
  cumulative_gas_used: string;
  gas_used: string;
  head: string;
}

const transactionKeys = accountListKeys('transactions');

/** The transactions an address sent, received or created (a transaction to itself once). */
export async function listAddressTransactionsWindow(db: Db, address: Address, window: ListWindow): Promise<EtherscanTransactionItem[]> {
  const params = new SqlParams();
  const hash = byteaFromHex(address);
  const sides = accountListSides(params.add(hash), null);
  const keys = await pageKeys(db, params, sides, transactionKeys, window, { list: 'transactions', address: hash });
  const { rows } = await db.query<TransactionRow>(
    `SELECT t.block_number, extract(epoch FROM t.block_timestamp)::bigint AS timestamp, t.hash, t.nonce, t.block_hash, t.index,
            t.from_address, t.to_address, t.value, t.gas_limit, t.gas_price, t.status, t.input, t.created_contract,
            t.cumulative_gas_used, t.gas_used, ${indexedHead} AS head
     FROM (${keys}) k
     ${transactionAt('t', 'k')}
     ORDER BY ${orderOf('t', transactionKeys, window)}`,
    params.values,
  );
  return rows.map((r) => ({
    blockNumber: Number(r.block_number),
    timestamp: Number(r.timestamp),
    hash: hexFromBytea(r.hash),
    nonce: r.nonce,
    blockHash: hexFromBytea(r.block_hash),
    index: r.index,
    from: hexFromBytea(r.from_address),
    to: hexFromNullableBytea(r.to_address),
    value: r.value,
    gas: r.gas_limit,
    gasPrice: r.gas_price,
    status: r.status,
    input: hexFromBytea(r.input),
    createdContract: hexFromNullableBytea(r.created_contract),
    cumulativeGasUsed: r.cumulative_gas_used,
    gasUsed: r.gas_used,
    confirmations: Number(r.head) - Number(r.block_number),
  }));
}

/** One token transfer (one id of an ERC-1155 batch) with its token and its transaction's fields. */
export interface EtherscanTokenTransferItem {
  blockNumber: number;
  timestamp: number;
  transactionHash: Hex;
  nonce: string;
  blockHash: Hex;
  from: Address;
  to: Address;
  token: Address;
  logIndex: number;
  tokenName: string | null;
  tokenSymbol: string | null;
  tokenDecimals: string | null;
  transactionIndex: number;
  gas: string;
  gasPrice: string | null;
  gasUsed: string;
  cumulativeGasUsed: string;
  input: Hex;
  confirmations: number;
  amount: string | null;
  tokenId: string | null;
}

interface TokenTransferRow {
  block_number: string;
  timestamp: string;
  transaction_hash: Buffer;
  nonce: string;
  block_hash: Buffer;
  from_address: Buffer;
  to_address: Buffer;
  token_address: Buffer;
  log_index: number;
  name: string | null;
  symbol: string | null;
  decimals: string | null;
  transaction_index: number;
  gas_limit: string;
  gas_price: string | null;
  gas_used: string;
  cumulative_gas_used: string;
  input: Buffer;
  amount: string | null;
  token_id: string | null;
  head: string;
}

// Of every token type's list alike.
const transferKeys = accountListKeys('ERC-20');

/** The transfers of one token type that an address sent or received, of one token or any; or all of one token's. */
export async function listTokenTransfersWindow(
  db: Db,
  filter: { address: Address | null; token: Address | null; type: TokenType },
  window: ListWindow,
): Promise<EtherscanTokenTransferItem[]> {
  const params = new SqlParams();
  const type = params.add(filter.type);
  const token = filter.token === null ? [] : [`s.token_address = ${params.add(byteaFromHex(filter.token))}`];
  const sides = withConditions(
    filter.address === null
      ? [{ table: 'token_transfers', conditions: [`s.token_type = ${type}`] }]
      : accountListSides(params.add(byteaFromHex(filter.address)), type),
    token,
  );
  // Checkpoints number an address's transfers of a type, of every token.
  const checkpointed: CheckpointedList | null =
    filter.address === null || filter.token !== null ? null : { list: filter.type, address: byteaFromHex(filter.address) };
  const keys = await pageKeys(db, params, sides, transferKeys, window, checkpointed);
  const { rows } = await db.query<TokenTransferRow>(
    `SELECT tt.block_number, extract(epoch FROM t.block_timestamp)::bigint AS timestamp, tt.transaction_hash, t.nonce, tt.block_hash,
            tt.from_address, tt.to_address, tt.token_address, tt.log_index, k.name, k.symbol, k.decimals, tt.transaction_index,
            t.gas_limit, t.gas_price, t.gas_used, t.cumulative_gas_used, t.input, tt.amount, tt.token_id, ${indexedHead} AS head
     FROM (${keys}) p
     ${rowInBlock('token_transfers', 'tt', ['log_index', 'batch_index'], 'p')}
     ${lookup('t', 'SELECT * FROM transactions x WHERE x.block_number = tt.block_number AND x.index = tt.transaction_index')}
     LEFT JOIN tokens k ON k.address = tt.token_address
     ORDER BY ${orderOf('tt', transferKeys, window)}`,
    params.values,
  );
  return rows.map((r) => ({
    blockNumber: Number(r.block_number),
    timestamp: Number(r.timestamp),
    transactionHash: hexFromBytea(r.transaction_hash),
    nonce: r.nonce,
    blockHash: hexFromBytea(r.block_hash),
    from: hexFromBytea(r.from_address),
    to: hexFromBytea(r.to_address),
    token: hexFromBytea(r.token_address),
    logIndex: r.log_index,
    tokenName: r.name,
    tokenSymbol: r.symbol,
    tokenDecimals: r.decimals,
    transactionIndex: r.transaction_index,
    gas: r.gas_limit,
    gasPrice: r.gas_price,
    gasUsed: r.gas_used,
    cumulativeGasUsed: r.cumulative_gas_used,
    input: hexFromBytea(r.input),
    confirmations: Number(r.head) - Number(r.block_number),
    amount: r.amount,
    tokenId: r.token_id,
  }));
}

/** An internal transaction as the account module lists it. */
export interface EtherscanInternalTransactionItem {
  blockNumber: number;
  timestamp: number;
  from: Address;
  to: Address | null;
  value: string;
  createdContract: Address | null;
  transactionHash: Hex;
  index: number;
  input: Hex | null;
  type: string;
  callType: string | null;
  gas: string | null;
  gasUsed: string | null;
  error: string | null;
}

interface InternalTransactionRow {
  block_number: string;
  timestamp: string;
  from_address: Buffer;
  to_address: Buffer | null;
  value: string;
  created_contract: Buffer | null;
  transaction_hash: Buffer;
  index: number;
  input: Buffer | null;
  type: string;
  call_type: string | null;
  gas: string | null;
  gas_used: string | null;
  error: string | null;
}

const internalKeys = ['block_number', 'transaction_index', 'index'] as const;
// A transaction's own top-level call is not one of its internal transactions (as in /api/v2).
const notTopCall = "(s.type <> 'call' OR s.index > 0)";

async function readInternalTransactions(db: Db, selected: string, order: string, params: SqlParams) {
  const { rows } = await db.query<InternalTransactionRow>(
    `SELECT i.block_number, extract(epoch FROM b.timestamp)::bigint AS timestamp, i.from_address, i.to_address, i.value,
            i.created_contract, i.transaction_hash, i.index, i.input, i.type, i.call_type, i.gas, i.gas_used, i.error
     FROM (${selected}) k
     ${rowInBlock('internal_transactions', 'i', ['transaction_index', 'index'], 'k')}
     ${lookup('b', 'SELECT * FROM blocks x WHERE x.hash = i.block_hash')}
     ORDER BY ${order}`,
    params.values,
  );
  return rows.map((r): EtherscanInternalTransactionItem => ({
    blockNumber: Number(r.block_number),
    timestamp: Number(r.timestamp),
    from: hexFromBytea(r.from_address),
    to: hexFromNullableBytea(r.to_address),
    value: r.value,
    createdContract: hexFromNullableBytea(r.created_contract),
    transactionHash: hexFromBytea(r.transaction_hash),
    index: r.index,
    input: hexFromNullableBytea(r.input),
    type: r.type,
    callType: r.call_type,
    gas: r.gas,
    gasUsed: r.gas_used,
    error: r.error,
  }));
}

/** The internal transactions an address sent, received or created. */
export async function listAddressInternalTransactionsWindow(
  db: Db,
  address: Address,
  window: ListWindow,
): Promise<EtherscanInternalTransactionItem[]> {
  const params = new SqlParams();
  const hash = params.add(byteaFromHex(address));
  const sides = ['from_address', 'to_address', 'created_contract'].map((column) => ({
    table: 'internal_transactions',
    conditions: [`s.${column} = ${hash}`, notTopCall],
  }));
  return readInternalTransactions(
    db,
    await pageKeys(db, params, sides, internalKeys, window, null),
    orderOf('i', internalKeys, window),
    params,
  );
}

/** The internal transactions of one transaction, in trace order (at most `limit`). */
export async function listTransactionInternalTransactionsWindow(
  db: Db,
  transactionHash: Hex,
  limit: number,
): Promise<EtherscanInternalTransactionItem[]> {
  const params = new SqlParams();
  // By the transaction's position: internal_transactions has no index by transaction hash (migration 009).
  const selected = `SELECT s.block_number, s.transaction_index, s.index
    FROM transactions t JOIN internal_transactions s ON s.block_hash = t.block_hash AND s.transaction_index = t.index
    WHERE t.hash = ${params.add(byteaFromHex(transactionHash))} AND ${notTopCall} ORDER BY s.index LIMIT ${params.add(limit)}`;
  return readInternalTransactions(db, selected, 'i.index', params);
}

/** A consensus block an address mined. */
export interface MinedBlockItem {
  number: number;
  timestamp: number;
}

/** The consensus blocks an address mined, newest first. */
export async function listMinedBlocksWindow(db: Db, miner: Address, window: ListWindow): Promise<MinedBlockItem[]> {
  const { rows } = await db.query<{ number: string; timestamp: string }>(
    `SELECT number, extract(epoch FROM timestamp)::bigint AS timestamp FROM blocks
     WHERE miner = $1 AND consensus ORDER BY number DESC OFFSET $2 LIMIT $3`,
    [byteaFromHex(miner), (window.page - 1) * window.offset, window.offset],
  );
  return rows.map((r) => ({ number: Number(r.number), timestamp: Number(r.timestamp) }));
}

/** Which logs getLogs returns: a block range, an emitter, and topic conditions joined by and/or. */
export interface LogFilter {
  fromBlock: number;
  toBlock: number;
  address: Address | null;
  /** The topics given (position 0 to 3), in position order, each joined to the ones before by its operator. */
  topics: { position: 0 | 1 | 2 | 3; value: Hex; joinedBy: 'and' | 'or' }[];
}

/** Logs whose gas price or gas used PostgreSQL cannot write in hex (to_hex takes a bigint): their decimals, else null. */
interface LogRow {
  log: string;
  large_gas_price: string | null;
  large_gas_used: string | null;
}

const topicColumns = ['first_topic', 'second_topic', 'third_topic', 'fourth_topic'] as const;

const maxBigint = '9223372036854775807';
/** A bytes column as JSON text: its 0x-hex string, or null. */
const jsonHex = (column: string) => `coalesce('"0x' || encode(${column}, 'hex') || '"', 'null')`;
/** An integer or bigint as a JSON string of its 0x-hex. */
const jsonCount = (value: string) => `'"0x' || to_hex(${value}) || '"'`;
/** A numeric likewise, "" where it is null or beyond a bigint (then written here). */
const jsonNumeric = (value: string) => `CASE WHEN ${value} <= ${maxBigint} THEN ${jsonCount(`${value}::bigint`)} ELSE '""' END`;

/**
 * The logs that match, oldest first, at most `limit` (a block's logs are removed with it when it
 * loses consensus): with an address, read from its index within the range; without, block by block
 * through the range's consensus blocks, each block's logs by the primary key, stopping at the limit.
 * Each is the JSON text of the Etherscan-style API's log, written by PostgreSQL: for 1,000 logs,
 * 1,000 strings where node-postgres would make 13,000 values to be turned into objects and
 * serialized again.
 */
export async function findLogs(db: Db, filter: LogFilter, limit: number): Promise<string[]> {
  const params = new SqlParams();
  const from = params.add(filter.fromBlock);
  const to = params.add(filter.toBlock);
  const topics = filter.topics.reduce((expression, topic) => {
    const condition = `x.${topicColumns[topic.position]} = ${params.add(byteaFromHex(topic.value))}`;
    return expression === '' ? condition : `(${expression} ${topic.joinedBy === 'and' ? 'AND' : 'OR'} ${condition})`;
  }, '');
  const topicCondition = topics === '' ? '' : `AND ${topics}`;
  const selected =
    filter.address === null
      ? `SELECT l.* FROM blocks xb
         ${lookup('l', `SELECT * FROM logs x WHERE x.block_hash = xb.hash ${topicCondition} ORDER BY x.log_index`)}
         WHERE xb.consensus AND xb.number BETWEEN ${from}::bigint AND ${to}::bigint
         ORDER BY xb.number, l.log_index LIMIT ${params.add(limit)}`
      : `SELECT x.* FROM logs x
         WHERE x.address = ${params.add(byteaFromHex(filter.address))} AND x.block_number BETWEEN ${from}::bigint AND ${to}::bigint
           ${topicCondition}
         ORDER BY x.block_number, x.log_index LIMIT ${params.add(limit)}`;
  const { rows } = await db.query<LogRow>(
    `SELECT concat('{"address":', ${jsonHex('l.address')}, ',"topics":[', ${topicColumns.map((c) => jsonHex(`l.${c}`)).join(", ',', ")},
                   '],"data":', ${jsonHex('l.data')}, ',"blockNumber":', ${jsonCount('l.block_number')},
                   ',"timeStamp":', ${jsonCount('extract(epoch FROM t.block_timestamp)::bigint')},
                   ',"gasPrice":', ${jsonNumeric('t.gas_price')},
                   ',"gasUsed":', ${jsonNumeric('t.gas_used')}, ',"logIndex":', ${jsonCount('l.log_index')},
                   ',"transactionHash":', ${jsonHex('l.transaction_hash')}, ',"transactionIndex":', ${jsonCount('l.transaction_index')}, '}') AS log,
            CASE WHEN t.gas_price > ${maxBigint} THEN t.gas_price END AS large_gas_price,
            CASE WHEN t.gas_used > ${maxBigint} THEN t.gas_used END AS large_gas_used
     FROM (${selected}) l
     ${lookup('t', 'SELECT * FROM transactions x WHERE x.block_number = l.block_number AND x.index = l.transaction_index')}
     ORDER BY l.block_number, l.log_index`,
    params.values,
  );
  return rows.map(({ log, large_gas_price, large_gas_used }) => {
    if (large_gas_price === null && large_gas_used === null) return log;
    const item = JSON.parse(log) as { gasPrice: string; gasUsed: string };
    if (large_gas_price !== null) item.gasPrice = hexQuantity(BigInt(large_gas_price));
    if (large_gas_used !== null) item.gasUsed = hexQuantity(BigInt(large_gas_used));
    return JSON.stringify(item);
  });
}

/** An address's balance of a fungible token (no id): zero when it holds none. */
export async function findFungibleTokenBalance(db: Db, address: Address, token: Address): Promise<bigint> {
  const { rows } = await db.query<{ value: string }>(
    'SELECT value FROM address_token_balances WHERE address = $1 AND token_address = $2 AND token_id IS NULL',
    [byteaFromHex(address), byteaFromHex(token)],
  );
  return bigintFromNumeric(rows[0]?.value ?? null) ?? 0n;
}

/** One token an address holds (one id of an NFT token: its own row). */
export interface HeldTokenItem {
  balance: string;
  token: Address;
  name: string | null;
  decimals: string | null;
  symbol: string | null;
  type: TokenType;
  tokenId: string | null;
}

/** The tokens an address holds a positive balance of, at most `limit`. */
export async function listHeldTokens(db: Db, address: Address, limit: number): Promise<HeldTokenItem[]> {
  const { rows } = await db.query<{
    value: string;
    token_address: Buffer;
    name: string | null;
    decimals: string | null;
    symbol: string | null;
    type: TokenType;
    token_id: string | null;
  }>(
    `SELECT b.value, b.token_address, k.name, k.decimals, k.symbol, k.type, b.token_id
     FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
     WHERE b.address = $1 AND b.value > 0
     ORDER BY b.token_address, b.token_id NULLS FIRST LIMIT $2`,
    [byteaFromHex(address), limit],
  );
  return rows.map((r) => ({
    balance: r.value,
    token: hexFromBytea(r.token_address),
    name: r.name,
    decimals: r.decimals,
    symbol: r.symbol,
    type: r.type,
    tokenId: r.token_id,
  }));
}

/** The latest balance read of each address; an address without one is absent. */
export async function findLatestCoinBalances(db: Db, addresses: readonly Address[]): Promise<Map<Address, bigint>> {
  const { rows } = await db.query<{ address: Buffer; value: string }>(
    `SELECT a.address, c.value FROM unnest($1::bytea[]) AS a(address)
     CROSS JOIN LATERAL (SELECT value FROM address_coin_balances WHERE address = a.address ORDER BY block_number DESC LIMIT 1) c`,
    [addresses.map(byteaFromHex)],
  );
  return new Map(rows.map((r) => [hexFromBytea(r.address), BigInt(r.value)]));
}

/** The consensus block nearest a unix time: the last at or before it, or the first at or after it; null when none is. */
export async function findBlockNumberByTime(db: Db, unixSeconds: number, closest: 'before' | 'after'): Promise<number | null> {
  const { rows } = await db.query<{ number: string }>(
    closest === 'before'
      ? 'SELECT number FROM blocks WHERE consensus AND timestamp <= to_timestamp($1) ORDER BY timestamp DESC, number DESC LIMIT 1'
      : 'SELECT number FROM blocks WHERE consensus AND timestamp >= to_timestamp($1) ORDER BY timestamp, number LIMIT 1',
    [unixSeconds],
  );
  return rows[0] === undefined ? null : Number(rows[0].number);
}
