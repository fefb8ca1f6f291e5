import { type Address, type Hex, hexQuantity, isHexData } from '../model.js';
import { isStateNotKept, StateNotKeptError } from './coin-balances.js';
import { InvalidNodeResponseError, RpcError } from './errors.js';
import type { RpcClient } from './rpc.js';

/**
 * The runtime code of each address at one block (eth_getCode, one JSON-RPC batch): `0x` where there is
 * none. Code the node refuses for good is null: unknown. A node that no longer keeps that block's state
 * rejects the whole read with StateNotKeptError; a refusal meant as "not now", or an answer that is not
 * hex data, rejects it too, to be asked again.
 */
export async function readContractCode(client: RpcClient, addresses: readonly Address[], blockNumber: bigint): Promise<(Hex | null)[]> {
  if (addresses.length === 0) return [];
  const block = hexQuantity(blockNumber);
  const answers = await client.batchSettled<unknown>(addresses.map((address) => ({ method: 'eth_getCode', params: [address, block] })));
  return answers.map((answer, i) => {
    if (answer instanceof RpcError) {
      if (isStateNotKept(answer)) throw new StateNotKeptError(blockNumber, answer.nodeMessage);
      if (!answer.retryable) return null;
      throw answer;
    }
    if (!isHexData(answer)) {
      throw new InvalidNodeResponseError(
        `eth_getCode of ${addresses[i]} at block ${blockNumber}`,
        '',
        `is not hex data (${JSON.stringify(answer)?.slice(0, 80)})`,
      );
    }
    return answer.toLowerCase() as Hex;
  });
}
