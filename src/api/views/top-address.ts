import { type Static, Type } from '@sinclair/typebox';
import type { TopAddressItem } from '../../store/read/top-addresses.js';
import { DecimalString } from '../schemas.js';
import { BareAddressInfoSchema, bareAddressInfo } from './address-info.js';

/** Blockscout's TopAddress: the address as embedded elsewhere, with its coin balance and transaction count (decimal strings). */
export const TopAddressSchema = Type.Object({
  ...BareAddressInfoSchema.properties,
  coin_balance: DecimalString,
  transactions_count: DecimalString,
});

export function topAddressView(item: TopAddressItem): Static<typeof TopAddressSchema> {
  return Object.assign(bareAddressInfo(item), {
    coin_balance: item.coinBalance.toString(),
    transactions_count: item.transactionsCount.toString(),
  });
}
