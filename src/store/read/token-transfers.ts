import type { Address, Hex, TokenType } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem, isoTimestamp, keysetCondition } from './sql.js';
import { type TokenItem, type TokenRow, tokenColumns, toTokenItem } from './tokens.js';

/** One transferred (token id, amount): an ERC-1155 batch gives one row per id. */
export interface TokenTransferItem {
  blockHash: Hex;
  blockNumber: number;
  logIndex: number;
  batchIndex: number;
  transactionHash: Hex;
  /** ISO 8601. */
  timestamp: string;
  /** The input of the transaction that made the transfer, and whom it called (null: a creation). */
  input: Hex;
  transactionTo: Address | null;
  from: AddressItem;
  to: AddressItem;
  token: TokenItem;
  amount: bigint;
  tokenId: bigint | null;
  /** The NFT instance of the id, null when it has no instance row. */
  instance: { metadata: unknown } | null;
}

/** Newest first: (block_number, log_index, batch_index) descending. */
export interface TokenTransferKeyset {
  blockNumber: number;
  logIndex: number;
  batchIndex: number;
}

export interface AddressTokenTransferFilters {
  /** to: the address receives; from: it sends; null: either. */
  direction: 'to' | 'from' | null;
  /** Empty: every type. */
  types: TokenType[];
  token: Hex | null;
}

interface TokenTransferRow extends TokenRow {
  block_hash: Buffer;
  block_number: string;
  log_index: number;
  batch_index: number;
  transaction_hash: Buffer;
  timestamp: string;
  input: Buffer;
  transaction_to: Buffer | null;
  from_address: Buffer;
  from_is_contract: boolean | null;
  to_address: Buffer;
  to_is_contract: boolean | null;
  amount: string;
  token_id: string | null;
  has_instance: boolean;
  metadata: unknown;
}

const order = 'block_number DESC, log_index DESC, batch_index DESC';

function afterTransfer(params: SqlParams, after: TokenTransferKeyset | null): string[] {
  if (after === null) return [];
  return [
    keysetCondition(params, '<', [
      ['tt.block_number', after.blockNumber, 'bigint'],
      ['tt.log_index', after.logIndex, 'integer'],
      ['tt.batch_index', after.batchIndex, 'integer'],
    ]),
  ];
}

/** Renders the page of transfers that `selected` (a query over token_transfers tt, ordered and limited) picks. */
async function readTransfers(db: Db, selected: string, params: SqlParams): Promise<TokenTransferItem[]> {
  const { rows } = await db.query<TokenTransferRow>(
    `SELECT tt.block_hash, tt.block_number, tt.log_index, tt.batch_index, tt.transaction_hash,
            ${isoTimestamp('t.block_timestamp')} AS timestamp, t.input, t.to_address AS transaction_to,
            tt.from_address, fa.is_contract AS from_is_contract, tt.to_address, ta.is_contract AS to_is_contract,
            tt.amount, tt.token_id, ti.token_id IS NOT NULL AS has_instance, ti.metadata, ${tokenColumns('k')}
     FROM (${selected}) tt
     JOIN tokens k ON k.address = tt.token_address
     JOIN transactions t ON t.hash = tt.transaction_hash
     LEFT JOIN addresses fa ON fa.hash = tt.from_address
     LEFT JOIN addresses ta ON ta.hash = tt.to_address
     LEFT JOIN token_instances ti ON ti.token_address = tt.token_address AND ti.token_id = tt.token_id
     ORDER BY tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC`,
    params.values,
  );
  return rows.map((r) => ({
    blockHash: hexFromBytea(r.block_hash),
    blockNumber: Number(r.block_number),
    logIndex: r.log_index,
    batchIndex: r.batch_index,
    transactionHash: hexFromBytea(r.transaction_hash),
    timestamp: r.timestamp,
    input: hexFromBytea(r.input),
    transactionTo: hexFromNullableBytea(r.transaction_to),
    from: addressItem(r.from_address, r.from_is_contract),
    to: addressItem(r.to_address, r.to_is_contract),
    token: toTokenItem(r),
    amount: BigInt(r.amount),
    tokenId: bigintFromNumeric(r.token_id),
    instance: r.has_instance ? { metadata: r.metadata } : null,
  }));
}

/** E8: the transfers an address sent or received (a transfer to itself once), newest first. */
export async function listAddressTokenTransfers(
  db: Db,
  address: Hex,
  filters: AddressTokenTransferFilters,
  after: TokenTransferKeyset | null,
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const shared = afterTransfer(params, after);
  if (filters.types.length > 0) shared.push(`tt.token_type = ANY(${params.add(filters.types)}::text[])`);
  if (filters.token !== null) shared.push(`tt.token_address = ${params.add(byteaFromHex(filters.token))}`);
  const addressParam = params.add(byteaFromHex(address));
  const limitParam = params.add(limit);
  // One indexed scan per side, each stopping at the page's end.
  const side = (column: string) =>
    `(SELECT tt.* FROM token_transfers tt WHERE ${[`tt.${column} = ${addressParam}`, ...shared].join(' AND ')}
      ORDER BY ${order} LIMIT ${limitParam})`;
  const sides =
    filters.direction === 'to'
      ? [side('to_address')]
      : filters.direction === 'from'
        ? [side('from_address')]
        : [side('from_address'), side('to_address')];
  return readTransfers(db, `SELECT * FROM (${sides.join(' UNION ')}) u ORDER BY ${order} LIMIT ${limitParam}`, params);
}

/**
 * E4: the transfers of one NFT id, newest first. As in Blockscout, the entries of one ERC-1155 batch
 * that list the id more than once (one log: the same id, sender and recipient) are one item with their
 * amounts summed, keyed by the first entry's batch_index: a page that ends on it leaves the rest of
 * that log behind the keyset too.
 */
