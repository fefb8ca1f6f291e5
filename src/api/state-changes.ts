import { type Address, ZERO_ADDRESS } from '../model.js';
import type {
  BlockTokenTransferItem,
  BlockTransactionItem,
  InternalTransferItem,
  StateChangeBlock,
  TokenBalanceKey,
} from '../store/read/state-changes.js';
import type { TokenItem } from '../store/read/tokens.js';

/**
 * A transaction's state changes as Blockscout computes them (its TransactionStateHelper): the balance
 * before and after the transaction of every address whose native coin it moved (sender, recipient,
 * the miner's priority fee, value-carrying internal transactions), and of every token balance its
 * transfers touched. Balances before are the balances at the end of the block below, moved by the
 * transactions before it in its block; balances after, those moved by the transaction itself. Pure:
 * the balances at the block below are handed in.
 */

export interface CoinStateChange {
  type: 'coin';
  address: Address;
  isMiner: boolean;
  /** Null where the balance at the block below is unknown. */
  balanceBefore: bigint | null;
  balanceAfter: bigint | null;
  change: bigint;
}

export interface TokenStateChange {
  type: 'token';
  address: Address;
  token: TokenItem;
  /** The ERC-1155 id; null for an ERC-20 amount or an ERC-721 count. */
  tokenId: bigint | null;
  balanceBefore: bigint;
  balanceAfter: bigint;
  change: bigint;
  /** This transaction's transfers of the token from or to the address, in log order. */
  transfers: { direction: 'from' | 'to'; transfer: BlockTokenTransferItem }[];
}

export type StateChange = CoinStateChange | TokenStateChange;

/** Blockscout's rule: a failed transaction moves only its fee. Without a receipt status, a trace error says so. */
const failed = (t: BlockTransactionItem): boolean => t.status === 0 || (t.status === null && t.error !== null);

/**
 * The internal transactions that moved coin: not a delegatecall or callcode (which run another's code
 * on the caller's balance), and neither reverted nor inside a call that reverted.
 */
function effectiveTransfers(transfers: readonly InternalTransferItem[]): InternalTransferItem[] {
  const reverted = transfers.filter((t) => t.error !== null).map((t) => t.traceAddress);
  const within = (inner: number[], outer: number[]) => outer.length <= inner.length && outer.every((step, i) => inner[i] === step);
  return transfers.filter(
    (t) => t.callType !== 'delegatecall' && t.callType !== 'callcode' && !reverted.some((outer) => within(t.traceAddress, outer)),
  );
}

/** How one transaction moved native coin: a signed amount per address. */
function coinDeltas(
  transaction: BlockTransactionItem,
  internals: readonly InternalTransferItem[],
  block: Pick<StateChangeBlock, 'miner' | 'baseFeePerGas'>,
): Map<Address, bigint> {
  const deltas = new Map<Address, bigint>();
  const add = (address: Address | null, amount: bigint) => {
    if (address !== null) deltas.set(address, (deltas.get(address) ?? 0n) + amount);
  };
  const gasPrice = transaction.gasPrice ?? 0n;
  const blobFee = (transaction.blobGasUsed ?? 0n) * (transaction.blobGasPrice ?? 0n);
  add(transaction.from, -(transaction.gasUsed * gasPrice + blobFee));
  // The base fee and the blob fee are burnt; the miner gets the rest of the price.
  add(block.miner, transaction.gasUsed * (gasPrice - (block.baseFeePerGas ?? 0n)));
  if (!failed(transaction)) {
    add(transaction.from, -transaction.value);
    add(transaction.to, transaction.value);
    for (const internal of effectiveTransfers(internals)) {
      add(internal.from, -internal.value);
      add(internal.to, internal.value);
    }
  }
  return deltas;
}

const ledgerTokenId = (transfer: BlockTokenTransferItem): bigint | null => (transfer.token.type === 'ERC-1155' ? transfer.tokenId : null);
const keyOf = (holder: Address, token: Address, tokenId: bigint | null) => `${holder}:${token}:${tokenId ?? ''}`;

/** The token balances this transaction's transfers touch (ERC-404's mixed balances are left out, as the ledger splits them otherwise). */
export function tokenBalanceKeys(block: StateChangeBlock, transactionIndex: number): TokenBalanceKey[] {
  const keys = new Map<string, TokenBalanceKey>();
  for (const transfer of block.tokenTransfers) {
    if (transfer.transactionIndex !== transactionIndex || transfer.token.type === 'ERC-404') continue;
    const tokenId = ledgerTokenId(transfer);
    for (const holder of [transfer.from, transfer.to]) {
      keys.set(keyOf(holder, transfer.token.address, tokenId), { holder, token: transfer.token.address, tokenId });
    }
  }
  return [...keys.values()];
}

