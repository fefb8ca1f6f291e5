import type { Pool } from 'pg';
import type { Address, CoinMarket, TokenListEntry, TokenMarket } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { recordSourceSuccess } from './offchain-sources.js';
import { inTransaction } from './transaction.js';

/**
 * The writes of the price source's and the token list's data (migration 050): each successful fetch
 * replaces its source's rows whole and records the success (see offchain-sources.ts).
 */

/**
 * The coin's figures and those of the tokens the source knows, replacing all it stored before (null:
 * not fetched, since no coin id or no platform is configured).
 */
export async function savePrices(pool: Pool, coin: CoinMarket | null, tokens: readonly TokenMarket[] | null): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM coin_market');
    await client.query('DELETE FROM token_market');
    if (coin !== null) {
      await client.query(
        `INSERT INTO coin_market (fiat_value, price_change_percentage_24h, market_cap, volume_24h, image_url, fetched_at)
         VALUES ($1, $2, $3, $4, $5, now())`,
        [coin.fiatValue, coin.priceChangePercentage24h, coin.marketCap, coin.volume24h, coin.imageUrl],
      );
    }
    if (tokens !== null) {
      await client.query(
        `INSERT INTO token_market (address, fiat_value, circulating_market_cap, volume_24h, icon_url, fetched_at)
         SELECT *, now() FROM unnest($1::bytea[], $2::numeric[], $3::numeric[], $4::numeric[], $5::text[])
         ON CONFLICT (address) DO NOTHING`,
        [
          tokens.map((t) => byteaFromHex(t.address)),
          tokens.map((t) => t.fiatValue),
          tokens.map((t) => t.circulatingMarketCap),
          tokens.map((t) => t.volume24h),
          tokens.map((t) => t.iconUrl),
        ],
      );
    }
    await recordSourceSuccess(client, 'prices');
  });
}

/** The token list's entries for this chain, replacing the previous list's. */
export async function saveTokenList(pool: Pool, entries: readonly TokenListEntry[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM token_list_entries');
    await client.query(
      `INSERT INTO token_list_entries (address, name, symbol, decimals, logo_uri)
       SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::numeric[], $5::text[])`,
      [
        entries.map((e) => byteaFromHex(e.address)),
        entries.map((e) => e.name),
        entries.map((e) => e.symbol),
        entries.map((e) => e.decimals?.toString() ?? null),
        entries.map((e) => e.logoUri),
      ],
    );
    await recordSourceSuccess(client, 'token_list');
  });
}

/** Of these addresses, those of indexed tokens: the tokens whose prices are worth asking for. */
export async function findIndexedTokens(pool: Pool, addresses: readonly Address[]): Promise<Set<Address>> {
  const { rows } = await pool.query<{ address: Buffer }>('SELECT address FROM tokens WHERE address = ANY($1::bytea[])', [
    addresses.map(byteaFromHex),
  ]);
  return new Set(rows.map((r) => hexFromBytea(r.address)));
}
