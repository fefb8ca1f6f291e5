/** The sizes of the generated chain. Both scales come from the same generator; only the counts differ. */
export type BenchScale = 'small' | 'full';

export interface ChainShape {
  /** Blocks 0 .. blocks-1. */
  blocks: number;
  transactionsPerBlock: number;
  /** Externally owned accounts, the first `hotAccounts` of them taking a large share of all activity. */
  accounts: number;
  /**
   * ERC-20 tokens and ERC-721 collections that mint one item each to the hot holder, in turn, one per
   * block: as many as the hot holder's E1 and E3 lists need for a page 10,000 items deep.
   */
  airdropTokens: number;
  /** Tokens that carry the ordinary transfers. */
  busyErc20: number;
  busyErc721: number;
  busyErc1155: number;
  /**
   * The cold keys' blocks, spread evenly over the chain (however many blocks it has): at least 51 so
   * that every cold list fills the API's first page of 50 and has a second one.
   */
  coldBlocks: number;
  withdrawalsPerBlock: number;
  /** One transaction in every `heavyTraceEvery` blocks calls this many contracts (E6's heavy case). */
  heavyTraceEvery: number;
  heavyTraceFrames: number;
  seed: number;
}

const common = {
  busyErc20: 100,
  busyErc721: 200,
  busyErc1155: 100,
  coldBlocks: 60,
  withdrawalsPerBlock: 16,
  heavyTraceEvery: 100,
  heavyTraceFrames: 200,
  seed: 1,
};

export const chainShapes: Record<BenchScale, ChainShape> = {
  // 10,500 airdrop tokens need 10,500 blocks; the hot miner's 90% of the 11,940 blocks that are not cold is about 10,746.
  small: { ...common, blocks: 12_000, transactionsPerBlock: 2, accounts: 20_000, airdropTokens: 10_500 },
  full: { ...common, blocks: 50_000, transactionsPerBlock: 20, accounts: 200_000, airdropTokens: 10_500 },
};

/** A scale's shape, cut to its first `blocks` blocks when given (a run that must fit in less time). */
export function chainShape(scale: BenchScale, blocks?: number): ChainShape {
  return blocks === undefined ? chainShapes[scale] : { ...chainShapes[scale], blocks };
}

const option = (args: readonly string[], name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

/** `--scale small|full` (small when absent). */
export function parseScale(args: readonly string[]): BenchScale {
  const value = option(args, '--scale') ?? 'small';
  if (value !== 'small' && value !== 'full') throw new Error(`--scale must be small or full, got ${value}`);
  return value;
}

/** `--blocks N`: only the first N blocks of the scale's chain; undefined when absent. */
export function parseBlocks(args: readonly string[]): number | undefined {
  const value = option(args, '--blocks');
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`--blocks must be a positive whole number, got ${value}`);
  return Number(value);
}
