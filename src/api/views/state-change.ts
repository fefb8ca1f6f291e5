import { Type } from '@sinclair/typebox';
import type { AddressItem } from '../../store/read/sql.js';
import type { StateChange } from '../state-changes.js';
import { Nullable, StringEnum, decimal } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';
import { TokenInstanceSchema, tokenInstanceView } from './token-instance.js';
import { TokenSchema, tokenView } from './token.js';

/** An ERC-721 change: each transfer of the id, from or to the address, as the frontend lists them. */
const Erc721ChangeSchema = Type.Object({
  direction: StringEnum(['from', 'to'] as const),
  total: Type.Object({ token_id: Nullable(Type.String()), token_instance: Nullable(TokenInstanceSchema) }),
});

export const StateChangeSchema = Type.Object({
  address: AddressInfoSchema,
  balance_after: Nullable(Type.String()),
  balance_before: Nullable(Type.String()),
  change: Type.Union([Type.String(), Type.Array(Erc721ChangeSchema)]),
  is_miner: Type.Boolean(),
  token: Nullable(TokenSchema),
  token_id: Nullable(Type.String()),
  type: StringEnum(['coin', 'token'] as const),
});

/**
 * As Blockscout writes a state change: both balances null unless both are known and not negative (the
 * zero address's after a mint), an ERC-721 change as the transfers that made it.
 */
export function stateChangeView(change: StateChange, address: AddressItem) {
  const known = change.balanceBefore !== null && change.balanceAfter !== null && change.balanceBefore >= 0n && change.balanceAfter >= 0n;
  const common = {
    address: addressInfo(address),
    balance_after: known ? decimal(change.balanceAfter) : null,
    balance_before: known ? decimal(change.balanceBefore) : null,
  };
  if (change.type === 'coin') {
    return Object.assign(common, {
      change: change.change.toString(),
      is_miner: change.isMiner,
      token: null,
      token_id: null,
      type: change.type,
    });
  }
  const token = tokenView(change.token);
  const nftChange =
    change.token.type === 'ERC-721'
      ? change.transfers.map(({ direction, transfer }) => ({
          direction,
          total: {
            token_id: decimal(transfer.tokenId),
            token_instance:
              transfer.tokenId === null || transfer.instance === null
                ? null
                : tokenInstanceView(transfer.tokenId, transfer.instance.metadata, token),
          },
        }))
      : null;
  return Object.assign(common, {
    change: nftChange ?? change.change.toString(),
    is_miner: false,
    token,
    token_id: decimal(change.tokenId),
    type: change.type,
  });
}
