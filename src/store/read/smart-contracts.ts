import type { Address, Hex, VerifiedContract } from '../../model.js';
import { byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import type { VerificationJob, VerificationJobStatus } from '../verified-contracts.js';
import { type Db, SqlParams } from './sql.js';

/** How a contract came to be: the transaction that created it, and its init code. */
export interface ContractCreationItem {
  transactionHash: Hex;
  blockNumber: number;
  transactionIndex: number;
  /** The account that sent the creating transaction. */
  deployer: Address;
  /** The creating transaction's input, or the CREATE/CREATE2 frame's input for a contract another created. */
  creationCode: Hex;
  /** The contract that created it; null for one a transaction created. */
  factory: Address | null;
  /** The creating block's time, in seconds since the epoch. */
  timestamp: number;
}

interface CreationRow {
  transaction_hash: Buffer;
  block_number: string;
  transaction_index: number;
  deployer: Buffer;
  creation_code: Buffer;
  factory: Buffer | null;
  timestamp: string;
}

/**
 * The successful creation of a contract: by a transaction, else by a traced frame (whose init code is
 * the frame's input; the top frame's input is its transaction's, not stored twice). The latest, where
 * the address was created more than once (a CREATE2 address after a self-destruct).
 */
export async function findContractCreation(db: Db, address: Address): Promise<ContractCreationItem | null> {
  const hash = byteaFromHex(address);
  const { rows } = await db.query<CreationRow>(
    `(SELECT t.hash AS transaction_hash, t.block_number, t.index AS transaction_index, t.from_address AS deployer,
             t.input AS creation_code, NULL::bytea AS factory, extract(epoch FROM t.block_timestamp)::bigint AS timestamp,
             0 AS source, t.index * 65536 AS position
      FROM transactions t WHERE t.created_contract = $1 AND t.status IS DISTINCT FROM 0)
     UNION ALL
     (SELECT i.transaction_hash, i.block_number, i.transaction_index, t.from_address, coalesce(i.input, t.input),
             i.from_address, extract(epoch FROM t.block_timestamp)::bigint, 1,
             i.transaction_index * 65536 + i.index
      FROM internal_transactions i JOIN transactions t ON t.hash = i.transaction_hash
      WHERE i.created_contract = $1 AND i.error IS NULL)
     ORDER BY block_number DESC, position DESC, source LIMIT 1`,
    [hash],
  );
  const row = rows[0];
  return row === undefined
    ? null
    : {
        transactionHash: hexFromBytea(row.transaction_hash),
        blockNumber: Number(row.block_number),
        transactionIndex: row.transaction_index,
        deployer: hexFromBytea(row.deployer),
        creationCode: hexFromBytea(row.creation_code),
        factory: hexFromNullableBytea(row.factory),
        timestamp: Number(row.timestamp),
      };
}

/** The runtime code the contract code stage read for an address; null when none was read yet. */
export async function findRuntimeCode(db: Db, address: Address): Promise<Hex | null> {
  const { rows } = await db.query<{ code: Buffer }>(
    'SELECT b.code FROM contract_codes c JOIN bytecodes b ON b.hash = c.code_hash WHERE c.address = $1',
    [byteaFromHex(address)],
  );
  return rows[0] === undefined ? null : hexFromBytea(rows[0].code);
}

/** A verified contract as stored, with when and how it was verified. */
export interface VerifiedContractItem extends VerifiedContract {
  address: Address;
  licenseType: string | null;
  method: string;
  verifiedAt: string;
}

/** What the smart-contract page shows of an address. */
export interface SmartContractItem {
  /** Null when no code was read yet. */
  runtimeCode: Hex | null;
  creationCode: Hex | null;
  /** Its own verification, else its bytecode twin's (another address with the same runtime code). */
  verified: VerifiedContractItem | null;
  /** The latest native balance read; null before one is. */
  coinBalance: bigint | null;
  transactionsCount: number;
  /** The circulating market cap of the token at the address, from the price source. */
  marketCap: string | null;
}

interface VerifiedRow {
  address: Buffer;
  code_hash: Buffer;
  name: string;
  file_path: string;
  language: VerifiedContract['language'];
  compiler_version: string;
  compiler_settings: Record<string, unknown>;
  optimization_enabled: boolean;
  optimization_runs: number | null;
  evm_version: string;
  abi: unknown[] | null;
  source_code: string;
  additional_sources: { file_path: string; source_code: string }[];
  constructor_args: Buffer | null;
  external_libraries: { name: string; address_hash: Address }[];
  license_type: string | null;
  match_type: VerifiedContract['match'];
  method: string;
  verified_at: string;
}

const toVerifiedItem = (r: VerifiedRow): VerifiedContractItem => ({
  address: hexFromBytea(r.address),
  name: r.name,
  filePath: r.file_path,
  language: r.language,
  compilerVersion: r.compiler_version,
  compilerSettings: r.compiler_settings,
  optimizationEnabled: r.optimization_enabled,
  optimizationRuns: r.optimization_runs,
  evmVersion: r.evm_version,
  abi: r.abi,
  sourceCode: r.source_code,
  additionalSources: r.additional_sources.map((s) => ({ filePath: s.file_path, sourceCode: s.source_code })),
  constructorArgs: hexFromNullableBytea(r.constructor_args),
  externalLibraries: r.external_libraries.map((l) => ({ name: l.name, addressHash: l.address_hash })),
  match: r.match_type,
  runtimeCodeHash: hexFromBytea(r.code_hash),
  licenseType: r.license_type,
  method: r.method,
  verifiedAt: r.verified_at,
});

const verifiedColumns = `v.address, v.code_hash, v.name, v.file_path, v.language, v.compiler_version, v.compiler_settings,
  v.optimization_enabled, v.optimization_runs, v.evm_version, v.abi, v.source_code, v.additional_sources, v.constructor_args,
  v.external_libraries, v.license_type, v.match_type, v.method,
  to_char(v.verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS verified_at`;

/** The smart contract at an address; null when the address is no contract. */
export async function findSmartContract(db: Db, address: Address): Promise<SmartContractItem | null> {
  const hash = byteaFromHex(address);
  const { rows } = await db.query<{
    is_contract: boolean;
    code: Buffer | null;
    coin_balance: string | null;
    transactions_count: string | null;
    market_cap: string | null;
  }>(
    `SELECT a.is_contract, b.code,
            (SELECT value FROM address_coin_balances WHERE address = a.hash ORDER BY block_number DESC LIMIT 1) AS coin_balance,
            (SELECT transactions_count FROM address_counters WHERE address = a.hash) AS transactions_count,
            (SELECT m.circulating_market_cap FROM token_market m WHERE m.address = a.hash) AS market_cap
     FROM addresses a
     LEFT JOIN contract_codes c ON c.address = a.hash LEFT JOIN bytecodes b ON b.hash = c.code_hash
     WHERE a.hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (row === undefined || !row.is_contract) return null;
  const [verified, creation] = await Promise.all([
    db.query<VerifiedRow>(
      // The address's own verification first, else the earliest verified twin's.
      `(SELECT ${verifiedColumns}, 0 AS own FROM verified_contracts v WHERE v.address = $1)
       UNION ALL
       (SELECT ${verifiedColumns}, 1 FROM contract_codes c JOIN verified_contracts v ON v.code_hash = c.code_hash
        WHERE c.address = $1 ORDER BY v.verified_at, v.address LIMIT 1)
       ORDER BY own LIMIT 1`,
      [hash],
    ),
    findContractCreation(db, address),
  ]);
  return {
    runtimeCode: hexFromNullableBytea(row.code),
    creationCode: creation?.creationCode ?? null,
    verified: verified.rows[0] === undefined ? null : toVerifiedItem(verified.rows[0]),
    coinBalance: row.coin_balance === null ? null : BigInt(row.coin_balance),
    transactionsCount: Number(row.transactions_count ?? 0),
    marketCap: row.market_cap,
  };
}

/** A verification job's state; null for an unknown id. */
export async function findVerificationJob(db: Db, id: string): Promise<VerificationJob | null> {
  const { rows } = await db.query<{
    id: string;
    address: Buffer;
    request: unknown;
    status: VerificationJobStatus;
    errors: Record<string, string[]> | null;
  }>('SELECT id, address, request, status, errors FROM verification_jobs WHERE id = $1', [id]);
  const row = rows[0];
  return row === undefined
    ? null
    : { id: row.id, address: hexFromBytea(row.address), request: row.request, status: row.status, errors: row.errors };
}

/** A verified contract as the verified contracts list shows it. */
export interface VerifiedContractListItem {
  id: number;
  address: Address;
  compilerVersion: string;
  optimizationEnabled: boolean;
  language: string;
  verifiedAt: string;
  hasConstructorArgs: boolean;
  licenseType: string | null;
  coinBalance: bigint | null;
  transactionsCount: number;
  /** The circulating market cap of the token at the address, from the price source. */
  marketCap: string | null;
}

export interface VerifiedContractsFilter {
  /** Part of the contract's name, or a prefix of its address (0x and hex digits). */
  q: string | null;
  language: string | null;
}

/**
 * The list's order: the latest verified first (by id), or by the contract's current coin balance or
 * transaction count, either way, the latest verified first among equals. As Blockscout sorts, a
 * balance not read yet counts below every balance (last most first, first fewest first).
 */
export type VerifiedContractsOrder = { by: 'id' } | { by: 'balance' | 'transactions_count'; direction: 'asc' | 'desc' };

/** Where the previous page ended: the last item's id, and its sort value where the order has one (null: no balance read). */
export interface VerifiedContractsKeyset {
  id: number;
  value?: bigint | null;
}

/**
 * Verified contracts in the given order, after the keyset. A sort by balance or transaction count
 * joins each verified contract that passes the filter to its current balance and counters and sorts
 * them: bounded by the verified contracts, few beside the chain's addresses, not by the chain.
 */
export async function listVerifiedContracts(
  db: Db,
  filter: VerifiedContractsFilter,
  order: VerifiedContractsOrder,
  after: VerifiedContractsKeyset | null,
  limit: number,
): Promise<VerifiedContractListItem[]> {
  const params = new SqlParams();
  const conditions: string[] = [];
  if (filter.language !== null) conditions.push(`v.language = ${params.add(filter.language)}`);
  if (filter.q !== null) {
    const address = /^0x[0-9a-f]{1,40}$/i.test(filter.q) ? filter.q.slice(2).toLowerCase() : null;
    const byName = `v.name ILIKE ${params.add(`%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
    conditions.push(address === null ? byName : `(${byName} OR encode(v.address, 'hex') LIKE ${params.add(`${address}%`)})`);
  }
  // A balance not read yet is -1: below every balance, so that it sorts as Blockscout's nulls do.
  const sorted =
    order.by === 'id'
      ? null
      : { key: order.by === 'balance' ? 'coalesce(b.value, -1)' : 'coalesce(c.transactions_count, 0)', direction: order.direction };
  if (after !== null) {
    const id = params.add(after.id);
    if (sorted === null) conditions.push(`v.id < ${id}`);
    else {
      const value = `${params.add((after.value ?? -1n).toString())}::numeric`;
      const beyond = sorted.direction === 'desc' ? '<' : '>';
      conditions.push(`(${sorted.key} ${beyond} ${value} OR (${sorted.key} = ${value} AND v.id < ${id}))`);
    }
  }
  const orderBy = sorted === null ? 'v.id DESC' : `${sorted.key} ${sorted.direction === 'desc' ? 'DESC' : 'ASC'}, v.id DESC`;
  const { rows } = await db.query<{
    id: string;
    address: Buffer;
    compiler_version: string;
    optimization_enabled: boolean;
    language: string;
    verified_at: string;
    has_constructor_args: boolean;
    license_type: string | null;
    coin_balance: string | null;
    transactions_count: string | null;
    market_cap: string | null;
  }>(
    `SELECT v.id, v.address, v.compiler_version, v.optimization_enabled, v.language,
            to_char(v.verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS verified_at,
            coalesce(length(v.constructor_args), 0) > 0 AS has_constructor_args, v.license_type,
            b.value AS coin_balance, c.transactions_count,
            (SELECT m.circulating_market_cap FROM token_market m WHERE m.address = v.address) AS market_cap
     FROM verified_contracts v
     LEFT JOIN address_current_coin_balances b ON b.address = v.address
     LEFT JOIN address_counters c ON c.address = v.address
     ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
     ORDER BY ${orderBy} LIMIT ${params.add(limit)}`,
    params.values,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    address: hexFromBytea(r.address),
    compilerVersion: r.compiler_version,
    optimizationEnabled: r.optimization_enabled,
    language: r.language,
    verifiedAt: r.verified_at,
    hasConstructorArgs: r.has_constructor_args,
    licenseType: r.license_type,
    coinBalance: r.coin_balance === null ? null : BigInt(r.coin_balance),
    transactionsCount: Number(r.transactions_count ?? 0),
    marketCap: r.market_cap,
  }));
}

export interface SmartContractCounts {
  contracts: bigint;
  newContracts24h: bigint;
  verified: bigint;
  newVerified24h: bigint;
}

/**
 * The contracts known (addresses that are contracts), those created in the last 24 hours (by an indexed
 * transaction or traced frame whose block is that recent), the contracts verified, and those verified
 * in the last 24 hours.
 */
export async function countSmartContracts(db: Db): Promise<SmartContractCounts> {
  const { rows } = await db.query<{ contracts: string; new_contracts: string; verified: string; new_verified: string }>(
    `WITH recent AS (SELECT hash, number FROM blocks WHERE consensus AND timestamp > now() - interval '24 hours')
     SELECT (SELECT count(*) FROM addresses WHERE is_contract) AS contracts,
            (SELECT count(*) FROM transactions t
             WHERE t.created_contract IS NOT NULL AND t.status IS DISTINCT FROM 0 AND t.block_number >= (SELECT min(number) FROM recent))
            + (SELECT count(*) FROM internal_transactions i
               WHERE i.block_hash IN (SELECT hash FROM recent) AND i.created_contract IS NOT NULL AND i.index > 0 AND i.error IS NULL)
              AS new_contracts,
            (SELECT count(*) FROM verified_contracts) AS verified,
            (SELECT count(*) FROM verified_contracts WHERE verified_at > now() - interval '24 hours') AS new_verified`,
  );
  const row = rows[0]!;
  return {
    contracts: BigInt(row.contracts),
    newContracts24h: BigInt(row.new_contracts),
    verified: BigInt(row.verified),
    newVerified24h: BigInt(row.new_verified),
  };
}
