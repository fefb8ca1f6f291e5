import type { Address, Hex } from '../../src/model.js';
import type { ChainShape } from './scale.js';

/**
 * Addresses and hashes of the generated chain, derived from (kind, number) alone: the last bytes spell
 * the kind and the number, so that every key is unique and any key can be read back by the node.
 */

/** A 32-bit mix of a few integers (murmur3's finalizer over a running combination). */
export function mix(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    h = Math.imul(h ^ (value | 0), 0x85ebca6b);
    h ^= Math.floor(value / 0x1_0000_0000);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

const word = (n: number) => n.toString(16).padStart(8, '0');

function key(kind: number, n: number, bytes: 20 | 32): Hex {
  let prefix = '';
  for (let i = 0; prefix.length < bytes * 2 - 16; i++) prefix += word(mix(kind, n, i));
  return `0x${prefix}${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(14, '0')}`;
}

export enum Kind {
  Account = 1,
  Erc20 = 2,
  Erc721 = 3,
  Erc1155 = 4,
  Miner = 5,
  Contract = 6,
  Block = 11,
  Transaction = 12,
  State = 13,
}

export const address = (kind: Kind, n: number): Address => key(kind, n, 20);
export const blockHash = (number: number): Hex => key(Kind.Block, number, 32);
export const transactionHash = (block: number, index: number): Hex => key(Kind.Transaction, block * 65_536 + index, 32);
export const stateRoot = (number: number): Hex => key(Kind.State, number, 32);

/** The kind and number an address was made from, or null for an address the generator never makes. */
export function readAddress(value: string): { kind: Kind; n: number } | null {
  const hex = value.toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(hex)) return null;
  const kind = Number.parseInt(hex.slice(26, 28), 16) as Kind;
  const n = Number.parseInt(hex.slice(28), 16);
  return address(kind, n) === hex ? { kind, n } : null;
}

/** Token numbers by kind: the airdrop tokens come first, then the busy ones, then the cold address's own. */
export const erc20 = (n: number): Address => address(Kind.Erc20, n);
export const erc721 = (n: number): Address => address(Kind.Erc721, n);
export const erc1155 = (n: number): Address => address(Kind.Erc1155, n);
export const account = (n: number): Address => address(Kind.Account, n);

/** The keys worth asking the API about: a hot and a cold case for every endpoint. */
export interface BenchKeys {
  /** Party to about a third of all token transfers and internal transactions; holds every airdrop token. */
  hotAddress: Address;
  /**
   * Gets one NFT collection, one internal transaction and four token transfers in each of the
   * `coldBlocks` cold blocks: a little more than one page of balances, collections and internal
   * transactions.
   */
  coldAddress: Address;
  /** Validates 90% of the blocks. */
  hotMiner: Address;
  /** Validates the `coldBlocks` cold blocks. */
  coldMiner: Address;
  /** An NFT transferred in every block. */
  hotInstance: { token: Address; id: bigint };
  /** An NFT of a collection of its own, transferred in the `coldBlocks` cold blocks. */
  coldInstance: { token: Address; id: bigint };
  /** Transactions with `heavyTraceFrames` + 1 and with a single trace frame. */
  heavyTraceTransaction: Hex;
  lightTraceTransaction: Hex;
  /** Every block has `withdrawalsPerBlock` withdrawals. */
  withdrawalsBlock: number;
}

/** Accounts 0..2 are hot; the last account is the cold one. */
export const HOT_ACCOUNTS = 3;

/** The cold address's k-th NFT collection (0 .. coldBlocks-1), after the cold NFT's. */
export const coldCollection = (shape: ChainShape, k: number): Address => erc721(shape.airdropTokens + shape.busyErc721 + 1 + k);

export function benchKeys(shape: ChainShape): BenchKeys {
  const heavyBlock = shape.heavyTraceEvery / 2;
  return {
    hotAddress: account(0),
    coldAddress: account(shape.accounts - 1),
    hotMiner: address(Kind.Miner, 0),
    coldMiner: address(Kind.Miner, 1),
    hotInstance: { token: erc721(shape.airdropTokens), id: 0n },
    coldInstance: { token: erc721(shape.airdropTokens + shape.busyErc721), id: 0n },
    heavyTraceTransaction: transactionHash(heavyBlock, 1),
    // Transaction 0 of a block without cold activity has a root frame and one call.
    lightTraceTransaction: transactionHash(heavyBlock, 0),
    withdrawalsBlock: shape.blocks - 1,
  };
}
