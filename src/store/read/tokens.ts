import type { Address, Hex, TokenType } from '../../model.js';
import { bigintFromNumeric, byteaFromHex, hexFromBytea } from '../encode.js';
import type { Db } from './sql.js';

/** A token contract as the API reads it; the fields read from the contract are null until fetched. */
export interface TokenItem {
  address: Address;
  type: TokenType;
  name: string | null;
  symbol: string | null;
  decimals: bigint | null;
  totalSupply: bigint | null;
  holdersCount: bigint;
  /** From the price source (migration 050), in US dollars; null where it has none. */
  exchangeRate: string | null;
  circulatingMarketCap: string | null;
  volume24h: string | null;
  /** The token list's logo, else the price source's image. */
  iconUrl: string | null;
}

/**
 * The columns toTokenItem reads, from the tokens table under this alias: a name, symbol or decimals
 * the contract does not answer from the token list, and the market figures of the price source, each
 * looked up by primary key.
 */
export const tokenColumns = (alias: string): string => {
  const listed = (column: string) => `(SELECT l.${column} FROM token_list_entries l WHERE l.address = ${alias}.address)`;
  const market = (column: string) => `(SELECT m.${column} FROM token_market m WHERE m.address = ${alias}.address)`;
  return `${alias}.address AS token_address, ${alias}.type AS token_type,
   coalesce(${alias}.name, ${listed('name')}) AS token_name, coalesce(${alias}.symbol, ${listed('symbol')}) AS token_symbol,
   coalesce(${alias}.decimals, ${listed('decimals')}) AS token_decimals, ${alias}.total_supply AS token_total_supply,
   ${alias}.holders_count AS token_holders_count, ${market('fiat_value')} AS token_exchange_rate,
   ${market('circulating_market_cap')} AS token_circulating_market_cap, ${market('volume_24h')} AS token_volume_24h,
   coalesce(${listed('logo_uri')}, ${market('icon_url')}) AS token_icon_url`;
};

/** Those columns as pg returns them: a part of the row of any query that selects them. */
export interface TokenRow {
  token_address: Buffer;
  token_type: TokenType;
  token_name: string | null;
  token_symbol: string | null;
  token_decimals: string | null;
  token_total_supply: string | null;
  token_holders_count: string;
  token_exchange_rate: string | null;
  token_circulating_market_cap: string | null;
  token_volume_24h: string | null;
  token_icon_url: string | null;
}

export const toTokenItem = (r: TokenRow): TokenItem => ({
  address: hexFromBytea(r.token_address),
  type: r.token_type,
  name: r.token_name,
  symbol: r.token_symbol,
  decimals: bigintFromNumeric(r.token_decimals),
  totalSupply: bigintFromNumeric(r.token_total_supply),
  holdersCount: BigInt(r.token_holders_count),
  exchangeRate: r.token_exchange_rate,
  circulatingMarketCap: r.token_circulating_market_cap,
  volume24h: r.token_volume_24h,
  iconUrl: r.token_icon_url,
});

export async function findToken(db: Db, address: Hex): Promise<TokenItem | null> {
  const { rows } = await db.query<TokenRow>(`SELECT ${tokenColumns('k')} FROM tokens k WHERE k.address = $1`, [byteaFromHex(address)]);
  return rows[0] === undefined ? null : toTokenItem(rows[0]);
}

/** A token's counters, kept by the token ledger: holders and transfers (one per transferred id and amount). */
export async function findTokenCounters(db: Db, address: Hex): Promise<{ holdersCount: bigint; transfersCount: bigint } | null> {
  const { rows } = await db.query<{ holders_count: string; transfers_count: string }>(
    'SELECT holders_count, transfers_count FROM tokens WHERE address = $1',
    [byteaFromHex(address)],
  );
  const row = rows[0];
  return row === undefined ? null : { holdersCount: BigInt(row.holders_count), transfersCount: BigInt(row.transfers_count) };
}
