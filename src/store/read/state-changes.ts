import type { Address, TransactionRecord } from '../../model.js';
import { balanceTokenId } from '../bulk-ledger.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import { planStableStatement } from './plan-stable.js';
import { type TokenItem, type TokenRow, tokenColumns, toTokenItem } from './tokens.js';
import { type AddressItem, type Db, addressItem } from './sql.js';

/**
 * What a transaction's state changes are computed from: the transaction, those before it in its
 * block (whose effects make up its balances before), their value-carrying internal transactions and
 * their token transfers, all from the index.
 */
export interface StateChangeBlock {
  blockNumber: number;
  miner: Address;
  baseFeePerGas: bigint | null;
  /** Whether the block's internal transactions are indexed. */
  traced: boolean;
  /** The block's transactions up to and including the one asked for, by index. */
  transactions: BlockTransactionItem[];
  /** Internal transactions of those that carry value (the top-level call left out), by transaction and index. */
  internalTransfers: InternalTransferItem[];
  /** Token transfers of those transactions, by log index and batch index. */
  tokenTransfers: BlockTokenTransferItem[];
}

export interface BlockTransactionItem {
  index: number;
  from: Address;
  /** The recipient, or the contract a creation made. */
  to: Address | null;
  value: bigint;
  gasUsed: bigint;
  /** The effective price paid per gas. */
  gasPrice: bigint | null;
  blobGasUsed: bigint | null;
  blobGasPrice: bigint | null;
  status: TransactionRecord['status'];
  error: string | null;
}

export interface InternalTransferItem {
  transactionIndex: number;
  traceAddress: number[];
  type: string;
  callType: string | null;
  from: Address;
  /** The recipient, the contract created or the self-destruct's beneficiary. */
  to: Address | null;
  value: bigint;
  error: string | null;
}

export interface BlockTokenTransferItem {
  transactionIndex: number;
  logIndex: number;
  from: Address;
  to: Address;
  token: TokenItem;
  amount: bigint;
  tokenId: bigint | null;
  /** The NFT instance of the id, null when it has no instance row. */
  instance: { metadata: unknown } | null;
}

interface BlockRow {
  number: string;
  miner: Buffer;
  base_fee_per_gas: string | null;
  traced: boolean;
}

interface BlockTransactionRow {
  index: number;
  from_address: Buffer;
  to_address: Buffer | null;
  value: string;
  gas_used: string;
  gas_price: string | null;
  blob_gas_used: string | null;
  blob_gas_price: string | null;
  status: 0 | 1 | null;
  error: string | null;
}

interface InternalTransferRow {
  transaction_index: number;
  trace_address: number[];
  type: string;
  call_type: string | null;
  from_address: Buffer;
  to_address: Buffer | null;
  value: string;
  error: string | null;
}

interface BlockTokenTransferRow extends TokenRow {
  transaction_index: number;
  log_index: number;
  from_address: Buffer;
  to_address: Buffer;
  amount: string;
  token_id: string | null;
  has_instance: boolean;
  metadata: unknown;
}

const consensusHash = `(SELECT hash FROM blocks WHERE number = $1 AND consensus)`;

// A block's rows by its number and a transaction index: lookups of primary keys and one block's
// ranges, planned alike for any block, so prepared once per connection (planStableStatement).
const blockStatement = planStableStatement(
  `SELECT number, miner, base_fee_per_gas, traced_at IS NOT NULL AS traced FROM blocks WHERE number = $1 AND consensus`,
);
const transactionsStatement = planStableStatement(
  `SELECT index, from_address, coalesce(to_address, created_contract) AS to_address, value, gas_used, gas_price,
          blob_gas_used, blob_gas_price, status, error
   FROM transactions WHERE block_number = $1 AND index <= $2 ORDER BY index`,
);
const internalTransfersStatement = planStableStatement(
  `SELECT transaction_index, trace_address, type, call_type, from_address,
          coalesce(to_address, created_contract) AS to_address, value, error
   FROM internal_transactions
   WHERE block_hash = ${consensusHash} AND transaction_index <= $2 AND index > 0 AND value > 0
   ORDER BY transaction_index, index`,
);
const tokenTransfersStatement = planStableStatement(
  `SELECT tt.transaction_index, tt.log_index, tt.from_address, tt.to_address, tt.amount, tt.token_id,
          ti.token_id IS NOT NULL AS has_instance, ti.metadata, ${tokenColumns('k')}
   FROM token_transfers tt
   JOIN tokens k ON k.address = tt.token_address
   LEFT JOIN token_instances ti ON ti.token_address = tt.token_address AND ti.token_id = tt.token_id
   WHERE tt.block_hash = ${consensusHash} AND tt.transaction_index <= $2
   ORDER BY tt.log_index, tt.batch_index`,
);

