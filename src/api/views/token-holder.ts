import { type Static, Type } from '@sinclair/typebox';
import type { TokenHolderItem } from '../../store/read/token-holders.js';
import { Nullable, decimal } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';

/**
 * The holder as Blockscout's TokenHolderResponse embeds it: AddressInfo without implementation_name,
 * which that schema does not list.
 */
const HolderAddressSchema = Type.Omit(AddressInfoSchema, ['implementation_name']);

/** A holder of a token (or of one of its ids), as Blockscout's TokenHolderResponse: the balance a decimal string. */
export const TokenHolderSchema = Type.Object({
  address: HolderAddressSchema,
  token_id: Nullable(Type.String()),
  value: Type.String(),
});

export type TokenHolder = Static<typeof TokenHolderSchema>;

export function tokenHolderView(item: TokenHolderItem): TokenHolder {
  const { implementation_name: _, ...address } = addressInfo(item.address);
  return {
    address,
    token_id: decimal(item.tokenId),
    value: item.value.toString(),
  };
}
