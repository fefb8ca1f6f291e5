import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { type CoinBalanceItem, findLatestCoinBalance } from './coin-balances.js';
import { type Db, SqlParams, keysetCondition } from './sql.js';
import { type TokenRow, type TokenItem, toTokenItem, tokenColumns } from './tokens.js';
import { type MinedTransactionItem, type MinedTransactionKeyset, readMinedTransactions } from './transactions.js';

/** How an address came to be, where an indexed transaction or internal transaction created it. */
export interface AddressCreationItem {
  creator: Address;
  transactionHash: Hex;
  succeeded: boolean;
}

/** What the address page shows of one address; an address nothing indexed mentions has all of it empty. */
export interface AddressSummaryItem {
  hash: Address;
  isContract: boolean;
  creation: AddressCreationItem | null;
  token: TokenItem | null;
  /** It emitted a log. */
  hasLogs: boolean;
  hasTokens: boolean;
  hasTokenTransfers: boolean;
  hasValidatedBlocks: boolean;
  hasWithdrawals: boolean;
  /** The latest native balance read; null until one is. */
  coinBalance: CoinBalanceItem | null;
}

interface SummaryRow {
  is_contract: boolean;
  has_logs: boolean;
  has_tokens: boolean;
  has_token_transfers: boolean;
  has_validated_blocks: boolean;
  has_withdrawals: boolean;
}

// Each an EXISTS on an index led by the address.
const exists = (table: string, condition: string) => `EXISTS (SELECT 1 FROM ${table} WHERE ${condition})`;

export async function findAddressSummary(db: Db, address: Address): Promise<AddressSummaryItem> {
  const hash = byteaFromHex(address);
  const { rows } = await db.query<SummaryRow>(
    `SELECT ${exists('addresses a', 'a.hash = $1 AND a.is_contract')} AS is_contract,
            ${exists('logs l', 'l.address = $1')} AS has_logs,
            ${exists('address_token_balances b', 'b.address = $1 AND b.value > 0')} AS has_tokens,
            (${exists('token_transfers tt', 'tt.from_address = $1')} OR ${exists('token_transfers tt', 'tt.to_address = $1')})
              AS has_token_transfers,
            ${exists('blocks b', 'b.miner = $1 AND b.consensus')} AS has_validated_blocks,
            ${exists('withdrawals w', 'w.address = $1')} AS has_withdrawals`,
    [hash],
  );
  const summary = rows[0] as SummaryRow;
  const token = await db.query<TokenRow>(`SELECT ${tokenColumns('k')} FROM tokens k WHERE k.address = $1`, [hash]);
  return {
    hash: address,
    isContract: summary.is_contract,
    creation: await findCreation(db, hash),
    token: token.rows[0] === undefined ? null : toTokenItem(token.rows[0]),
    hasLogs: summary.has_logs,
    hasTokens: summary.has_tokens,
    hasTokenTransfers: summary.has_token_transfers,
    hasValidatedBlocks: summary.has_validated_blocks,
    hasWithdrawals: summary.has_withdrawals,
    coinBalance: await findLatestCoinBalance(db, address),
  };
}

interface CreationRow {
  creator: Buffer;
  transaction_hash: Buffer;
  succeeded: boolean;
}

/**
 * The transaction that created the address, else the internal transaction (its creator the contract
 * that ran the create); a successful creation before a failed one, then the latest.
 */
async function findCreation(db: Db, hash: Buffer): Promise<AddressCreationItem | null> {
  const { rows } = await db.query<CreationRow>(
    `(SELECT t.from_address AS creator, t.hash AS transaction_hash, t.status IS DISTINCT FROM 0 AS succeeded, 0 AS source,
             t.block_number, t.index AS position
      FROM transactions t WHERE t.created_contract = $1)
     UNION ALL
     (SELECT i.from_address, i.transaction_hash, i.error IS NULL, 1, i.block_number, i.transaction_index * 65536 + i.index
      FROM internal_transactions i WHERE i.created_contract = $1)
     ORDER BY succeeded DESC, source, block_number DESC, position DESC LIMIT 1`,
    [hash],
  );
  const row = rows[0];
  return row === undefined
    ? null
    : { creator: hexFromBytea(row.creator), transactionHash: hexFromBytea(row.transaction_hash), succeeded: row.succeeded };
}

/** The counters kept in address_counters (see migrations 014, 035); an address without a row has all at zero. */
export interface AddressCountersItem {
  transactions: bigint;
  tokenTransfers: bigint;
  /**
   * As Blockscout's gas_usage_count: for a contract, the gas used by the transactions sent to it when
   * there is any; else (and for any other address) by those it sent.
   */
  gasUsage: bigint;
  validations: bigint;
}

