import { readFileSync } from 'node:fs';
import type { BlockBundle, Hex } from '../../src/model.js';
import { syntheticChain } from './synthetic-chain.js';

const fixture = (path: string): any => JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));

/** Recorded `trace_block` answers: the Merge block 15,537,394 and block 17,073,191 (creates and suicides). */
export const recordedParityBlocks = (['trace_block/test_23.json', 'trace_block/test_26.json'] as const).map((path) => {
  const [entry] = fixture(`erigon-rpc-tests/integration/mainnet/${path}`);
  return { number: BigInt(entry.request.params[0]), traces: entry.response.result as any[] };
});

/** Block 24,298,763 traced with geth's callTracer (361 transactions). */
export function recordedCallTracerBlock(): { number: bigint; results: { txHash: Hex; result: any }[] } {
  const [entry] = fixture('erigon-rpc-tests/integration/mainnet/debug_traceBlockByNumber/test_51.json');
  return { number: BigInt(entry.request.params[0]), results: entry.response.result };
}

/**
 * A stored block for recorded traces: synthetic but for its hash, number and transactions' hashes,
 * each transaction's input being its top-level frame's (the store keeps it there, not twice).
 */
export function bundleFor(number: bigint, hash: Hex, transactions: { hash: Hex; input: Hex }[]): BlockBundle {
  const [bundle] = syntheticChain({ from: number, to: number, transactionsPerBlock: () => transactions.length, salt: hash });
  bundle!.block.hash = hash;
  bundle!.transactions.forEach((t, i) => {
    t.blockHash = hash;
    t.hash = transactions[i]!.hash;
    t.input = transactions[i]!.input;
  });
  return bundle!;
}
