import { RpcError } from '../../src/chain/errors.js';
import type { RpcCall, RpcClient } from '../../src/chain/rpc.js';
import type { ChainGenerator } from './generate.js';
import { createNodeAnswers } from './node-server.js';

/**
 * An RpcClient answering from the generated chain in this process, without HTTP or JSON: what lets
 * the loader run the indexer's own fetch and decode code at the speed of the generator.
 */
export function createInProcessClient(chain: ChainGenerator): RpcClient {
  const answer = createNodeAnswers(chain);
  const settle = (call: RpcCall): unknown => {
    const reply = answer({ id: 1, method: call.method, params: call.params });
    return 'error' in reply ? new RpcError(call.method, reply.error.code, reply.error.message, undefined) : reply.result;
  };
  const orThrow = (outcome: unknown): unknown => {
    if (outcome instanceof RpcError) throw outcome;
    return outcome;
  };
  return {
    url: 'in-process://bench-chain',
    async request<T>(method: string, params: unknown[]) {
      return orThrow(settle({ method, params })) as T;
    },
    async batch<T>(calls: readonly RpcCall[]) {
      return calls.map((call) => orThrow(settle(call))) as T[];
    },
    async batchSettled<T>(calls: readonly RpcCall[]) {
      return calls.map(settle) as (T | RpcError)[];
    },
  };
}
