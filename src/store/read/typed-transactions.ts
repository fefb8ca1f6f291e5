import type { Address, Hex } from '../../model.js';
import { byteaFromHex, hexFromBytea, hexFromNullableBytea } from '../encode.js';
import type { Db } from './sql.js';

/** A blob (type-3) transaction's EIP-4844 fields. */
export interface BlobFieldsItem {
  maxFeePerBlobGas: bigint;
  blobGasUsed: bigint;
  blobGasPrice: bigint;
  versionedHashes: Hex[];
}

/** One EIP-7702 authorization of a set-code (type-4) transaction, with what is known of its validity. */
export interface AuthorizationItem {
  chainId: bigint;
  address: Address;
  nonce: bigint;
  yParity: number;
  r: bigint;
  s: bigint;
  authority: Address | null;
  /** Refused for its signature (no authority) or its chain (neither 0 nor the indexed chain's id); null when not known to be either. */
  invalidity: 'invalid_signature' | 'invalid_chain_id' | null;
}

// A blob transaction's fee columns are never null: the decoder requires them of type 3.
interface BlobFieldsRow {
  max_fee_per_blob_gas: string;
  blob_gas_used: string;
  blob_gas_price: string;
  blob_versioned_hashes: Buffer[] | null;
}

/**
 * The blob fields of a mined blob transaction; null for any other transaction, and for a blob
 * transaction stored before its versioned hashes were kept.
 */
export async function readBlobFields(db: Db, hash: Hex): Promise<BlobFieldsItem | null> {
  const { rows } = await db.query<BlobFieldsRow>(
    'SELECT max_fee_per_blob_gas, blob_gas_used, blob_gas_price, blob_versioned_hashes FROM transactions WHERE hash = $1 AND type = 3',
    [byteaFromHex(hash)],
  );
  const row = rows[0];
  if (row === undefined || row.blob_versioned_hashes === null) return null;
  return {
    maxFeePerBlobGas: BigInt(row.max_fee_per_blob_gas),
    blobGasUsed: BigInt(row.blob_gas_used),
    blobGasPrice: BigInt(row.blob_gas_price),
    versionedHashes: row.blob_versioned_hashes.map(hexFromBytea),
  };
}

interface AuthorizationRow {
  chain_id: string;
  address: Buffer;
  nonce: string;
  y_parity: number;
  r: string;
  s: string;
  authority: Buffer | null;
  indexed_chain_id: string | null;
}

/** The authorizations of a mined transaction, in list order; none for a transaction of another type. */
export async function readAuthorizations(db: Db, hash: Hex): Promise<AuthorizationItem[]> {
  const { rows } = await db.query<AuthorizationRow>(
    `SELECT a.chain_id, a.address, a.nonce, a.y_parity, a.r, a.s, a.authority,
            (SELECT value FROM chain_facts WHERE key = 'chain_id') AS indexed_chain_id
     FROM transactions t
     JOIN transaction_authorizations a ON a.block_hash = t.block_hash AND a.transaction_index = t.index
     WHERE t.hash = $1
     ORDER BY a.index`,
    [byteaFromHex(hash)],
  );
  return rows.map((r) => {
    const chainId = BigInt(r.chain_id);
    const authority = hexFromNullableBytea(r.authority);
    // EIP-7702: chain id 0 lets the authorization apply on every chain.
    const foreign = chainId !== 0n && r.indexed_chain_id !== null && chainId !== BigInt(r.indexed_chain_id);
    return {
      chainId,
      address: hexFromBytea(r.address),
      nonce: BigInt(r.nonce),
      yParity: r.y_parity,
      r: BigInt(r.r),
      s: BigInt(r.s),
      authority,
      invalidity: authority === null ? 'invalid_signature' : foreign ? 'invalid_chain_id' : null,
    };
  });
}
