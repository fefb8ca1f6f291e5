import type { Hex, TokenType } from '../../model.js';
import { bigintFromNumeric, byteaFromHex } from '../encode.js';
import { type Db, SqlParams, keysetCondition } from './sql.js';
import { type TokenItem, type TokenRow, tokenColumns, toTokenItem } from './tokens.js';

/** A positive balance of an address: per token (ERC-20 amount, ERC-721 count) or per id (ERC-1155, ERC-404). */
export interface TokenBalanceItem {
  token: TokenItem;
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

interface TokenBalanceRow extends TokenRow {
  token_id: string | null;
  value: string;
  has_instance: boolean;
  metadata: unknown;
}

/**
 * The order after value, each key under the name a page's rows carry it by, with its SQL type: without
 * nulls so that a row comparison applies (unnamed tokens last, rows without an id first). The same
 * expressions as the index address_token_balances_holder_order, which then serves both the order and
 * the row comparison.
 */
const tieKeys = [
  ['b.token_name IS NULL', 'unnamed', 'boolean'],
  ["COALESCE(b.token_name, '')", 'name_key', 'text'],
  ['b.token_type', 'token_type', 'text'],
  ['b.token_address', 'token_address', 'bytea'],
  ['COALESCE(b.token_id, -1)', 'id_key', 'numeric'],
] as const;

const pageColumns = `b.token_id, b.value, ${tieKeys.map(([key, name]) => `${key} AS ${name}`).join(', ')}`;

/** E1's order over a page's rows, whose columns are those of pageColumns (under `prefix`). */
const pageOrder = (prefix: string): string => [`${prefix}value DESC`, ...tieKeys.map(([, name]) => `${prefix}${name}`)].join(', ');

/**
 * The statement that reads the page's balance rows in E1 order. After a keyset it is two index scans:
 * the rest of the keyset's tie group (equal value, later tie keys: a row comparison the index seeks to)
 * and then the lower values, so that a page deep into a tie group starts where it is.
 */
function pageRows(params: SqlParams, address: Hex, types: TokenType[], after: TokenBalanceKeyset | null, limit: number): string {
  const conditions = [`b.address = ${params.add(byteaFromHex(address))}`, 'b.value > 0'];
  if (types.length > 0) conditions.push(`b.token_type = ANY(${params.add(types)}::text[])`);
  const limitParam = params.add(limit);
  const scan = (extra: string[]) =>
    `SELECT ${pageColumns} FROM address_token_balances b
     WHERE ${[...conditions, ...extra].join(' AND ')} ORDER BY ${pageOrder('')} LIMIT ${limitParam}`;
  if (after === null) return scan([]);
  const value = `${params.add(after.value.toString())}::numeric`;
  const ties = [
    after.tokenName === null,
    after.tokenName ?? '',
    after.tokenType,
    byteaFromHex(after.tokenAddress),
    (after.tokenId ?? -1n).toString(),
  ];
  const laterTies = keysetCondition(
    params,
    '>',
    tieKeys.map(([key, , type], i) => [key, ties[i], type] as const),
  );
  return `SELECT * FROM ((${scan([`b.value = ${value}`, laterTies])}) UNION ALL (${scan([`b.value < ${value}`])})) u
    ORDER BY ${pageOrder('u.')} LIMIT ${limitParam}`;
}

/** E1: the address's positive balances, of the given token types (all when empty). */
export async function listTokenBalances(
  db: Db,
  address: Hex,
  types: TokenType[],
  after: TokenBalanceKeyset | null,
  limit: number,
): Promise<TokenBalanceItem[]> {
  const params = new SqlParams();
  // The tokens and NFT instances are joined to the page only, not to every balance the order looks at.
  const { rows } = await db.query<TokenBalanceRow>(
    `SELECT ${tokenColumns('k')}, b.token_id, b.value, ti.token_id IS NOT NULL AS has_instance, ti.metadata
     FROM (${pageRows(params, address, types, after, limit)}) b
     JOIN tokens k ON k.address = b.token_address
     LEFT JOIN token_instances ti ON ti.token_address = b.token_address AND ti.token_id = b.token_id
     ORDER BY ${pageOrder('b.')}`,
    params.values,
  );
  return rows.map((r) => ({
    token: toTokenItem(r),
    tokenId: bigintFromNumeric(r.token_id),
    value: BigInt(r.value),
    instance: r.has_instance ? { metadata: r.metadata } : null,
  }));
}
