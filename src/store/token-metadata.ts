import type { Pool, PoolClient } from 'pg';
import type { Address, TokenMetadata } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { inLockOrder } from './lock-order.js';
import { inRedoableTransaction } from './transaction.js';

/** Tokens whose contract has not been read yet, oldest address order (any stable order will do). */
export async function findTokensWithoutMetadata(pool: Pool, limit: number): Promise<Address[]> {
  const { rows } = await pool.query<{ address: Buffer }>(
    'SELECT address FROM tokens WHERE metadata_fetched_at IS NULL ORDER BY address LIMIT $1',
    [limit],
  );
  return rows.map((r) => hexFromBytea(r.address));
}

/**
 * Stores what the contracts said (nulls included), so that each token is read once, and copies the
 * names to the tokens' balance rows (E1 orders by them), in one transaction: the copies run once the
 * first statement holds the token rows, which a block writer holds until it commits, so they also
 * see the balance rows such a writer added meanwhile. A balance row takes its token's name when it is
 * written and with each save, so the rows of a token not named before have none: they are found by
 * address_token_balances_unnamed (migration 068) rather than among every balance row, which a filter on
 * the token alone read whole (no other index of the table covers every row of a token). A token named
 * before (read again) has its rows found by the token address, as the rows of any name.
 */
export async function saveTokenMetadata(pool: Pool, read: ReadonlyMap<Address, TokenMetadata>): Promise<void> {
  const entries = [...read.entries()].sort(([a], [b]) => inLockOrder(a, b));
  if (entries.length === 0) return;
  const addresses = entries.map(([address]) => byteaFromHex(address));
  await inRedoableTransaction(pool, async (client) => {
    // `before` is the token row as the statement's snapshot saw it, before this update.
    const { rows } = await client.query<{ address: Buffer; named: boolean }>(
      `UPDATE tokens SET name = m.name, symbol = m.symbol, decimals = m.decimals, total_supply = m.total_supply,
         metadata_fetched_at = now()
       FROM unnest($1::bytea[], $2::text[], $3::text[], $4::numeric[], $5::numeric[])
         AS m(address, name, symbol, decimals, total_supply)
         JOIN tokens before ON before.address = m.address
       WHERE tokens.address = m.address
       RETURNING tokens.address, before.name IS NOT NULL AS named`,
      [
        addresses,
        entries.map(([, m]) => m.name),
        entries.map(([, m]) => m.symbol),
        entries.map(([, m]) => m.decimals?.toString() ?? null),
        entries.map(([, m]) => m.totalSupply?.toString() ?? null),
      ],
    );
    // The rows of a token named before may hold any name; those of a token not named before hold none (the partial index's).
    await copyNamesToBalances(
      client,
      rows.filter((r) => !r.named).map((r) => r.address),
      'b.token_name IS NULL AND k.name IS NOT NULL',
    );
    await copyNamesToBalances(
      client,
      rows.filter((r) => r.named).map((r) => r.address),
      'b.token_name IS DISTINCT FROM k.name',
    );
  });
}

/** Copies the names of these tokens to their balance rows that `stale` (a condition on b, the row, and k, its token) finds. */
async function copyNamesToBalances(client: PoolClient, tokens: readonly Buffer[], stale: string): Promise<void> {
  if (tokens.length === 0) return;
  await client.query(
    `UPDATE address_token_balances b SET token_name = k.name FROM tokens k
     WHERE k.address = ANY($1::bytea[]) AND b.token_address = ANY($1::bytea[]) AND b.token_address = k.address AND ${stale}`,
    [tokens],
  );
}

/** A token whose mints or burns were written after its total supply was read, with the mark they left. */
export interface SupplyMark {
  address: Address;
  mark: bigint;
}

/** Tokens marked for a total-supply refresh, among those whose contract has been read once. */
export async function findTokensWithSupplyMarks(pool: Pool, limit: number): Promise<SupplyMark[]> {
  const { rows } = await pool.query<{ address: Buffer; mark: string }>(
    `SELECT address, supply_mark AS mark FROM tokens
     WHERE supply_mark IS NOT NULL AND metadata_fetched_at IS NOT NULL ORDER BY address LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ address: hexFromBytea(r.address), mark: BigInt(r.mark) }));
}

/**
 * Stores the total supplies read for marked tokens; a null (the call failed) keeps the previous value.
 * Clears each mark only if it is still the one read under: a block written meanwhile leaves its own.
 */
export async function saveTotalSupplies(pool: Pool, read: readonly (SupplyMark & { totalSupply: bigint | null })[]): Promise<void> {
  const entries = [...read].sort((a, b) => inLockOrder(a.address, b.address));
  if (entries.length === 0) return;
  await pool.query(
    `UPDATE tokens SET total_supply = coalesce(s.total_supply, tokens.total_supply),
       supply_mark = CASE WHEN tokens.supply_mark = s.mark THEN NULL ELSE tokens.supply_mark END
     FROM unnest($1::bytea[], $2::bigint[], $3::numeric[]) AS s(address, mark, total_supply)
     WHERE tokens.address = s.address`,
    [
      entries.map((e) => byteaFromHex(e.address)),
      entries.map((e) => e.mark.toString()),
      entries.map((e) => e.totalSupply?.toString() ?? null),
    ],
  );
}
