import type { Address } from '../../model.js';
import { codeHash } from '../contract-codes.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { type Db, SqlParams } from './sql.js';

/** listcontracts' filters, as Blockscout names them; null for every contract. */
export type ContractListFilter = 'verified' | 'unverified' | 'empty' | null;

/** A contract of listcontracts: its own verification (a twin's does not count), or null. */
export interface ListedContract {
  address: Address;
  verified: { abi: unknown; name: string; compilerVersion: string; optimizationEnabled: boolean } | null;
}

/** The hash of empty runtime code: a contract created empty, or destroyed in its creating transaction. */
const emptyCodeHash = codeHash('0x');

/**
 * A page (`limit` rows after `skip`) of the contracts whose code was read (contract_codes), in address
 * order; the verified ones in the order they were verified. The API bounds skip + limit, so a page reads
 * at most that many entries of the primary key (or of verified_contracts' id).
 */
export async function listContractsPage(db: Db, filter: ContractListFilter, limit: number, skip: number): Promise<ListedContract[]> {
  const params = new SqlParams();
  const window = `LIMIT ${params.add(limit)} OFFSET ${params.add(skip)}`;
  const verifiedColumns = 'v.abi, v.name, v.compiler_version, v.optimization_enabled';
  let statement: string;
  if (filter === 'verified') {
    statement = `SELECT v.address, ${verifiedColumns} FROM verified_contracts v ORDER BY v.id ${window}`;
  } else if (filter === 'unverified') {
    statement = `SELECT c.address, NULL AS abi, NULL AS name, NULL AS compiler_version, NULL AS optimization_enabled
      FROM contract_codes c
      WHERE c.code_hash <> ${params.add(emptyCodeHash)} AND NOT EXISTS (SELECT 1 FROM verified_contracts v WHERE v.address = c.address)
      ORDER BY c.address ${window}`;
  } else {
    const empty = filter === 'empty' ? `WHERE c.code_hash = ${params.add(emptyCodeHash)}` : '';
    statement = `SELECT c.address, ${verifiedColumns}
      FROM (SELECT address FROM contract_codes c ${empty} ORDER BY address ${window}) c
      LEFT JOIN verified_contracts v ON v.address = c.address
      ORDER BY c.address`;
  }
  const { rows } = await db.query<{
    address: Buffer;
    abi: unknown;
    name: string | null;
    compiler_version: string | null;
    optimization_enabled: boolean | null;
  }>(statement, params.values);
  return rows.map((r) => ({
    address: hexFromBytea(r.address),
    verified:
      r.name === null
        ? null
        : { abi: r.abi, name: r.name, compilerVersion: r.compiler_version!, optimizationEnabled: r.optimization_enabled === true },
  }));
}

/** Where a proxy check asked for (verifyproxycontract) stands. */
export type ProxyCheckState =
  { state: 'unknown' } | { state: 'pending' } | { state: 'none' } | { state: 'proxy'; implementations: Address[] };

/**
 * The check of `address` asked under `mark`: unknown for a mark never handed out; pending while the
 * address is marked (under this mark or a later one); else what the check found in proxy_implementations.
 */
export async function findProxyCheck(db: Db, address: Address, mark: bigint): Promise<ProxyCheckState> {
  const { rows } = await db.query<{ handed_out: boolean; pending: boolean; implementations: Buffer[] | null }>(
    `SELECT $2::bigint <= (SELECT last_value FROM proxy_mark_numbers) AS handed_out,
            EXISTS (SELECT 1 FROM proxy_marks WHERE address = $1 AND mark >= $2::bigint) AS pending,
            (SELECT implementations FROM proxy_implementations WHERE address = $1) AS implementations`,
    [byteaFromHex(address), mark.toString()],
  );
  const row = rows[0]!;
  if (!row.handed_out) return { state: 'unknown' };
  if (row.pending) return { state: 'pending' };
  return row.implementations === null ? { state: 'none' } : { state: 'proxy', implementations: row.implementations.map(hexFromBytea) };
}