/** The consensus block of a height, as far as one of its transactions, with what that transaction's state changes need. */
export async function readStateChangeBlock(db: Db, blockNumber: number, transactionIndex: number): Promise<StateChangeBlock | null> {
  const values = [blockNumber, transactionIndex];
  const [blocks, transactions, internals, transfers] = await Promise.all([
    db.query<BlockRow>(blockStatement, [blockNumber]),
    db.query<BlockTransactionRow>(transactionsStatement, values),
    db.query<InternalTransferRow>(internalTransfersStatement, values),
    db.query<BlockTokenTransferRow>(tokenTransfersStatement, values),
  ]);
  const block = blocks.rows[0];
  if (block === undefined) return null;
  return {
    blockNumber: Number(block.number),
    miner: hexFromBytea(block.miner),
    baseFeePerGas: bigintFromNumeric(block.base_fee_per_gas),
    traced: block.traced,
    transactions: transactions.rows.map((r) => ({
      index: r.index,
      from: hexFromBytea(r.from_address),
      to: hexFromNullableBytea(r.to_address),
      value: BigInt(r.value),
      gasUsed: BigInt(r.gas_used),
      gasPrice: bigintFromNumeric(r.gas_price),
      blobGasUsed: bigintFromNumeric(r.blob_gas_used),
      blobGasPrice: bigintFromNumeric(r.blob_gas_price),
      status: r.status,
      error: r.error,
    })),
    internalTransfers: internals.rows.map((r) => ({
      transactionIndex: r.transaction_index,
      traceAddress: r.trace_address,
      type: r.type,
      callType: r.call_type,
      from: hexFromBytea(r.from_address),
      to: hexFromNullableBytea(r.to_address),
      value: BigInt(r.value),
      error: r.error,
    })),
    tokenTransfers: transfers.rows.map((r) => ({
      transactionIndex: r.transaction_index,
      logIndex: r.log_index,
      from: hexFromBytea(r.from_address),
      to: hexFromBytea(r.to_address),
      token: toTokenItem(r),
      amount: BigInt(r.amount),
      tokenId: bigintFromNumeric(r.token_id),
      instance: r.has_instance ? { metadata: r.metadata } : null,
    })),
  };
}

const addressItemsStatement = planStableStatement('SELECT hash, is_contract FROM addresses WHERE hash = ANY($1)');

/** The addresses as the API embeds them, with what `addresses` knows of each. */
export async function readAddressItems(db: Db, addresses: readonly Address[]): Promise<Map<Address, AddressItem>> {
  const { rows } = await db.query<{ hash: Buffer; is_contract: boolean }>(addressItemsStatement, [addresses.map(byteaFromHex)]);
  const known = new Map(rows.map((r) => [hexFromBytea(r.hash), r.is_contract]));
  return new Map(addresses.map((address) => [address, addressItem(byteaFromHex(address), known.get(address) ?? null)]));
}

// Each address's lookups run by the address as a parameter of the loop, whatever the addresses: one plan
// fits them all (planStableStatement).
const coinBalancesStatement = planStableStatement(
  `SELECT a.address, r.value
     FROM unnest($1::bytea[]) a(address)
     CROSS JOIN LATERAL (
       SELECT c.block_number, c.value FROM address_coin_balances c
       WHERE c.address = a.address AND c.block_number <= $2 ORDER BY c.block_number DESC LIMIT 1
     ) r
     WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.from_address = a.address AND t.block_number > r.block_number AND t.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.to_address = a.address AND t.block_number > r.block_number AND t.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.created_contract = a.address AND t.block_number > r.block_number AND t.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM internal_transactions i WHERE i.from_address = a.address AND i.value > 0
                         AND i.block_number > r.block_number AND i.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM internal_transactions i WHERE i.to_address = a.address AND i.value > 0
                         AND i.block_number > r.block_number AND i.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM internal_transactions i WHERE i.created_contract = a.address AND i.value > 0
                         AND i.block_number > r.block_number AND i.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.consensus AND b.miner = a.address AND b.number > r.block_number AND b.number <= $2)
       -- An uncle's reward is paid up to 6 blocks above it: uncles from 6 below the read on are looked at.
       AND NOT EXISTS (SELECT 1 FROM blocks u WHERE u.nephew_hash IS NOT NULL AND u.number > r.block_number - 6 AND u.number <= $2
                         AND u.miner = a.address)
       AND NOT EXISTS (SELECT 1 FROM withdrawals w WHERE w.address = a.address AND w.block_number > r.block_number AND w.block_number <= $2)
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.consensus AND b.traced_at IS NULL AND b.number > r.block_number AND b.number <= $2)`,
);

/**
 * The native balance of each address at the end of a block, where the index alone tells it: the
 * address's latest balance read at or below the block, when nothing Sextant indexes moved its coin
 * between that read and the block. Anything that could have is a reason to leave it unknown (absent
 * from the map): a transaction it sent, received or created; an internal transaction carrying value
 * from or to it; a block or an uncle it mined; a withdrawal to it; or a block in between whose
 * internal transactions are not indexed yet.
 */
