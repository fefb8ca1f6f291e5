import { type Address, hexQuantity } from '../model.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcClient } from './rpc.js';

/** What a node that prunes state says when asked for the state of a block it no longer keeps. */
const PRUNED_STATE = /missing trie node|state .*(not available|pruned)|historical state|pruned|state is not available/i;
/** anvil with --prune-history keeps the state of its head alone: "block height is 513 but requested was 512". */
const BEHIND_HEIGHT = /block height is (\d+) but requested was (\d+)/i;

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i;

/**
 * The node no longer keeps the state of the block asked for: no balance at that height can be read
 * from it, and one at a later height may.
 */
export class StateNotKeptError extends Error {
  override name = 'StateNotKeptError';

  constructor(
    readonly blockNumber: bigint,
    nodeMessage: string,
  ) {
    super(`the node keeps no state of block ${blockNumber}: ${nodeMessage}`);
  }
}

/** Whether the node refused a read of state because it no longer keeps that block's state. */
export function isStateNotKept(error: RpcError): boolean {
  const behind = BEHIND_HEIGHT.exec(error.nodeMessage);
  return PRUNED_STATE.test(error.nodeMessage) || (behind !== null && BigInt(behind[2]!) < BigInt(behind[1]!));
}

/**
 * The native balance of each address at one block (eth_getBalance, one JSON-RPC batch). A balance the
 * node refuses for good (no eth_getBalance) is null: unknown, never a guess. A node that no longer
 * keeps that block's state rejects the whole read with StateNotKeptError. A refusal the node means as
 * "not now" (a block it does not have yet, a limit) rejects the whole read, to be asked again; so does
 * an answer that is not a quantity.
 */
export async function readCoinBalances(client: RpcClient, addresses: readonly Address[], blockNumber: bigint): Promise<(bigint | null)[]> {
  if (addresses.length === 0) return [];
  const block = hexQuantity(blockNumber);
  const answers = await client.batchSettled<unknown>(addresses.map((address) => ({ method: 'eth_getBalance', params: [address, block] })));
  return answers.map((answer, i) => {
    if (answer instanceof RpcError) {
      if (isStateNotKept(answer)) throw new StateNotKeptError(blockNumber, answer.nodeMessage);
      if (!answer.retryable) return null;
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