export async function listInstanceTokenTransfers(
  db: Db,
  token: Hex,
  tokenId: bigint,
  after: TokenTransferKeyset | null,
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const conditions = [
    `tt.token_address = ${params.add(byteaFromHex(token))}`,
    `tt.token_id = ${params.add(tokenId.toString())}::numeric`,
    ...afterTransfer(params, after),
  ];
  return readTransfers(
    db,
    `SELECT tt.block_number, tt.log_index, min(tt.batch_index) AS batch_index, tt.block_hash, tt.transaction_hash,
            tt.token_address, tt.from_address, tt.to_address, sum(tt.amount) AS amount, tt.token_id
     FROM token_transfers tt WHERE ${conditions.join(' AND ')}
     GROUP BY tt.block_number, tt.log_index, tt.block_hash, tt.transaction_hash, tt.token_address, tt.from_address, tt.to_address, tt.token_id
     ORDER BY ${order} LIMIT ${params.add(limit)}`,
    params,
  );
}

/**
 * GET /api/v2/token-transfers: the transfers of the given token types, newest first, an ERC-1155 batch
 * one item per id (as E8 lists them). Each type is one range of token_transfers_type_position
 * (migration 030), read in index order up to the page's end; the pieces are merged.
 */
export async function listTokenTransfers(
  db: Db,
  types: readonly TokenType[],
  after: TokenTransferKeyset | null,
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const below = afterTransfer(params, after);
  const limitParam = params.add(limit);
  const pieces = types.map(
    (type) =>
      `(SELECT tt.* FROM token_transfers tt WHERE ${[`tt.token_type = ${params.add(type)}`, ...below].join(' AND ')}
        ORDER BY ${order} LIMIT ${limitParam})`,
  );
  return readTransfers(db, `SELECT * FROM (${pieces.join(' UNION ALL ')}) u ORDER BY ${order} LIMIT ${limitParam}`, params);
}

/** The transfers of a token, newest first, an ERC-1155 batch one item per id (as E8 lists them). */
export async function listTokenTokenTransfers(
  db: Db,
  token: Hex,
  after: TokenTransferKeyset | null,
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const conditions = [`tt.token_address = ${params.add(byteaFromHex(token))}`, ...afterTransfer(params, after)];
  return readTransfers(
    db,
    `SELECT tt.* FROM token_transfers tt WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${params.add(limit)}`,
    params,
  );
}
const transactionConditions = (params: SqlParams, transaction: TransactionPosition): string[] => [
  `tt.block_number = ${params.add(transaction.blockNumber)}::bigint`,
  `tt.transaction_index = ${params.add(transaction.index)}::integer`,
];

/** Where a transaction sits, as its transfers and internal transactions are keyed. */
export interface TransactionPosition {
  hash: Hex;
  blockNumber: number;
  index: number;
}

/**
 * The token transfers of one transaction, newest first as E8 lists them (an ERC-1155 batch one item
 * per id), below the keyset if one is given. They are found by the transaction's position in its
 * block (the index E2's token transfer probe uses), not by its hash: an index keyed by transaction
 * hash takes each new row at a random place and slows every block write (migration 009). A
 * transaction's transfers share its block number, so the keyset narrows to (log_index, batch_index).
 */
export async function listTransactionTokenTransfers(
  db: Db,
  transaction: TransactionPosition,
  types: TokenType[],
  after: TokenTransferKeyset | null,
  limit: number,
): Promise<TokenTransferItem[]> {
  if (after !== null && after.blockNumber < transaction.blockNumber) return [];
  const params = new SqlParams();
  const conditions = transactionConditions(params, transaction);
  if (after !== null && after.blockNumber === transaction.blockNumber) {
    conditions.push(
      keysetCondition(params, '<', [
        ['tt.log_index', after.logIndex, 'integer'],
        ['tt.batch_index', after.batchIndex, 'integer'],
      ]),
    );
  }
  if (types.length > 0) conditions.push(`tt.token_type = ANY(${params.add(types)}::text[])`);
  return readTransfers(
    db,
    `SELECT tt.* FROM token_transfers tt WHERE ${conditions.join(' AND ')}
     ORDER BY tt.log_index DESC, tt.batch_index DESC LIMIT ${params.add(limit)}`,
    params,
  );
}

/** The first token transfers of one transaction by log index (and batch index), up to limit. */
export async function firstTransactionTokenTransfers(
  db: Db,
  transaction: TransactionPosition,
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const transfers = await readTransfers(
    db,
    `SELECT tt.* FROM token_transfers tt WHERE ${transactionConditions(params, transaction).join(' AND ')}
     ORDER BY tt.log_index, tt.batch_index LIMIT ${params.add(limit)}`,
    params,
  );
  // readTransfers renders newest first; the detail lists them in log order.
  return transfers.reverse();
}

/**
 * The token transfers of the consensus blocks from..to that any of `addresses` sent or received,
 * newest first, at most `limit`: one read for every address watched.
 */
export async function listAddressesTokenTransfersBetween(
  db: Db,
  range: { from: number; to: number },
  addresses: readonly Hex[],
  limit: number,
): Promise<TokenTransferItem[]> {
  const params = new SqlParams();
  const watched = params.add(addresses.map(byteaFromHex));
  return readTransfers(
    db,
    `SELECT tt.* FROM token_transfers tt
     WHERE tt.block_number BETWEEN ${params.add(range.from)}::bigint AND ${params.add(range.to)}::bigint
       AND (tt.from_address = ANY(${watched}) OR tt.to_address = ANY(${watched}))
     ORDER BY ${order} LIMIT ${params.add(limit)}`,
    params,
  );
}
