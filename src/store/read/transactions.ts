import type { Hex, TransactionBody, TransactionRecord } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import {
  type AddressItem,
  type Db,
  type PartyRow,
  SqlParams,
  isoTimestamp,
  keysetCondition,
  parties,
  partyColumns,
  partyJoins,
} from './sql.js';

/** The kinds a transaction list can be filtered by, in the order Blockscout lists a transaction's types. */
export const transactionKinds = ['coin_transfer', 'contract_call', 'contract_creation', 'token_creation', 'token_transfer'] as const;
export type TransactionKind = (typeof transactionKinds)[number];

export interface TransactionFilters {
  /** Any of these kinds (OR); empty means every transaction. */
  kinds: readonly TransactionKind[];
  /** Any of these 4-byte selectors as the start of the input (OR); empty means every transaction. */
  selectors: readonly Hex[];
}

export interface MinedTransactionKeyset {
  blockNumber: number;
  index: number;
}

export interface PendingTransactionKeyset {
  /** ISO 8601 with up to six fractional digits. */
  insertedAt: string;
  hash: Hex;
}

/** What a mined and a pending transaction share; the fields a pool transaction lacks are null there. */
interface TransactionFields extends Pick<
  TransactionBody,
  'hash' | 'type' | 'value' | 'gasLimit' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'input'
> {
  from: AddressItem;
  to: AddressItem | null;
  createdContract: AddressItem | null;
  nonce: number;
  /** Mined: the effective price paid; pending: as the node reported it. */
  gasPrice: bigint | null;
  status: TransactionRecord['status'];
  gasUsed: bigint | null;
  baseFeePerGas: bigint | null;
  error: string | null;
  revertReason: Hex | null;
  hasErrorInInternalTransactions: boolean | null;
  /** The created contract is a known token. */
  createsToken: boolean;
  hasTokenTransfers: boolean;
}

export interface MinedTransactionItem extends TransactionFields {
  blockNumber: number;
  index: number;
  /** ISO 8601 block timestamp. */
  timestamp: string;
  insertedAt: null;
}

export interface PendingTransactionItem extends TransactionFields {
  blockNumber: null;
  index: null;
  timestamp: null;
  /** ISO 8601 time the pool transaction was first seen. */
  insertedAt: string;
}

export type TransactionItem = MinedTransactionItem | PendingTransactionItem;

// OFFSET 0 keeps each EXISTS a probe of one index per row: without it the planner may hash a whole
// table (tokens, token_transfers) to answer it for the few rows a page scans.
const probe = (table: string, condition: string) => `EXISTS (SELECT 1 FROM ${table} WHERE ${condition} OFFSET 0)`;

const contractCallPredicate = probe('addresses a', 'a.hash = t.to_address AND a.is_contract');
const createsTokenPredicate = probe('tokens k', 'k.address = t.created_contract');
const hasTokenTransfersPredicate = probe(
  'token_transfers tt',
  'tt.block_number = t.block_number AND tt.transaction_index = t.index AND tt.block_hash = t.block_hash',
);
// The trace stage marks only the transactions whose traces found an error; in a traced block the others are clean.
const hasErrorInInternalTransactions =
  'CASE WHEN b.traced_at IS NULL THEN NULL ELSE coalesce(t.has_error_in_internal_transactions, false) END';

// Written against the alias t, so that each predicate can sit in the keyset scan of the list.
const minedKindPredicates: Record<TransactionKind, string> = {
  coin_transfer: 't.value > 0',
  contract_call: contractCallPredicate,
  contract_creation: 't.to_address IS NULL',
  token_creation: createsTokenPredicate,
  token_transfer: hasTokenTransfersPredicate,
};

// A pool transaction has created nothing and transferred no token yet.
const pendingKindPredicates: Record<TransactionKind, string> = Object.assign({}, minedKindPredicates, {
  token_creation: 'false',
  token_transfer: 'false',
});

function kindCondition(kinds: readonly TransactionKind[], predicates: Record<TransactionKind, string>): string[] {
  return kinds.length === 0 ? [] : [`(${kinds.map((kind) => predicates[kind]).join(' OR ')})`];
}

/** Kinds only a contract creation (to IS NULL) can have. */
const creationKinds: readonly TransactionKind[] = ['contract_creation', 'token_creation'];

// Matches the expression and predicate of the transactions_method index.
const selectorCondition = (placeholder: string) => `length(t.input) >= 4 AND substring(t.input FROM 1 FOR 4) = ${placeholder}`;

/**
 * One ordered, limited scan per selector (each served by the selector index), merged: an IN list
 * over the same index would return rows out of order and sort every match.
 */
