import type { Pool } from 'pg';
import type { Address, CoinMarket, CoinMarketDay, TokenListEntry, TokenMarket } from '../model.js';
import { byteaFromHex, hexFromBytea } from './encode.js';
import { recordSourceSuccess } from './offchain-sources.js';
import { inTransaction } from './transaction.js';

/**
 * The writes of the price source's and the token list's data (migration 050): each successful fetch
 * replaces its source's rows whole and records the success (see offchain-sources.ts).
 */

/** The coin's figures now and day by day. */
export interface CoinPrices {
  market: CoinMarket;
  history: readonly CoinMarketDay[];
}

/**
 * The coin's figures and history and those of the tokens the source knows, replacing all it stored
 * before (null: not fetched, since no coin id or no platform is configured).
 */
export async function savePrices(pool: Pool, coin: CoinPrices | null, tokens: readonly TokenMarket[] | null): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM coin_market');
    await client.query('DELETE FROM coin_market_history');
    await client.query('DELETE FROM token_market');
    if (coin !== null) {
      const { market, history } = coin;
      await client.query(
        `INSERT INTO coin_market (fiat_value, price_change_percentage_24h, market_cap, volume_24h, image_url, circulating_supply, fetched_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())`,
        [market.fiatValue, market.priceChangePercentage24h, market.marketCap, market.volume24h, market.imageUrl, market.circulatingSupply],
      );
      await client.query(
        `INSERT INTO coin_market_history (day, closing_price, market_cap)
         SELECT * FROM unnest($1::date[], $2::numeric[], $3::numeric[])`,
        [history.map((d) => d.day), history.map((d) => d.closingPrice), history.map((d) => d.marketCap)],
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
