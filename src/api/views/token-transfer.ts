import { type Static, Type } from '@sinclair/typebox';
import { type Address, ZERO_ADDRESS } from '../../model.js';
import type { TokenTransferItem } from '../../store/read/token-transfers.js';
import { Nullable, Timestamp, decimal } from '../schemas.js';
import { AddressInfoSchema, addressInfo } from './address-info.js';
import { TokenInstanceSchema, tokenInstanceView } from './token-instance.js';
import { TokenSchema, tokenView } from './token.js';

/** ERC-20: decimals and value; ERC-721: the id and its instance; ERC-1155 and ERC-404: all four. */
const TotalSchema = Type.Object({
  decimals: Type.Optional(Nullable(Type.String())),
  token_id: Type.Optional(Nullable(Type.String())),
  token_instance: Type.Optional(Nullable(TokenInstanceSchema)),
  value: Type.Optional(Type.String()),
});

export const TokenTransferSchema = Type.Object({
  block_hash: Type.String(),
  block_number: Type.Integer(),
  from: AddressInfoSchema,
  log_index: Type.Integer(),
  method: Nullable(Type.String()),
  timestamp: Nullable(Timestamp),
  to: AddressInfoSchema,
  token: TokenSchema,
  token_type: Type.String(),
  total: Nullable(TotalSchema),
  transaction_hash: Type.String(),
  type: Type.String(),
});

export type TokenTransfer = Static<typeof TokenTransferSchema>;

/** Mints come from and burns go to the zero address only (0x…dEaD is an ordinary recipient). */
function transferType(from: Address, to: Address): string {
  if (from === ZERO_ADDRESS) return to === ZERO_ADDRESS ? 'token_spawning' : 'token_minting';
  return to === ZERO_ADDRESS ? 'token_burning' : 'token_transfer';
}

function total(item: TokenTransferItem): TokenTransfer['total'] {
  const decimals = decimal(item.token.decimals);
  const value = item.amount.toString();
  if (item.token.type === 'ERC-20') return { decimals, value };
  const tokenId = decimal(item.tokenId);
  const instance =
    item.instance === null || item.tokenId === null ? null : tokenInstanceView(item.tokenId, item.instance.metadata, tokenView(item.token));
  if (item.token.type === 'ERC-721') return { token_id: tokenId, token_instance: instance };
  return { decimals, token_id: tokenId, token_instance: instance, value };
}

/** `method`: the method the transaction that made the transfer called (src/api/token-transfer-lists.ts). */
export function tokenTransferView(item: TokenTransferItem, method: string | null): TokenTransfer {
  return {
    block_hash: item.blockHash,
    block_number: item.blockNumber,
    from: addressInfo(item.from),
    log_index: item.logIndex,
    method,
    timestamp: item.timestamp,
    to: addressInfo(item.to),
    token: tokenView(item.token),
    token_type: item.token.type,
    total: total(item),
    transaction_hash: item.transactionHash,
    type: transferType(item.from.hash, item.to.hash),
  };
}