/** Every address whose coin the transaction may have moved, as Blockscout gathers them. */
export function coinAddresses(block: StateChangeBlock, transactionIndex: number): Address[] {
  const transaction = block.transactions.find((t) => t.index === transactionIndex);
  if (transaction === undefined) return [];
  const addresses = new Set<Address>([transaction.from, block.miner]);
  if (transaction.to !== null) addresses.add(transaction.to);
  for (const internal of block.internalTransfers) {
    if (internal.transactionIndex !== transactionIndex) continue;
    addresses.add(internal.from);
    if (internal.to !== null) addresses.add(internal.to);
  }
  return [...addresses];
}

const byAddress = (a: { address: Address }, b: { address: Address }) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

/**
 * The state changes of the transaction at `transactionIndex`: coin changes first, then token changes,
 * each by address. `coinBalances` are the balances at the block below (null: unknown), `tokenBalances`
 * the ledger's there, in the order of tokenBalanceKeys. An address whose coin did not move is left
 * out, as is an ERC-20 balance that did not.
 */
export function computeStateChanges(
  block: StateChangeBlock,
  transactionIndex: number,
  coinBalances: ReadonlyMap<Address, bigint | null>,
  tokenBalances: readonly bigint[],
): StateChange[] {
  const transaction = block.transactions.find((t) => t.index === transactionIndex);
  if (transaction === undefined) return [];
  const internalsOf = (index: number) => block.internalTransfers.filter((t) => t.transactionIndex === index);

  const coinBefore = new Map<Address, bigint | null>(coinAddresses(block, transactionIndex).map((a) => [a, coinBalances.get(a) ?? null]));
  for (const earlier of block.transactions) {
    if (earlier.index >= transactionIndex) continue;
    for (const [address, delta] of coinDeltas(earlier, internalsOf(earlier.index), block)) {
      const balance = coinBefore.get(address);
      if (balance !== undefined && balance !== null) coinBefore.set(address, balance + delta);
    }
  }
  const deltas = coinDeltas(transaction, internalsOf(transactionIndex), block);
  const coins: CoinStateChange[] = [];
  for (const [address, before] of coinBefore) {
    const change = deltas.get(address) ?? 0n;
    if (change === 0n) continue;
    coins.push({
      type: 'coin',
      address,
      isMiner: address === block.miner,
      balanceBefore: before,
      balanceAfter: before === null ? null : before + change,
      change,
    });
  }

  const keys = tokenBalanceKeys(block, transactionIndex);
  const tokenBefore = new Map(
    // As Blockscout: the zero address, which mints come from and burns go to, holds nothing.
    keys.map((key, i) => [keyOf(key.holder, key.token, key.tokenId), key.holder === ZERO_ADDRESS ? 0n : (tokenBalances[i] ?? 0n)]),
  );
  const tokenAfter = new Map(tokenBefore);
  const apply = (balances: Map<string, bigint>, transfer: BlockTokenTransferItem) => {
    const tokenId = ledgerTokenId(transfer);
    const move = (holder: Address, amount: bigint) => {
      const key = keyOf(holder, transfer.token.address, tokenId);
      const balance = balances.get(key);
      if (balance !== undefined) balances.set(key, balance + amount);
    };
    move(transfer.from, -transfer.amount);
    move(transfer.to, transfer.amount);
  };
  for (const transfer of block.tokenTransfers) {
    if (transfer.transactionIndex < transactionIndex) {
      apply(tokenBefore, transfer);
      apply(tokenAfter, transfer);
    } else if (transfer.transactionIndex === transactionIndex) {
      apply(tokenAfter, transfer);
    }
  }
  const own = block.tokenTransfers.filter((t) => t.transactionIndex === transactionIndex);
  const tokens: TokenStateChange[] = [];
  for (const key of keys) {
    const k = keyOf(key.holder, key.token, key.tokenId);
    const before = tokenBefore.get(k) ?? 0n;
    const after = tokenAfter.get(k) ?? 0n;
    const transfers = own
      .filter((t) => t.token.address === key.token && ledgerTokenId(t) === key.tokenId)
      .flatMap((transfer) => [
        ...(transfer.from === key.holder ? [{ direction: 'from' as const, transfer }] : []),
        ...(transfer.to === key.holder ? [{ direction: 'to' as const, transfer }] : []),
      ]);
    const token = transfers[0]?.transfer.token;
    if (token === undefined || (token.type === 'ERC-20' && after === before)) continue;
    tokens.push({
      type: 'token',
      address: key.holder,
      token,
      tokenId: key.tokenId,
      balanceBefore: before,
      balanceAfter: after,
      change: after - before,
      transfers,
    });
  }
  return [...coins.sort(byAddress), ...tokens.sort(byAddress)];
}
