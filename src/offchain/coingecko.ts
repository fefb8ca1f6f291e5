import type { Address, CoinMarket, CoinMarketDay, TokenMarket } from '../model.js';
import { OffchainSourceError, fetchJson, isJsonObject, jsonText } from './fetch-json.js';

/**
 * CoinGecko's API, as Blockscout reads it: the coin's market data from /coins/{id}, and the tokens of
 * a platform (a chain, by CoinGecko's id for it) from /coins/list?include_platform=true. Token prices,
 * market caps, volumes and images come from /coins/markets, which gives all four for up to 250 coins a
 * call (Blockscout asks /simple/price, which has no image). All in US dollars.
 */

export interface CoinGeckoOptions {
  /** The API's root, e.g. https://api.coingecko.com/api/v3. */
  baseUrl: string;
  /** Sent as x-cg-demo-api-key to api.coingecko.com, as x-cg-pro-api-key elsewhere. */
  apiKey: string | null;
  timeoutMs: number;
}

const currency = 'usd';
/** The coin list of every platform is a few megabytes. */
const maxBytes = 64 * 1024 * 1024;
/** Coins asked of /coins/markets at once: a URL of ids stays well below a proxy's limit. */
const marketsBatchSize = 100;

/** A JSON number as a decimal string PostgreSQL's numeric takes (exponents included); null for anything else. */
const decimalText = (value: unknown): string | null => (typeof value === 'number' && Number.isFinite(value) ? String(value) : null);

function headers(options: CoinGeckoOptions): Record<string, string> {
  if (options.apiKey === null) return {};
  const demo = new URL(options.baseUrl).hostname === 'api.coingecko.com';
  return { [demo ? 'x-cg-demo-api-key' : 'x-cg-pro-api-key']: options.apiKey };
}

function get(options: CoinGeckoOptions, path: string, query: Record<string, string>): Promise<unknown> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}?${new URLSearchParams(query).toString()}`;
  return fetchJson(url, { headers: headers(options), timeoutMs: options.timeoutMs, maxBytes });
}

/** The coin's price, its change over 24 h, market cap, volume and image. */
export async function fetchCoinMarket(options: CoinGeckoOptions, coinId: string): Promise<CoinMarket> {
  const answer = await get(options, `/coins/${encodeURIComponent(coinId)}`, {
    localization: 'false',
    tickers: 'false',
    market_data: 'true',
    community_data: 'false',
    developer_data: 'false',
    sparkline: 'false',
  });
  if (!isJsonObject(answer) || !isJsonObject(answer.market_data)) {
    throw new OffchainSourceError(`CoinGecko gave no market_data for the coin "${coinId}"`);
  }
  const data = answer.market_data;
  const inCurrency = (field: unknown) => (isJsonObject(field) ? decimalText(field[currency]) : null);
  const image = isJsonObject(answer.image) ? (jsonText(answer.image.small) ?? jsonText(answer.image.thumb)) : null;
  const change = data.price_change_percentage_24h;
  return {
    fiatValue: inCurrency(data.current_price),
    priceChangePercentage24h: typeof change === 'number' && Number.isFinite(change) ? change : null,
    marketCap: inCurrency(data.market_cap),
    volume24h: inCurrency(data.total_volume),
    imageUrl: image,
    circulatingSupply: decimalText(data.circulating_supply),
  };
}

/** [time in milliseconds, value] pairs of a market_chart series, by UTC day; the day's last pair wins. */
function dailyValues(series: unknown): Map<string, string | null> {
  const byDay = new Map<string, string | null>();
  if (!Array.isArray(series)) return byDay;
  for (const point of series) {
    if (!Array.isArray(point) || typeof point[0] !== 'number' || !Number.isFinite(point[0])) continue;
    byDay.set(new Date(point[0]).toISOString().slice(0, 10), decimalText(point[1]));
  }
  return byDay;
}

/** The coin's price and market cap of each of the last `days` days (and today's so far), oldest first, as Blockscout's history fetcher asks. */
export async function fetchCoinHistory(options: CoinGeckoOptions, coinId: string, days: number): Promise<CoinMarketDay[]> {
  const answer = await get(options, `/coins/${encodeURIComponent(coinId)}/market_chart`, {
    vs_currency: currency,
    days: String(days),
    interval: 'daily',
  });
  if (!isJsonObject(answer) || !Array.isArray(answer.prices)) {
    throw new OffchainSourceError(`CoinGecko gave no prices in the market chart of the coin "${coinId}"`);
  }
  const prices = dailyValues(answer.prices);
  const marketCaps = dailyValues(answer.market_caps);
  return [...prices.keys()].sort().map((day) => ({ day, closingPrice: prices.get(day) ?? null, marketCap: marketCaps.get(day) ?? null }));
}

/** CoinGecko's coin ids of the tokens on a platform, by contract address (lower case). */
export async function fetchPlatformCoins(options: CoinGeckoOptions, platform: string): Promise<Map<Address, string>> {
  const answer = await get(options, '/coins/list', { include_platform: 'true' });
  if (!Array.isArray(answer)) throw new OffchainSourceError('CoinGecko answered /coins/list with something other than a list');
  const coins = new Map<Address, string>();
  for (const coin of answer) {
    if (!isJsonObject(coin) || typeof coin.id !== 'string' || !isJsonObject(coin.platforms)) continue;
    const address = coin.platforms[platform];
    if (typeof address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(address)) coins.set(address.toLowerCase() as Address, coin.id);
  }
  return coins;
}

/** The market figures of these tokens (coin id by address), those CoinGecko has figures for. */
export async function fetchTokenMarkets(options: CoinGeckoOptions, coinIds: ReadonlyMap<Address, string>): Promise<TokenMarket[]> {
  const addressesById = new Map<string, Address[]>();
  for (const [address, id] of coinIds) addressesById.set(id, [...(addressesById.get(id) ?? []), address]);
  const ids = [...addressesById.keys()];
  const markets: TokenMarket[] = [];
  for (let start = 0; start < ids.length; start += marketsBatchSize) {
    const batch = ids.slice(start, start + marketsBatchSize);
    const answer = await get(options, '/coins/markets', {
      vs_currency: currency,
      ids: batch.join(','),
      per_page: '250',
      page: '1',
    });
    if (!Array.isArray(answer)) throw new OffchainSourceError('CoinGecko answered /coins/markets with something other than a list');
    for (const coin of answer) {
      if (!isJsonObject(coin) || typeof coin.id !== 'string') continue;
      for (const address of addressesById.get(coin.id) ?? []) {
        markets.push({
          address,
          fiatValue: decimalText(coin.current_price),
          circulatingMarketCap: decimalText(coin.market_cap),
          volume24h: decimalText(coin.total_volume),
          iconUrl: jsonText(coin.image),
        });
      }
    }
  }
  return markets;
}