export async function readIndexedCoinBalancesAt(db: Db, addresses: readonly Address[], blockNumber: number): Promise<Map<Address, bigint>> {
  if (addresses.length === 0) return new Map();
  const { rows } = await db.query<{ address: Buffer; value: string }>(coinBalancesStatement, [addresses.map(byteaFromHex), blockNumber]);
  return new Map(rows.map((r) => [hexFromBytea(r.address), BigInt(r.value)]));
}

/** One balance the token ledger keeps: ERC-20 and ERC-721 per token (an amount, a count), ERC-1155 and ERC-404 per id. */
export interface TokenBalanceKey {
  holder: Address;
  token: Address;
  tokenId: bigint | null;
}

/** The first or last block of a holder's transfers of a token, in either direction. */
const transferBlock = (pick: 'least' | 'greatest', aggregate: 'min' | 'max') =>
  `${pick}((SELECT ${aggregate}(t.block_number) FROM token_transfers t WHERE t.to_address = p.holder AND t.token_address = p.token),
           (SELECT ${aggregate}(t.block_number) FROM token_transfers t WHERE t.from_address = p.holder AND t.token_address = p.token))`;

/** A holder's transfers of a token in or out, signed, over r's blocks, with the id of the ledger row each counts under. */
const signedTransfers = (direction: 'to_address' | 'from_address', sign: '' | '-') =>
  `SELECT ${balanceTokenId} AS token_id, ${sign}t.amount AS amount FROM token_transfers t
   WHERE t.${direction} = r.holder AND t.token_address = r.token AND t.block_number > r.after_block AND t.block_number <= r.up_to_block`;

// As the coin balances' statement: one plan fits any keys.
const ledgerBalancesStatement = planStableStatement(
  `WITH k AS (SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::numeric[]) WITH ORDINALITY k(holder, token, token_id, ordinality)),
     r AS (
       SELECT p.holder, p.token, e.from_first,
              CASE WHEN e.from_first THEN -1 ELSE $4::bigint END AS after_block,
              CASE WHEN e.from_first THEN $4::bigint ELSE ${Number.MAX_SAFE_INTEGER} END AS up_to_block
       FROM (SELECT DISTINCT holder, token FROM k) p
       CROSS JOIN LATERAL (SELECT ${transferBlock('least', 'min')} AS first_block, ${transferBlock('greatest', 'max')} AS last_block) b
       CROSS JOIN LATERAL (SELECT coalesce($4 - b.first_block < b.last_block - $4, false) AS from_first) e
     ),
     s AS MATERIALIZED (
       SELECT r.holder, r.token, d.token_id, d.amount
       FROM r CROSS JOIN LATERAL (
         SELECT m.token_id, sum(m.amount) AS amount
         FROM (${signedTransfers('to_address', '')} UNION ALL ${signedTransfers('from_address', '-')}) m
         GROUP BY m.token_id
       ) d
     )
     SELECT k.ordinality,
            CASE WHEN r.from_first THEN coalesce(s.amount, 0)
              ELSE coalesce((SELECT b.value FROM address_token_balances b
                             WHERE b.address = k.holder AND b.token_address = k.token AND b.token_id IS NOT DISTINCT FROM k.token_id), 0)
                   - coalesce(s.amount, 0)
            END AS value
     FROM k
     JOIN r ON r.holder = k.holder AND r.token = k.token
     LEFT JOIN s ON s.holder = k.holder AND s.token = k.token AND s.token_id IS NOT DISTINCT FROM k.token_id
     ORDER BY k.ordinality`,
);

/**
 * The token ledger's balances at the end of a block, in the order of `keys`. The ledger is the sum of
 * the transfers, so each is summed from whichever end of the holder's transfers of the token is nearer
 * by block: from the first, the transfers up to the block; from the last, the current balance less what
 * the transfers of later blocks brought, plus what they took. Both count the transfers the ledger keeps
 * under the key's row (by the transfer's own type, as the ledger does), so both are exact; the nearer
 * end reads at most about half of a busy holder's transfers of the token (token_transfers_to_token and
 * token_transfers_from_token, migration 065). The keys of one holder and token (an ERC-1155 batch's
 * ids) share one read of those transfers, summed by id.
 */
export async function readLedgerTokenBalancesAt(db: Db, keys: readonly TokenBalanceKey[], blockNumber: number): Promise<bigint[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<{ ordinality: string; value: string }>(ledgerBalancesStatement, [
    keys.map((k) => byteaFromHex(k.holder)),
    keys.map((k) => byteaFromHex(k.token)),
    keys.map((k) => k.tokenId?.toString() ?? null),
    blockNumber,
  ]);
  return rows.map((r) => BigInt(r.value));
}
