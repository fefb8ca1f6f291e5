import { type Static, Type } from '@sinclair/typebox';
import type { Address, Hex } from '../../model.js';
import type { TokenTransferRow } from '../../store/read/token-transfers.js';
import { knownMethodName } from '../known-methods.js';
import { Nullable, Timestamp } from '../schemas.js';
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

const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/** Mints come from and burns go to the zero address only (0x…dEaD is an ordinary recipient). */
function transferType(from: Address, to: Address): string {
  if (from === ZERO_ADDRESS) return to === ZERO_ADDRESS ? 'token_spawning' : 'token_minting';
  return to === ZERO_ADDRESS ? 'token_burning' : 'token_transfer';
}

/** The called method of the transaction that made the transfer: its known name, else its selector. */
function method(input: Hex): string | null {
  if (input.length < 10) return null;
  const selector = input.slice(0, 10) as Hex;
  return knownMethodName(selector) ?? selector;
}

function total(row: TokenTransferRow): TokenTransfer['total'] {
  const decimals = row.token.decimals?.toString() ?? null;
  const value = row.amount.toString();
  if (row.token.type === 'ERC-20') return { decimals, value };
  const tokenId = row.tokenId?.toString() ?? null;
  const instance =
    row.instance === null || row.tokenId === null ? null : tokenInstanceView(row.tokenId, row.instance.metadata, tokenView(row.token));
  if (row.token.type === 'ERC-721') return { token_id: tokenId, token_instance: instance };
  return { decimals, token_id: tokenId, token_instance: instance, value };
}

export function tokenTransferView(row: TokenTransferRow): TokenTransfer {
  return {
    block_hash: row.blockHash,
    block_number: row.blockNumber,
    from: addressInfo(row.from),
    log_index: row.logIndex,
    method: method(row.input),
    timestamp: row.timestamp,
    to: addressInfo(row.to),
    token: tokenView(row.token),
    token_type: row.token.type,
    total: total(row),
    transaction_hash: row.transactionHash,
    type: transferType(row.from.hash, row.to.hash),
  };
}
