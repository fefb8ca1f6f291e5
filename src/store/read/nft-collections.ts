import type { Hex, TokenType } from '../../model.js';
import { byteaFromHex, hexFromBytea } from '../encode.js';
import { type Db, SqlParams, keysetCondition } from './sql.js';
import { type TokenItem, type TokenRow, tokenColumns, toTokenItem } from './tokens.js';

export type NftType = Extract<TokenType, 'ERC-721' | 'ERC-1155' | 'ERC-404'>;

/** E3 order: ERC-721 collections, then ERC-1155, then ERC-404, each by token address. */
export const nftTypeOrder: readonly NftType[] = ['ERC-721', 'ERC-1155', 'ERC-404'];

export interface NftPreviewItem {
  tokenId: bigint;
  /** The address's balance of the id (1 for ERC-721). */
  value: bigint;
  metadata: unknown;
}

export interface NftCollectionItem {
  token: TokenItem;
  /** ERC-721: how many the address owns; ERC-1155 and ERC-404: how many ids it holds. */
  amount: bigint;
  /** Up to 9 of the address's ids, highest first. */
  previews: NftPreviewItem[];
}

export interface NftCollectionKeyset {
  tokenType: NftType;
  tokenAddress: Hex;
}

export const previewsPerCollection = 9;

interface NftCollectionRow extends TokenRow {
  amount: string;
}

interface NftPreviewRow {
  token_address: Buffer;
  token_id: string;
  value: string;
  metadata: unknown;
}

async function readPreviews(db: Db, address: Buffer, tokens: TokenItem[]): Promise<Map<Hex, NftPreviewItem[]>> {
  const byToken = new Map<Hex, NftPreviewItem[]>();
  if (tokens.length === 0) return byToken;
  const { rows } = await db.query<NftPreviewRow>(
    `SELECT c.token_address, p.token_id, p.value, p.metadata
     FROM unnest($2::bytea[], $3::text[]) AS c(token_address, type)
     CROSS JOIN LATERAL (
       (SELECT ti.token_id, 1::numeric AS value, ti.metadata FROM token_instances ti
        WHERE c.type = 'ERC-721' AND ti.owner = $1 AND ti.token_address = c.token_address
        ORDER BY ti.token_id DESC LIMIT ${previewsPerCollection})
       UNION ALL
       (SELECT b.token_id, b.value, ti.metadata FROM address_token_balances b
        JOIN token_instances ti ON ti.token_address = b.token_address AND ti.token_id = b.token_id
        WHERE c.type <> 'ERC-721' AND b.address = $1 AND b.token_address = c.token_address
          AND b.token_id IS NOT NULL AND (b.value > 0 OR c.type = 'ERC-404')
        ORDER BY b.token_id DESC LIMIT ${previewsPerCollection})
     ) p
     ORDER BY c.token_address, p.token_id DESC`,
    [address, tokens.map((t) => byteaFromHex(t.address)), tokens.map((t) => t.type)],
  );
  for (const r of rows) {
    const key = hexFromBytea(r.token_address);
    const previews = byToken.get(key) ?? [];
    previews.push({ tokenId: BigInt(r.token_id), value: BigInt(r.value), metadata: r.metadata });
    byToken.set(key, previews);
  }
  return byToken;
}

/** Which balance rows make a collection of each type, and how they count. */
const collectionRows: Record<NftType, { condition: string; amount: string }> = {
  'ERC-721': { condition: 'b.token_id IS NULL AND b.value > 0', amount: 'sum(b.value)' },
  'ERC-1155': { condition: 'b.token_id IS NOT NULL AND b.value > 0', amount: 'count(*)' },
  'ERC-404': { condition: 'b.token_id IS NOT NULL', amount: 'count(*)' },
};

/** The address's collections of one type, by token address, after `afterToken` if given. */
async function listCollectionsOfType(
  db: Db,
  holder: Buffer,
  type: NftType,
  afterToken: Buffer | null,
  limit: number,
): Promise<NftCollectionRow[]> {
  const params = new SqlParams();
  const { condition, amount } = collectionRows[type];
  const conditions = [`b.address = ${params.add(holder)}`, condition, `k.type = ${params.add(type)}`];
  if (afterToken !== null) conditions.push(keysetCondition(params, '>', [['b.token_address', afterToken, 'bytea']]));
  const { rows } = await db.query<NftCollectionRow>(
    `SELECT ${tokenColumns('k')}, ${amount} AS amount
     FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
     WHERE ${conditions.join(' AND ')}
     GROUP BY b.token_address, k.address
     ORDER BY b.token_address
     LIMIT ${params.add(limit)}`,
    params.values,
  );
  return rows;
}

/**
 * E3: the NFT collections an address holds, of the given types (all when empty): ERC-721 counted by its
 * balance; ERC-1155 by its ids with a positive balance; ERC-404 by its ids with any balance row.
 * Each type is read in turn, each read stopping at the page's end.
 */
export async function listNftCollections(
  db: Db,
  address: Hex,
  types: NftType[],
  after: NftCollectionKeyset | null,
  limit: number,
): Promise<NftCollectionItem[]> {
  const holder = byteaFromHex(address);
  const firstType = after === null ? 0 : nftTypeOrder.indexOf(after.tokenType);
  const wanted = nftTypeOrder.filter((type, i) => i >= firstType && (types.length === 0 || types.includes(type)));
  const rows: NftCollectionRow[] = [];
  for (const type of wanted) {
    if (rows.length >= limit) break;
    const afterToken = after !== null && after.tokenType === type ? byteaFromHex(after.tokenAddress) : null;
    rows.push(...(await listCollectionsOfType(db, holder, type, afterToken, limit - rows.length)));
  }
  const collections = rows.map((r) => ({ token: toTokenItem(r), amount: BigInt(r.amount) }));
  const previews = await readPreviews(
    db,
    holder,
    collections.map((c) => c.token),
  );
  return collections.map((c) => Object.assign(c, { previews: previews.get(c.token.address) ?? [] }));
}