function unionBySelector(
  params: SqlParams,
  selectors: readonly Hex[],
  scan: (selectorPredicate: string | null) => string,
  order: string,
  limit: string,
): string {
  if (selectors.length === 0) return scan(null);
  const branches = selectors.map((selector) => `(${scan(selectorCondition(params.add(byteaFromHex(selector))))})`);
  return branches.length === 1 ? (branches[0] as string) : `${branches.join(' UNION ALL ')} ORDER BY ${order} LIMIT ${limit}`;
}

const where = (conditions: string[]) => (conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`);

interface TransactionRow extends PartyRow {
  hash: Buffer;
  nonce: string;
  type: number | null;
  value: string;
  gas_limit: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  input: Buffer;
  status: number | null;
  gas_used: string | null;
  base_fee_per_gas: string | null;
  error: string | null;
  revert_reason: Buffer | null;
  has_error_in_internal_transactions: boolean | null;
  creates_token: boolean;
  has_token_transfers: boolean;
}

interface MinedTransactionRow extends TransactionRow {
  block_number: string;
  index: number;
  timestamp: string;
}

interface PendingTransactionRow extends TransactionRow {
  inserted_at: string;
}

function toTransactionFields(r: TransactionRow): TransactionFields {
  return {
    hash: hexFromBytea(r.hash),
    ...parties(r),
    nonce: Number(r.nonce),
    type: r.type,
    value: BigInt(r.value),
    gasLimit: BigInt(r.gas_limit),
    gasPrice: bigintFromNumeric(r.gas_price),
    maxFeePerGas: bigintFromNumeric(r.max_fee_per_gas),
    maxPriorityFeePerGas: bigintFromNumeric(r.max_priority_fee_per_gas),
    input: hexFromBytea(r.input),
    status: r.status === 0 || r.status === 1 ? r.status : null,
    gasUsed: bigintFromNumeric(r.gas_used),
    baseFeePerGas: bigintFromNumeric(r.base_fee_per_gas),
    error: r.error,
    revertReason: hexFromNullableBytea(r.revert_reason),
    hasErrorInInternalTransactions: r.has_error_in_internal_transactions,
    createsToken: r.creates_token,
    hasTokenTransfers: r.has_token_transfers,
  };
}

const minedOrder = 'block_number DESC, index DESC';

/** Mined transactions, newest first ((block_number, index) descending), after the keyset if one is given. */
export async function listMinedTransactions(
  db: Db,
  filters: TransactionFilters,
  after: MinedTransactionKeyset | null,
  limit: number,
): Promise<MinedTransactionItem[]> {
  const params = new SqlParams();
  const limitParam = params.add(limit);
  const conditions = kindCondition(filters.kinds, minedKindPredicates);
  // Creations alone are read from the transactions_to index, where to_address IS NULL leads: ordering
  // by it first (a constant among them) lets that index give the list's order without a sort.
  const onlyCreations = filters.kinds.length > 0 && filters.kinds.every((kind) => creationKinds.includes(kind));
  if (onlyCreations) conditions.push('t.to_address IS NULL');
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['t.block_number', after.blockNumber, 'bigint'],
        ['t.index', after.index, 'integer'],
      ]),
    );
  }
  const scanOrder = `${onlyCreations ? 't.to_address, ' : ''}t.block_number DESC, t.index DESC`;
  const scan = (selectorPredicate: string | null) =>
    `SELECT t.* FROM transactions t ${where(selectorPredicate === null ? conditions : [selectorPredicate, ...conditions])}
     ORDER BY ${scanOrder} LIMIT ${limitParam}`;
  const page = unionBySelector(params, filters.selectors, scan, minedOrder, limitParam);
  return readMinedTransactions(db, page, params);
}

/** Renders the mined transactions that `page` (a query over transactions, its parameters in `params`) selects, newest first. */
export async function readMinedTransactions(db: Db, page: string, params: SqlParams): Promise<MinedTransactionItem[]> {
  const { rows } = await db.query<MinedTransactionRow>(
    `SELECT t.hash, t.block_number, t.index, ${isoTimestamp('t.block_timestamp')} AS timestamp, ${partyColumns('t')},
            t.nonce, t.type, t.value, t.gas_limit, t.gas_price, t.max_fee_per_gas, t.max_priority_fee_per_gas,
            t.input, t.status, t.gas_used, b.base_fee_per_gas, t.error, t.revert_reason,
            ${hasErrorInInternalTransactions} AS has_error_in_internal_transactions,
            ${createsTokenPredicate} AS creates_token, ${hasTokenTransfersPredicate} AS has_token_transfers
     FROM (${page}) t
     JOIN blocks b ON b.hash = t.block_hash
     ${partyJoins('t')}
     ORDER BY t.block_number DESC, t.index DESC`,
    params.values,
  );
  return rows.map((r) =>
    Object.assign(toTransactionFields(r), {
      blockNumber: Number(r.block_number),
      index: r.index,
      timestamp: r.timestamp,
      insertedAt: null,
    }),
  );
}

/**
 * The transactions of one block, highest index first, below the keyset if one is given: exactly E2's
 * items for that block. A block that lost consensus has none (its transactions were removed with it).
 */
export async function listBlockTransactions(
  db: Db,
  block: { hash: Hex; number: number },
  after: MinedTransactionKeyset | null,
  limit: number,
): Promise<MinedTransactionItem[]> {
  const params = new SqlParams();
  const conditions = [`t.block_number = ${params.add(block.number)}::bigint`, `t.block_hash = ${params.add(byteaFromHex(block.hash))}`];
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['t.block_number', after.blockNumber, 'bigint'],
        ['t.index', after.index, 'integer'],
      ]),
    );
  }
  const page = `SELECT t.* FROM transactions t ${where(conditions)} ORDER BY ${minedOrder} LIMIT ${params.add(limit)}`;
  return readMinedTransactions(db, page, params);
}

/** A mined transaction by its hash; else the pool transaction with it; else null. */
export async function findTransaction(db: Db, hash: Hex): Promise<TransactionItem | null> {
  const params = new SqlParams();
  const hashParam = params.add(byteaFromHex(hash));
  const [mined] = await readMinedTransactions(db, `SELECT t.* FROM transactions t WHERE t.hash = ${hashParam}`, params);
  if (mined !== undefined) return mined;
  const pendingParams = new SqlParams();
  const [pending] = await readPending(
    db,
    `SELECT t.* FROM pending_transactions t WHERE t.hash = ${pendingParams.add(byteaFromHex(hash))}`,
    pendingParams,
  );
  return pending ?? null;
}

const pendingOrder = 'inserted_at DESC, hash DESC';

/** Pool transactions, newest first ((inserted_at, hash) descending), after the keyset if one is given. */
export async function listPendingTransactions(
  db: Db,
  filters: TransactionFilters,
  after: PendingTransactionKeyset | null,
  limit: number,
): Promise<PendingTransactionItem[]> {
  const params = new SqlParams();
  const limitParam = params.add(limit);
  const conditions = kindCondition(filters.kinds, pendingKindPredicates);
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['t.inserted_at', after.insertedAt, 'timestamptz'],
        ['t.hash', byteaFromHex(after.hash), 'bytea'],
      ]),
    );
  }
  const scan = (selectorPredicate: string | null) =>
    `SELECT t.* FROM pending_transactions t ${where(selectorPredicate === null ? conditions : [selectorPredicate, ...conditions])}
     ORDER BY t.inserted_at DESC, t.hash DESC LIMIT ${limitParam}`;
  const page = unionBySelector(params, filters.selectors, scan, pendingOrder, limitParam);
  return readPending(db, page, params);
}

/** Renders the pool transactions that `page` (a query over pending_transactions t) picks, newest first. */
async function readPending(db: Db, page: string, params: SqlParams): Promise<PendingTransactionItem[]> {
  const { rows } = await db.query<PendingTransactionRow>(
    `SELECT t.hash, ${isoTimestamp('t.inserted_at')} AS inserted_at,
            t.from_address, fa.is_contract AS from_is_contract,
            t.to_address, ta.is_contract AS to_is_contract,
            NULL AS created_contract, NULL AS created_is_contract,
            t.nonce, t.type, t.value, t.gas_limit, t.gas_price, t.max_fee_per_gas, t.max_priority_fee_per_gas,
            t.input, NULL AS status, NULL AS gas_used, NULL AS base_fee_per_gas, NULL AS error, NULL AS revert_reason,
            NULL AS has_error_in_internal_transactions, false AS creates_token, false AS has_token_transfers
     FROM (${page}) t
     LEFT JOIN addresses fa ON fa.hash = t.from_address
     LEFT JOIN addresses ta ON ta.hash = t.to_address
     ORDER BY t.inserted_at DESC, t.hash DESC`,
    params.values,
  );
  return rows.map((r) =>
    Object.assign(toTransactionFields(r), { blockNumber: null, index: null, timestamp: null, insertedAt: r.inserted_at }),
  );
}

/**
 * The transactions of the consensus blocks from..to that any of `addresses` sent, received or
 * created, newest first, at most `limit`: one read for every address watched.
 */
export async function listAddressesTransactionsBetween(
  db: Db,
  range: { from: number; to: number },
  addresses: readonly Hex[],
  limit: number,
): Promise<MinedTransactionItem[]> {
  const params = new SqlParams();
  const watched = params.add(addresses.map(byteaFromHex));
  const page = `SELECT t.* FROM transactions t
    WHERE t.block_number BETWEEN ${params.add(range.from)}::bigint AND ${params.add(range.to)}::bigint
      AND (t.from_address = ANY(${watched}) OR t.to_address = ANY(${watched}) OR t.created_contract = ANY(${watched}))
    ORDER BY ${minedOrder} LIMIT ${params.add(limit)}`;
  return readMinedTransactions(db, page, params);
}
