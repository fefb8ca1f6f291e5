import type { Hex } from '../../model.js';
import { byteaFromHex } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem } from './sql.js';

/**
 * An NFT id of a token with what decides its owner: the ERC-721 (or ERC-404) owner the ledger keeps,
 * and, for ids held by balance (ERC-1155, ERC-404), up to two holders with a positive balance, largest
 * first: enough to tell whether one holder has it all.
 */
export interface TokenInstanceItem {
  tokenId: bigint;
  metadata: unknown;
  owner: AddressItem | null;
  holders: { address: AddressItem; value: bigint }[];
}

interface TokenInstanceRow {
  token_id: string;
  metadata: unknown;
  owner: Buffer | null;
  owner_is_contract: boolean | null;
  holders: { address: string; is_contract: boolean | null; value: string }[];
}

/** Reads the instances of a token that `conditions` (over token_instances ti) select, id descending. */
async function readInstances(db: Db, params: SqlParams, conditions: string[], limit: number): Promise<TokenInstanceItem[]> {
  const { rows } = await db.query<TokenInstanceRow>(
    `SELECT ti.token_id::text, ti.metadata, ti.owner, oa.is_contract AS owner_is_contract,
            coalesce((SELECT json_agg(json_build_object('address', encode(h.address, 'hex'), 'is_contract', ha.is_contract, 'value', h.value::text)
                      ORDER BY h.value DESC, h.address DESC)
                      FROM (SELECT b.address, b.value FROM address_token_balances b
                            WHERE b.token_address = ti.token_address AND b.token_id = ti.token_id AND b.value > 0
                            ORDER BY b.value DESC, b.address DESC LIMIT 2) h
                      LEFT JOIN addresses ha ON ha.hash = h.address), '[]') AS holders
     FROM (SELECT * FROM token_instances ti WHERE ${conditions.join(' AND ')} ORDER BY ti.token_id DESC LIMIT ${params.add(limit)}) ti
     LEFT JOIN addresses oa ON oa.hash = ti.owner
     ORDER BY ti.token_id DESC`,
    params.values,
  );
  return rows.map((r) => ({
    tokenId: BigInt(r.token_id),
    metadata: r.metadata,
    owner: r.owner === null ? null : addressItem(r.owner, r.owner_is_contract),
    holders: r.holders.map((h) => ({
      address: addressItem(Buffer.from(h.address, 'hex'), h.is_contract),
      value: BigInt(h.value),
    })),
  }));
}

/** The NFT ids of a token, highest first, below `beforeId` when given (Blockscout's unique_token). */
export async function listTokenInstances(db: Db, token: Hex, beforeId: bigint | null, limit: number): Promise<TokenInstanceItem[]> {
  const params = new SqlParams();
  const conditions = [`ti.token_address = ${params.add(byteaFromHex(token))}`];
  if (beforeId !== null) conditions.push(`ti.token_id < ${params.add(beforeId.toString())}::numeric`);
  return readInstances(db, params, conditions, limit);
}

/** One NFT id of a token; null when no transfer indexed mentions it. */
export async function findTokenInstance(db: Db, token: Hex, tokenId: bigint): Promise<TokenInstanceItem | null> {
  const params = new SqlParams();
  const conditions = [`ti.token_address = ${params.add(byteaFromHex(token))}`, `ti.token_id = ${params.add(tokenId.toString())}::numeric`];
  const [item] = await readInstances(db, params, conditions, 1);
  return item ?? null;
}

/**
 * How many items E4 lists for an NFT id: its transfers, the entries of one ERC-1155 batch log that
 * name the id more than once counting as one. The token ledger keeps the count; 0 for an id no
 * indexed transfer mentions.
 */
export async function countInstanceTransfers(db: Db, token: Hex, tokenId: bigint): Promise<bigint> {
  const { rows } = await db.query<{ transfers_count: string }>(
    'SELECT transfers_count FROM token_instances WHERE token_address = $1 AND token_id = $2::numeric',
    [byteaFromHex(token), tokenId.toString()],
  );
  return BigInt(rows[0]?.transfers_count ?? 0);
}
