import type { Hex, TokenType } from '../../model.js';
import { type Db, SqlParams, byteaFromHex } from './sql.js';
import { type TokenColumns, type TokenRow, tokenColumns, toTokenRow } from './tokens.js';

export type NftType = Extract<TokenType, 'ERC-721' | 'ERC-1155' | 'ERC-404'>;

/** E3 order: ERC-721 collections, then ERC-1155, then ERC-404, each by token address. */
export const nftTypeOrder: readonly NftType[] = ['ERC-721', 'ERC-1155', 'ERC-404'];

export interface NftPreview {
  tokenId: bigint;
  /** The address's balance of the id (1 for ERC-721). */
  value: bigint;
  metadata: unknown;
}

export interface NftCollectionRow {
  token: TokenRow;
  /** ERC-721: how many the address owns; ERC-1155 and ERC-404: how many ids it holds. */
  amount: bigint;
  /** Up to 9 of the address's ids, highest first. */
  previews: NftPreview[];
}

export interface NftCollectionKeyset {
  tokenType: NftType;
  tokenAddress: Hex;
}

export const previewsPerCollection = 9;

const bucket = `array_position(ARRAY['ERC-721', 'ERC-1155', 'ERC-404'], k.type)`;

interface CollectionRecordRow extends TokenColumns {
  amount: string;
}

interface PreviewRecordRow {
  token_address: Buffer;
  token_id: string;
  value: string;
  metadata: unknown;
}

async function readPreviews(db: Db, address: Buffer, tokens: TokenRow[]): Promise<Map<string, NftPreview[]>> {
  const byToken = new Map<string, NftPreview[]>();
  if (tokens.length === 0) return byToken;
  const { rows } = await db.query<PreviewRecordRow>(
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
    const key = r.token_address.toString('hex');
    const previews = byToken.get(key) ?? [];
    previews.push({ tokenId: BigInt(r.token_id), value: BigInt(r.value), metadata: r.metadata });
    byToken.set(key, previews);
  }
  return byToken;
}

/**
 * E3: the NFT collections an address holds, of the given types (all when empty): ERC-721 counted by its
 * balance; ERC-1155 by its ids with a positive balance; ERC-404 by its ids with any balance row.
 */
export async function listNftCollections(
  db: Db,
  address: Hex,
  types: NftType[],
  after: NftCollectionKeyset | null,
  limit: number,
): Promise<NftCollectionRow[]> {
  const params = new SqlParams();
  const holder = byteaFromHex(address);
  const conditions = [
    `b.address = ${params.add(holder)}`,
    `((k.type = 'ERC-721' AND b.token_id IS NULL AND b.value > 0)
      OR (k.type = 'ERC-1155' AND b.token_id IS NOT NULL AND b.value > 0)
      OR (k.type = 'ERC-404' AND b.token_id IS NOT NULL))`,
    `k.type = ANY(${params.add(types.length > 0 ? types : nftTypeOrder)}::text[])`,
  ];
  if (after !== null) {
    conditions.push(
      `(${bucket}, b.token_address) > (${params.add(nftTypeOrder.indexOf(after.tokenType) + 1)}::integer, ${params.add(byteaFromHex(after.tokenAddress))})`,
    );
  }
  const { rows } = await db.query<CollectionRecordRow>(
    `SELECT ${tokenColumns('k')}, CASE WHEN k.type = 'ERC-721' THEN sum(b.value) ELSE count(*) END AS amount
     FROM address_token_balances b JOIN tokens k ON k.address = b.token_address
     WHERE ${conditions.join(' AND ')}
     GROUP BY k.address
     ORDER BY ${bucket}, k.address
     LIMIT ${params.add(limit)}`,
    params.values,
  );
  const collections = rows.map((r) => ({ token: toTokenRow(r), amount: BigInt(r.amount) }));
  const previews = await readPreviews(db, holder, collections.map((c) => c.token));
  return collections.map((c) => ({ ...c, previews: previews.get(c.token.address.slice(2)) ?? [] }));
}
