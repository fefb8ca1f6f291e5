import { type Static, Type } from '@sinclair/typebox';
import type { TokenHolderItem } from '../../store/read/token-holders.js';
import { Nullable, decimal } from '../schemas.js';
import { BareAddressInfoSchema, bareAddressInfo } from './address-info.js';

/** A holder of a token (or of one of its ids), as Blockscout's TokenHolderResponse: the balance a decimal string. */
export const TokenHolderSchema = Type.Object({
  address: BareAddressInfoSchema,
  token_id: Nullable(Type.String()),
  value: Type.String(),
});

export type TokenHolder = Static<typeof TokenHolderSchema>;

export function tokenHolderView(item: TokenHolderItem): TokenHolder {
  return {
    address: bareAddressInfo(item.address),
    token_id: decimal(item.tokenId),
    value: item.value.toString(),
  };
}
