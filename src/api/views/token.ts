import { type Static, Type } from '@sinclair/typebox';
import type { TokenItem } from '../../store/read/tokens.js';
import { Nullable, decimal } from '../schemas.js';
import { checksumAddress } from './checksum-address.js';

/**
 * A token contract, keys in alphabetical order. The exchange rate, circulating market cap and 24 h
 * volume are the price source's (null without one, or for a token it does not know); the icon is the
 * token list's, else the price source's; the circulating supply is not known.
 */
export const TokenSchema = Type.Object({
  address_hash: Type.String(),
  circulating_market_cap: Nullable(Type.String()),
  circulating_supply: Nullable(Type.String()),
  decimals: Nullable(Type.String()),
  exchange_rate: Nullable(Type.String()),
  holders_count: Type.String(),
  icon_url: Nullable(Type.String()),
  name: Nullable(Type.String()),
  reputation: Type.String(),
  symbol: Nullable(Type.String()),
  total_supply: Nullable(Type.String()),
  type: Type.String(),
  volume_24h: Nullable(Type.String()),
});

export type Token = Static<typeof TokenSchema>;

export function tokenView(token: TokenItem): Token {
  return {
    address_hash: checksumAddress(token.address),
    circulating_market_cap: token.circulatingMarketCap,
    circulating_supply: null,
    decimals: decimal(token.decimals),
    exchange_rate: token.exchangeRate,
    holders_count: (token.holdersCount < 0n ? 0n : token.holdersCount).toString(),
    icon_url: token.iconUrl,
    name: token.name,
    reputation: 'ok',
    symbol: token.symbol,
    total_supply: decimal(token.totalSupply),
    type: token.type,
    volume_24h: token.volume24h,
  };
}
