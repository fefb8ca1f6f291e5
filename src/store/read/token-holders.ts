import type { Hex } from '../../model.js';
import { bigintFromNumeric, byteaFromHex } from '../encode.js';
import { type AddressItem, type Db, SqlParams, addressItem, keysetCondition } from './sql.js';

/** A positive balance of a token: per holder (ERC-20 amount, ERC-721 count) or per holder and id (ERC-1155, ERC-404). */
export interface TokenHolderItem {
  address: AddressItem;
  value: bigint;
  tokenId: bigint | null;
}

/** Largest balance first, then holder and id descending: a unique key. */
export interface TokenHolderKeyset {
  value: bigint;
  address: Hex;
  tokenId: bigint | null;
}

interface TokenHolderRow {
  address: Buffer;
  is_contract: boolean | null;
  value: string;
  token_id: string | null;
}

const toHolderItem = (r: TokenHolderRow): TokenHolderItem => ({
  address: addressItem(r.address, r.is_contract),
  value: BigInt(r.value),
  tokenId: bigintFromNumeric(r.token_id),
});

/**
 * Reads the page of balance rows `conditions` select, in the order of `keys` (all descending), each
 * page one range of the index that follows that order (address_token_balances_token_holders or
 * address_token_balances_instance_holders).
 */
async function readHolders(db: Db, params: SqlParams, conditions: string[], order: string, limit: number): Promise<TokenHolderItem[]> {
  const { rows } = await db.query<TokenHolderRow>(
    `SELECT b.address, a.is_contract, b.value, b.token_id
     FROM (SELECT * FROM address_token_balances b WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ${params.add(limit)}) b
     LEFT JOIN addresses a ON a.hash = b.address
     ORDER BY ${order}`,
    params.values,
  );
  return rows.map(toHolderItem);
}

/** The holders of a token, largest balance first (an ERC-1155 holder once per id it holds). */
export async function listTokenHolders(db: Db, token: Hex, after: TokenHolderKeyset | null, limit: number): Promise<TokenHolderItem[]> {
  const params = new SqlParams();
  const conditions = [`b.token_address = ${params.add(byteaFromHex(token))}`, 'b.value > 0'];
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['b.value', after.value.toString(), 'numeric'],
        ['b.address', byteaFromHex(after.address), 'bytea'],
        ['COALESCE(b.token_id, -1)', (after.tokenId ?? -1n).toString(), 'numeric'],
      ]),
    );
  }
  return readHolders(db, params, conditions, 'b.value DESC, b.address DESC, COALESCE(b.token_id, -1) DESC', limit);
}

/** The holders of one id of a token (ERC-1155, ERC-404), largest balance first. */
export async function listInstanceHolders(
  db: Db,
  token: Hex,
  tokenId: bigint,
  after: Omit<TokenHolderKeyset, 'tokenId'> | null,
  limit: number,
): Promise<TokenHolderItem[]> {
  const params = new SqlParams();
  const conditions = [
    `b.token_address = ${params.add(byteaFromHex(token))}`,
    `b.token_id = ${params.add(tokenId.toString())}::numeric`,
    'b.value > 0',
  ];
  if (after !== null) {
    conditions.push(
      keysetCondition(params, '<', [
        ['b.value', after.value.toString(), 'numeric'],
        ['b.address', byteaFromHex(after.address), 'bytea'],
      ]),
    );
  }
  return readHolders(db, params, conditions, 'b.value DESC, b.address DESC', limit);
}
