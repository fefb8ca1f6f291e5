import type { Hex, TokenType } from '../../model.js';
import { type Db, SqlParams, bigintFromNumeric, byteaFromHex } from './sql.js';
import { type TokenColumns, type TokenRow, tokenColumns, toTokenRow } from './tokens.js';

/** A positive balance of an address: per token (ERC-20 amount, ERC-721 count) or per id (ERC-1155, ERC-404). */
export interface TokenBalanceRow {
  token: TokenRow;
  tokenId: bigint | null;
  value: bigint;
  /** The id's NFT instance, when it has an instance row. */
  instance: { metadata: unknown } | null;
}

/**
 * E1 order: value descending, then token name (unnamed last), token type, token address and id.
 * The name and id are null where the token or the row has none.
 */
export interface TokenBalanceKeyset {
  value: bigint;
  tokenName: string | null;
  tokenType: TokenType;
  tokenAddress: Hex;
  tokenId: bigint | null;
}

interface TokenBalanceRecordRow extends TokenColumns {
  token_id: string | null;
  value: string;
  has_instance: boolean;
  metadata: unknown;
}

// The order after value, without nulls so that a row comparison applies: unnamed tokens last, rows without an id first.
const tieKeys = "k.name IS NULL, COALESCE(k.name, ''), k.type, b.token_address, COALESCE(b.token_id, -1)";

/** E1: the address's positive balances, of the given token types (all when empty). */
export async function listTokenBalances(
  db: Db,
  address: Hex,
  types: TokenType[],
  after: TokenBalanceKeyset | null,
  limit: number,
): Promise<TokenBalanceRow[]> {
  const params = new SqlParams();
  const conditions = [`b.address = ${params.add(byteaFromHex(address))}`, 'b.value > 0'];
  if (types.length > 0) conditions.push(`k.type = ANY(${params.add(types)}::text[])`);
  if (after !== null) {
    const value = `${params.add(after.value.toString())}::numeric`;
    const ties = [
      `${after.tokenName === null}`,
      `${params.add(after.tokenName ?? '')}::text`,
      `${params.add(after.tokenType)}::text`,
      params.add(byteaFromHex(after.tokenAddress)),
      `${params.add((after.tokenId ?? -1n).toString())}::numeric`,
    ];
    // b.value <= value is implied by the rest, and lets the index scan start at the keyset's value.
    conditions.push(`b.value <= ${value}`, `(b.value < ${value} OR (b.value = ${value} AND (${tieKeys}) > (${ties.join(', ')})))`);
  }
  // The NFT instances are joined to the page only, not to every balance the order has to look at.
  const { rows } = await db.query<TokenBalanceRecordRow>(
    `SELECT b.*, ti.token_id IS NOT NULL AS has_instance, ti.metadata
     FROM (SELECT ${tokenColumns('k')}, b.token_id, b.value
           FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
           WHERE ${conditions.join(' AND ')}
           ORDER BY b.value DESC, ${tieKeys}
           LIMIT ${params.add(limit)}) b
     LEFT JOIN token_instances ti ON ti.token_address = b.token_address AND ti.token_id = b.token_id
     ORDER BY b.value DESC, b.token_name IS NULL, COALESCE(b.token_name, ''), b.token_type, b.token_address, COALESCE(b.token_id, -1)`,
    params.values,
  );
  return rows.map((r) => ({
    token: toTokenRow(r),
    tokenId: bigintFromNumeric(r.token_id),
    value: BigInt(r.value),
    instance: r.has_instance ? { metadata: r.metadata } : null,
  }));
}
