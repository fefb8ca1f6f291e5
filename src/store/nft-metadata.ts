import type { Pool } from 'pg';
import type { Address, TokenType } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';

export interface PendingInstance {
  token: Address;
  type: TokenType;
  id: bigint;
  /** The request this read answers: a save under an older mark is dropped. */
  mark: string;
}

export interface FetchedInstance extends PendingInstance {
  tokenUri: string | null;
  metadata: Record<string, unknown> | null;
  error: string | null;
}

/** NFT ids whose metadata has not been fetched yet. */
export async function findInstancesWithoutMetadata(pool: Pool, limit: number): Promise<PendingInstance[]> {
  const { rows } = await pool.query<{ token_address: Buffer; type: TokenType; token_id: string; metadata_mark: string }>(
    `SELECT ti.token_address, k.type, ti.token_id, ti.metadata_mark FROM token_instances ti JOIN tokens k ON k.address = ti.token_address
     WHERE ti.metadata_fetched_at IS NULL ORDER BY ti.token_address, ti.token_id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ token: hexFromBytea(r.token_address), type: r.type, id: BigInt(r.token_id), mark: r.metadata_mark }));
}

/**
 * Stores each id's URI and metadata, or why there is none, so that each id is fetched once; an id asked
 * for again since it was found (a retraction) keeps waiting for a new read.
 */
export async function saveInstanceMetadata(pool: Pool, fetched: readonly FetchedInstance[]): Promise<void> {
  if (fetched.length === 0) return;
  await pool.query(
    `UPDATE token_instances ti SET token_uri = f.token_uri, metadata = f.metadata, metadata_error = f.error,
       metadata_fetched_at = now()
     FROM unnest($1::bytea[], $2::numeric[], $3::text[], $4::jsonb[], $5::text[], $6::bigint[])
       AS f(token_address, token_id, token_uri, metadata, error, mark)
     WHERE ti.token_address = f.token_address AND ti.token_id = f.token_id AND ti.metadata_mark = f.mark`,
    [
      fetched.map((f) => byteaFromHex(f.token)),
      fetched.map((f) => f.id.toString()),
      fetched.map((f) => f.tokenUri?.replaceAll('\u0000', '') ?? null),
      fetched.map((f) => (f.metadata === null ? null : JSON.stringify(f.metadata))),
      fetched.map((f) => f.error),
      fetched.map((f) => f.mark),
    ],
  );
}
