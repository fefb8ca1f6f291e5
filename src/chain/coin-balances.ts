import { type Address, hexQuantity } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcClient } from './rpc.js';

/** What a node that prunes state says when asked for the state of a block it no longer keeps. */
const PRUNED_STATE = /missing trie node|state .*(not available|pruned)|historical state|pruned|state is not available/i;

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i;

/**
 * The native balance of each address at one block (eth_getBalance, one JSON-RPC batch). A balance the
 * node refuses for good (no eth_getBalance, or the state of that block pruned) is null: unknown, never
 * a guess. A refusal the node means as "not now" (a block it does not have yet, a limit) rejects the
 * whole read, to be asked again; so does an answer that is not a quantity.
 */
export async function readCoinBalances(client: RpcClient, addresses: readonly Address[], blockNumber: bigint): Promise<(bigint | null)[]> {
  if (addresses.length === 0) return [];
  const block = hexQuantity(blockNumber);
  const answers = await client.batchSettled<unknown>(addresses.map((address) => ({ method: 'eth_getBalance', params: [address, block] })));
  return answers.map((answer, i) => {
    if (answer instanceof RpcError) {
      if (PRUNED_STATE.test(answer.nodeMessage) || !answer.retryable) return null;
      throw answer;
    }
    if (typeof answer !== 'string' || !QUANTITY.test(answer)) {
      throw new InvalidNodeResponseError(
        `eth_getBalance of ${addresses[i]} at block ${blockNumber}`,
        '',
        `is not a quantity (${JSON.stringify(answer)?.slice(0, 80)})`,
      );
    }
    return BigInt(answer);
  });
}
