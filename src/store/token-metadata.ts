import type { Pool } from 'pg';
import type { TokenMetadata } from '../chain/token-metadata.js';
import type { Address } from '../model.js';
import { bufferToHex, hexToBuffer } from './encode.js';

/** Tokens whose contract has not been read yet, oldest address order (any stable order will do). */
export async function findTokensWithoutMetadata(pool: Pool, limit: number): Promise<Address[]> {
  const { rows } = await pool.query<{ address: Buffer }>(
    'SELECT address FROM tokens WHERE metadata_fetched_at IS NULL ORDER BY address LIMIT $1',
    [limit],
  );
  return rows.map((r) => bufferToHex(r.address));
}

/** Stores what the contracts said (nulls included), so that each token is read once. */
export async function saveTokenMetadata(pool: Pool, read: ReadonlyMap<Address, TokenMetadata>): Promise<void> {
  const entries = [...read.entries()].sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return;
  await pool.query(
    `UPDATE tokens SET name = m.name, symbol = m.symbol, decimals = m.decimals, total_supply = m.total_supply,
       metadata_fetched_at = now()
     FROM unnest($1::bytea[], $2::text[], $3::text[], $4::numeric[], $5::numeric[])
       AS m(address, name, symbol, decimals, total_supply)
     WHERE tokens.address = m.address`,
    [
      entries.map(([address]) => hexToBuffer(address)),
      entries.map(([, m]) => m.name),
      entries.map(([, m]) => m.symbol),
      entries.map(([, m]) => m.decimals?.toString() ?? null),
      entries.map(([, m]) => m.totalSupply?.toString() ?? null),
    ],
  );
}