export async function findAddressCounters(db: Db, address: Address): Promise<AddressCountersItem> {
  const { rows } = await db.query<{
    transactions_count: string;
    token_transfers_count: string;
    gas_usage: string;
    validations_count: string;
  }>(
    `SELECT c.transactions_count, c.token_transfers_count, c.validations_count,
            CASE WHEN c.incoming_gas_usage > 0 AND EXISTS (SELECT 1 FROM addresses a WHERE a.hash = c.address AND a.is_contract)
                 THEN c.incoming_gas_usage ELSE c.gas_usage END AS gas_usage
     FROM address_counters c WHERE c.address = $1`,
    [byteaFromHex(address)],
  );
  const row = rows[0];
  if (row === undefined) return { transactions: 0n, tokenTransfers: 0n, gasUsage: 0n, validations: 0n };
  return {
    transactions: BigInt(row.transactions_count),
    tokenTransfers: BigInt(row.token_transfers_count),
    gasUsage: BigInt(row.gas_usage),
    validations: BigInt(row.validations_count),
  };
}

/** The sizes of an address's lists, each counted up to a cap (Blockscout's tabs show "50+"). */
export interface AddressTabCountsItem {
  transactions: number;
  tokenTransfers: number;
  tokenBalances: number;
  withdrawals: number;
  internalTransactions: number;
  validations: number;
  logs: number;
}

/**
 * Each count reads at most `cap` entries of each index the list itself is read from, newest first,
 * and merges the sides without duplicates as the list does: exact up to the cap, the cap above it.
 */
export async function countAddressTabs(db: Db, address: Address, cap: number): Promise<AddressTabCountsItem> {
  const sides = (table: string, key: string, columns: string[], extra = '') =>
    `LEAST(${cap}, (SELECT count(*) FROM (${columns
      .map((column) => `(SELECT ${key} FROM ${table} WHERE ${column} = $1 ${extra} ORDER BY ${orderOf(key)} LIMIT ${cap})`)
      .join(' UNION ')}) s))`;
  const { rows } = await db.query<Record<keyof AddressTabCountsItem, string>>(
    `SELECT ${sides('transactions', 'block_number, index', ['from_address', 'to_address', 'created_contract'])} AS transactions,
            ${sides('token_transfers', 'block_number, log_index, batch_index', ['from_address', 'to_address'])} AS "tokenTransfers",
            (SELECT count(*) FROM (SELECT 1 FROM address_token_balances WHERE address = $1 AND value > 0 LIMIT ${cap}) s) AS "tokenBalances",
            (SELECT count(*) FROM (SELECT 1 FROM withdrawals WHERE address = $1 LIMIT ${cap}) s) AS withdrawals,
            ${sides(
              'internal_transactions',
              'block_number, transaction_index, index',
              ['from_address', 'to_address', 'created_contract'],
              "AND (type <> 'call' OR index > 0)",
            )} AS "internalTransactions",
            (SELECT count(*) FROM (SELECT 1 FROM blocks WHERE miner = $1 AND consensus LIMIT ${cap}) s) AS validations,
            (SELECT count(*) FROM (SELECT 1 FROM logs WHERE address = $1 LIMIT ${cap}) s) AS logs`,
    [byteaFromHex(address)],
  );
  const row = rows[0] as Record<keyof AddressTabCountsItem, string>;
  return {
    transactions: Number(row.transactions),
    tokenTransfers: Number(row.tokenTransfers),
    tokenBalances: Number(row.tokenBalances),
    withdrawals: Number(row.withdrawals),
    internalTransactions: Number(row.internalTransactions),
    validations: Number(row.validations),
    logs: Number(row.logs),
  };
}

const orderOf = (key: string) =>
  key
    .split(', ')
    .map((column) => `${column} DESC`)
    .join(', ');

/**
 * The transactions an address sent (`from`), received or created (`to`), or any of them, newest
 * first: one scan per side on its keyset index, merged without duplicates (a transaction to itself once).
 */
export async function listAddressTransactions(
  db: Db,
  address: Address,
  direction: 'to' | 'from' | null,
  after: MinedTransactionKeyset | null,
  limit: number,
): Promise<MinedTransactionItem[]> {
  const params = new SqlParams();
  const hash = params.add(byteaFromHex(address));
  const limitParam = params.add(limit);
  const below =
    after === null
      ? ''
      : `AND ${keysetCondition(params, '<', [
          ['t.block_number', after.blockNumber, 'bigint'],
          ['t.index', after.index, 'integer'],
        ])}`;
  const columns =
    direction === 'from'
      ? ['from_address']
      : direction === 'to'
        ? ['to_address', 'created_contract']
        : ['from_address', 'to_address', 'created_contract'];
  const sides = columns.map(
    (column) =>
      `(SELECT t.block_number, t.index FROM transactions t WHERE t.${column} = ${hash} ${below} ORDER BY t.block_number DESC, t.index DESC LIMIT ${limitParam})`,
  );
  const page = `SELECT t.* FROM (SELECT * FROM (${sides.join(' UNION ')}) u ORDER BY block_number DESC, index DESC LIMIT ${limitParam}) u
     JOIN transactions t USING (block_number, index)`;
  return readMinedTransactions(db, page, params);
}
