import { variants, type Variant } from '../model.js';
import { RpcError } from './errors.js';
import { complainAbout, readQuantity } from './node-fields.js';
import type { RpcClient } from './rpc.js';

/** How internal transactions are read: Parity-style `trace_block`, or geth's callTracer per block. */
export type TraceMethod = 'trace_block' | 'debug_traceBlockByNumber';

export interface NodeCapabilities {
  variant: Variant;
  /** As the node reports it, null when it would not say. */
  clientVersion: string | null;
  /** Null when the node would not say. */
  chainId: bigint | null;
  /** Whether `eth_getBlockReceipts` works; otherwise receipts are fetched one transaction at a time. */
  blockReceipts: boolean;
  traceMethod: TraceMethod;
}

const PARITY_TRACING: ReadonlySet<Variant> = new Set(['erigon', 'nethermind', 'besu', 'reth', 'anvil']);

/**
 * Asks the node what it is and what it serves. Every probe may fail (a pruned or locked-down node
 * refuses most methods): a refusal only switches the matching feature off. A node that cannot be
 * reached at all is a NodeUnavailableError.
 */
export async function detectCapabilities(client: RpcClient, options: { variant?: Variant } = {}): Promise<NodeCapabilities> {
  const [clientVersion, chainId, receipts] = await Promise.all([
    unlessRefused(client.request<unknown>('web3_clientVersion', [])),
    unlessRefused(client.request<unknown>('eth_chainId', [])),
    unlessRefused(client.request<unknown>('eth_getBlockReceipts', ['latest'])),
  ]);
  const version = typeof clientVersion === 'string' ? clientVersion : null;
  const variant = options.variant ?? (version === null ? null : variantOf(version)) ?? 'geth';
  return {
    variant,
    clientVersion: version,
    chainId: chainId === REFUSED || chainId === null ? null : readQuantity(chainId, '', complainAbout('eth_chainId')),
    // A node without the method refuses it; one without the block (a pruned node) answers null.
    blockReceipts: receipts !== REFUSED,
    traceMethod: PARITY_TRACING.has(variant) ? 'trace_block' : 'debug_traceBlockByNumber',
  };
}

/** `Geth/v1.14.0-stable/linux-amd64/go1.22` → geth; unknown clients → null. */
function variantOf(clientVersion: string): Variant | null {
  const name = clientVersion.split('/')[0]?.trim().toLowerCase();
  return variants.find((variant) => variant === name) ?? null;
}

const REFUSED = Symbol('refused');

async function unlessRefused(answer: Promise<unknown>): Promise<unknown> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof RpcError) return REFUSED;
    throw error;
  }
}
